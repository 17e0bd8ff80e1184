import { tokenRoute } from "../../route-context.js";
import { type AssetFeeRow, readTokenFees, type TokenFeeRow } from "./fee-queries.js";
import { tokenFeesSchema } from "./fee-schemas.js";

const sub = (a: string, b: string) => (BigInt(a) - BigInt(b)).toString();

/** The `creator` object of a token's fees (curve fees, wei): claimable = earned − claimed. */
export function creatorFeesBody(f: TokenFeeRow) {
  return {
    payout_address: f.payout_address,
    pending_payout_address: f.pending_payout_address,
    earned: f.curve_creator,
    claimed: f.creator_claimed,
    claimable: sub(f.curve_creator, f.creator_claimed),
  };
}

const positive = (...amounts: string[]) => amounts.some((a) => a !== "0");

/**
 * `GET /api/v1/tokens/:address/fees`: the token's fee economy (docs/api.md "Fees"): curve fees by
 * part, the creator's curve fees (payout address, earned, claimed, claimable), the permanent LP
 * fee vault's shares by asset, the community and trader-rewards pots by asset (each asset listed
 * once it has an amount). Amounts wei / base units, decimal strings.
 * Errors: 400 `invalid_address`, 404 `not_found` (no such token).
 */
export const feeRoutes = tokenRoute("fees", {
  summary: "Token fee economy",
  description:
    "Curve fees by part (Σ FeesDeposited), the creator's curve fees and who may claim them (the payout address), the permanent LP fee vault's shares by asset (Σ PermanentLPFeesAccrued), the community and trader-rewards vaults' pots by asset.",
  ok: tokenFeesSchema,
  read: async (ctx, token) => {
    const f = await readTokenFees(ctx.db, token);
    if (!f) return null;
    const assets: AssetFeeRow[] = f.assets;
    return {
      curve: {
        total: f.curve_total,
        protocol: f.curve_protocol,
        creator: f.curve_creator,
        community: f.curve_community,
        trader_rewards: f.curve_trader_rewards,
      },
      creator: creatorFeesBody(f),
      lp: assets
        .filter((a) => positive(a.lp_creator, a.lp_protocol, a.lp_community, a.lp_trader_rewards))
        .map((a) => ({
          asset: a.asset,
          collected: (
            BigInt(a.lp_creator) +
            BigInt(a.lp_protocol) +
            BigInt(a.lp_community) +
            BigInt(a.lp_trader_rewards)
          ).toString(),
          creator: a.lp_creator,
          protocol: a.lp_protocol,
          community: a.lp_community,
          trader_rewards: a.lp_trader_rewards,
        })),
      community: assets
        .filter((a) => positive(a.community_funded, a.community_forwarded))
        .map((a) => ({
          asset: a.asset,
          funded: a.community_funded,
          forwarded: a.community_forwarded,
          balance: sub(a.community_funded, a.community_forwarded),
        })),
      trader_rewards: assets
        .filter((a) => positive(a.trader_rewards_funded, a.trader_rewards_paid))
        .map((a) => ({
          asset: a.asset,
          funded: a.trader_rewards_funded,
          paid: a.trader_rewards_paid,
          balance: sub(a.trader_rewards_funded, a.trader_rewards_paid),
        })),
    };
  },
});
