import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { eventPageQuery } from "../common/route-helpers.js";
import { dataRoutes, tokenRoute } from "../route-context.js";
import {
  type RewardDistributionRow,
  readWalletRewards,
  rewardDistributionOf,
  TOKEN_REWARD_DISTRIBUTIONS,
} from "./reward-queries.js";
import { rewardDistributionPageSchema, walletRewardsSchema } from "./reward-schemas.js";

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
 * `GET /api/v1/wallets/:address/rewards` (docs/api.md "Reward distributions"): the wallet's
 * claims and its leaves in uploaded trees with proofs. A wallet with nothing has empty lists.
 * Errors: 400 `invalid_address`.
 */
export const walletRewardRoutes = dataRoutes("wallets", (routes, ctx) => {
  routes.byAddress(
    "/api/v1/wallets/:address/rewards",
    {
      summary: "Wallet trader rewards",
      description:
        "Every RewardClaimed of the wallet, and every leaf of the wallet in an uploaded tree of a published distribution: amount, proof for the distributor's claim, claimed, claimable.",
      ok: walletRewardsSchema,
    },
    (address) => readWalletRewards(ctx.db, address),
  );
});
