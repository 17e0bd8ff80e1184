import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { eventPageQuery } from "../common/route-helpers.js";
import { dataRoutes, tokenRoute } from "../route-context.js";
import {
  type RewardDistributionRow,
  rewardDistributionOf,
  TOKEN_REWARD_DISTRIBUTIONS,
  WALLET_REWARDS,
  type WalletRewardRow,
  walletRewardOf,
} from "./reward-queries.js";
import { rewardDistributionPageSchema, walletRewardPageSchema } from "./reward-schemas.js";

/**
 * `GET /api/v1/tokens/:address/rewards/distributions` (docs/api.md "Reward distributions"): the
 * token's published distributions, newest first by (block_number, log_index), paged.
 * Errors: 400 `invalid_address`, 400 `invalid_request` (limit, cursor, order), 404 `not_found`.
 */
export const rewardDistributionRoutes = tokenRoute("rewards/distributions", {
  summary: "Token trader-reward distributions",
  description:
    "The token's trader-reward distributions (DistributionPublished of the deployment's distributor) with their claims' count and sum (RewardClaimed), ordered by (block_number, log_index), newest first by default (`order=asc` for oldest first).",
  query: eventPageQuery,
  ok: rewardDistributionPageSchema,
  read: async (ctx, address, { order, limit, cursor }) => {
    const page = await readKeysetPage<RewardDistributionRow>(ctx.db, TOKEN_REWARD_DISTRIBUTIONS, {
      filters: [address],
      order,
      limit,
      cursor,
      cursors: ctx.cursors,
      route: `tokens.rewards.distributions:${address}:${order}`,
    });
    return page && keysetBody(page, rewardDistributionOf);
  },
});

/**
 * `GET /api/v1/wallets/:address/rewards` (docs/api.md "Reward distributions"): a page of the
 * distributions the wallet has a claim or an uploaded leaf in (amount, proof, claim, claimable),
 * ordered by (epoch, distribution_id), newest epoch first by default. A wallet with nothing has an
 * empty page. Errors: 400 `invalid_address`, 400 `invalid_request` (limit, cursor, order).
 */
export const walletRewardRoutes = dataRoutes("wallets", (routes, ctx) => {
  routes.byAddress(
    "/api/v1/wallets/:address/rewards",
    {
      summary: "Wallet trader rewards",
      description:
        "One item per distribution in which the wallet has a RewardClaimed or a leaf of an uploaded tree: amount, proof for the distributor's claim, the claim, claimable. Ordered by (epoch, distribution_id), newest epoch first by default (`order=asc` for oldest first).",
      query: eventPageQuery,
      ok: walletRewardPageSchema,
    },
    async (address, { order, limit, cursor }) => {
      const page = await readKeysetPage<WalletRewardRow>(ctx.db, WALLET_REWARDS, {
        filters: [address],
        order,
        limit,
        cursor,
        cursors: ctx.cursors,
        route: `wallets.rewards:${address}:${order}`,
      });
      return keysetBody(page ?? { rows: [] }, walletRewardOf);
    },
  );
});
