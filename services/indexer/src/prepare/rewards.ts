// The SQL text of read model `rewards` (its rows: model/rewards.ts): the statement parts that
// insert a range's distributions and claims, composed by prepare-write.ts.

import type { RewardLogPosition, RewardRows } from "../model/rewards.js";
import { type SqlParams, type UnnestColumn, unnestRows } from "../sql/sql-text.js";

/** The position columns shared by both tables. */
function positionColumns<T extends RewardLogPosition>(): Record<string, UnnestColumn<T>> {
  return {
    block_number: ["bigint", (r) => r.blockNumber],
    block_hash: ["text", (r) => r.blockHash],
    block_timestamp: ["bigint", (r) => r.blockTimestamp],
    transaction_hash: ["text", (r) => r.transactionHash],
    log_index: ["int", (r) => r.logIndex],
  };
}

/**
 * `reward_distributions` (CTE `rewards_distributions`) and `reward_claims` (`rewards_claims`):
 * the range's rows inserted (the distributor publishes an id once and pays a claimant once per id,
 * so a key never repeats on one chain branch).
 */
export function rewardsCtes(rewards: RewardRows, q: SqlParams): string[] {
  const ctes: string[] = [];
  if (rewards.distributions.length > 0) {
    ctes.push(`rewards_distributions AS (
    INSERT INTO reward_distributions (distribution_id, token_address, epoch, asset, root,
      block_number, block_hash, block_timestamp, transaction_hash, log_index)
    SELECT * FROM ${unnestRows(q, rewards.distributions, "d", {
      distribution_id: ["text", (r) => r.distributionId],
      token_address: ["text", (r) => r.token],
      epoch: ["numeric", (r) => r.epoch.toString()],
      asset: ["text", (r) => r.asset],
      root: ["text", (r) => r.root],
      ...positionColumns(),
    })})`);
  }
  if (rewards.claims.length > 0) {
    ctes.push(`rewards_claims AS (
    INSERT INTO reward_claims (distribution_id, claimant, token_address, epoch, asset, amount,
      block_number, block_hash, block_timestamp, transaction_hash, log_index)
    SELECT * FROM ${unnestRows(q, rewards.claims, "c", {
      distribution_id: ["text", (r) => r.distributionId],
      claimant: ["text", (r) => r.claimant],
      token_address: ["text", (r) => r.token],
      epoch: ["numeric", (r) => r.epoch.toString()],
      asset: ["text", (r) => r.asset],
      amount: ["numeric", (r) => r.amount.toString()],
      ...positionColumns(),
    })})`);
  }
  return ctes;
}
