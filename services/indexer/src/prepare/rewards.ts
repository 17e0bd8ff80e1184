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
 * `reward_claims` (CTE `rewards_claims`, first so that the others read its RETURNING) and
 * `reward_distributions` (`rewards_distributions`): the range's rows inserted (the distributor
 * publishes an id once and pays a claimant once per id, so a key never repeats on one chain
 * branch). Each distribution's `claimed_count`/`claimed_amount` count the range's claims: a
 * distribution published in the range is inserted with its claims of the range already counted
 * (a statement's UPDATE does not see its own INSERTs), an earlier one is updated
 * (`rewards_claim_totals`, once per id; journaled, so a reorg restores the previous counters).
 */
export function rewardsCtes(rewards: RewardRows, q: SqlParams): string[] {
  const ctes: string[] = [];
  const hasClaims = rewards.claims.length > 0;
  if (hasClaims) {
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
    })}
    RETURNING distribution_id, amount)`);
    ctes.push(`rewards_claim_sums AS (
    SELECT distribution_id, count(*)::int AS n, sum(amount) AS amount FROM rewards_claims GROUP BY distribution_id)`);
    ctes.push(`rewards_claim_totals AS (
    UPDATE reward_distributions r
       SET claimed_count = r.claimed_count + s.n, claimed_amount = r.claimed_amount + s.amount
      FROM rewards_claim_sums s WHERE r.distribution_id = s.distribution_id)`);
  }
  if (rewards.distributions.length > 0) {
    const rows = unnestRows(q, rewards.distributions, "d", {
      distribution_id: ["text", (r) => r.distributionId],
      token_address: ["text", (r) => r.token],
      epoch: ["numeric", (r) => r.epoch.toString()],
      asset: ["text", (r) => r.asset],
      root: ["text", (r) => r.root],
      ...positionColumns(),
    });
    const counted = hasClaims
      ? `SELECT d.*, coalesce(s.n, 0), coalesce(s.amount, 0)
      FROM ${rows} LEFT JOIN rewards_claim_sums s ON s.distribution_id = d.distribution_id`
      : `SELECT d.*, 0, 0 FROM ${rows}`;
    ctes.push(`rewards_distributions AS (
    INSERT INTO reward_distributions (distribution_id, token_address, epoch, asset, root,
      block_number, block_hash, block_timestamp, transaction_hash, log_index, claimed_count, claimed_amount)
    ${counted})`);
  }
  return ctes;
}
