// The SQL text of read model `fees` (its deltas: model/fees.ts): the statement parts that write a
// range's rows, composed by prepare-write.ts. Sums add up; a table without changes writes nothing.

import type { FeeDeltas } from "../model/fees.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

const num = (v: bigint) => v.toString();

/**
 * `token_fees` (CTE `fees_tokens`), `token_asset_fees` (`fees_assets`) and `creator_lp_fees`
 * (`fees_creator_lp`): the range's sums added to the stored ones; the payout address replaced
 * when the range set it (NULL: unchanged), the pending one when the range set or cleared it
 * ('' in the relation: unchanged).
 */
export function feesCtes(fees: FeeDeltas, q: SqlParams): string[] {
  const ctes: string[] = [];
  if (fees.tokens.size > 0) {
    ctes.push(`fees_tokens AS (
    INSERT INTO token_fees (token_address, curve_total, curve_protocol, curve_creator, curve_community,
      curve_trader_rewards, creator_claimed, payout_address, pending_payout_address, updated_block_number)
    SELECT * FROM ${unnestRows(q, [...fees.tokens.values()], "d", {
      token_address: ["text", (d) => d.token],
      curve_total: ["numeric", (d) => num(d.curveTotal)],
      curve_protocol: ["numeric", (d) => num(d.curveProtocol)],
      curve_creator: ["numeric", (d) => num(d.curveCreator)],
      curve_community: ["numeric", (d) => num(d.curveCommunity)],
      curve_trader_rewards: ["numeric", (d) => num(d.curveTraderRewards)],
      creator_claimed: ["numeric", (d) => num(d.creatorClaimed)],
      payout_address: ["text", (d) => d.payout ?? null],
      pending_payout_address: ["text", (d) => (d.pending === undefined ? "" : d.pending)],
      updated_block_number: ["bigint", (d) => d.updatedBlock],
    })}
    ON CONFLICT (token_address) DO UPDATE SET
      curve_total = token_fees.curve_total + excluded.curve_total,
      curve_protocol = token_fees.curve_protocol + excluded.curve_protocol,
      curve_creator = token_fees.curve_creator + excluded.curve_creator,
      curve_community = token_fees.curve_community + excluded.curve_community,
      curve_trader_rewards = token_fees.curve_trader_rewards + excluded.curve_trader_rewards,
      creator_claimed = token_fees.creator_claimed + excluded.creator_claimed,
      payout_address = coalesce(excluded.payout_address, token_fees.payout_address),
      pending_payout_address = CASE WHEN excluded.pending_payout_address = '' THEN token_fees.pending_payout_address
                                    ELSE excluded.pending_payout_address END,
      updated_block_number = greatest(token_fees.updated_block_number, excluded.updated_block_number))`);
  }
  if (fees.assets.size > 0) {
    ctes.push(`fees_assets AS (
    INSERT INTO token_asset_fees (token_address, asset, lp_creator, lp_protocol, lp_community, lp_trader_rewards,
      community_funded, community_forwarded, trader_rewards_funded, trader_rewards_paid, updated_block_number)
    SELECT * FROM ${unnestRows(q, [...fees.assets.values()], "d", {
      token_address: ["text", (d) => d.token],
      asset: ["text", (d) => d.asset],
      lp_creator: ["numeric", (d) => num(d.lpCreator)],
      lp_protocol: ["numeric", (d) => num(d.lpProtocol)],
      lp_community: ["numeric", (d) => num(d.lpCommunity)],
      lp_trader_rewards: ["numeric", (d) => num(d.lpTraderRewards)],
      community_funded: ["numeric", (d) => num(d.communityFunded)],
      community_forwarded: ["numeric", (d) => num(d.communityForwarded)],
      trader_rewards_funded: ["numeric", (d) => num(d.traderRewardsFunded)],
      trader_rewards_paid: ["numeric", (d) => num(d.traderRewardsPaid)],
      updated_block_number: ["bigint", (d) => d.updatedBlock],
    })}
    ON CONFLICT (token_address, asset) DO UPDATE SET
      lp_creator = token_asset_fees.lp_creator + excluded.lp_creator,
      lp_protocol = token_asset_fees.lp_protocol + excluded.lp_protocol,
      lp_community = token_asset_fees.lp_community + excluded.lp_community,
      lp_trader_rewards = token_asset_fees.lp_trader_rewards + excluded.lp_trader_rewards,
      community_funded = token_asset_fees.community_funded + excluded.community_funded,
      community_forwarded = token_asset_fees.community_forwarded + excluded.community_forwarded,
      trader_rewards_funded = token_asset_fees.trader_rewards_funded + excluded.trader_rewards_funded,
      trader_rewards_paid = token_asset_fees.trader_rewards_paid + excluded.trader_rewards_paid,
      updated_block_number = greatest(token_asset_fees.updated_block_number, excluded.updated_block_number))`);
  }
  if (fees.creatorLp.size > 0) {
    ctes.push(`fees_creator_lp AS (
    INSERT INTO creator_lp_fees (recipient, asset, earned, claimed, updated_block_number)
    SELECT * FROM ${unnestRows(q, [...fees.creatorLp.values()], "d", {
      recipient: ["text", (d) => d.recipient],
      asset: ["text", (d) => d.asset],
      earned: ["numeric", (d) => num(d.earned)],
      claimed: ["numeric", (d) => num(d.claimed)],
      updated_block_number: ["bigint", (d) => d.updatedBlock],
    })}
    ON CONFLICT (recipient, asset) DO UPDATE SET
      earned = creator_lp_fees.earned + excluded.earned,
      claimed = creator_lp_fees.claimed + excluded.claimed,
      updated_block_number = greatest(creator_lp_fees.updated_block_number, excluded.updated_block_number))`);
  }
  return ctes;
}
