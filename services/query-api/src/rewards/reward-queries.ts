import type { KeysetSource } from "../common/keyset-page.js";
import type { Int8, SqlReader } from "../db.js";

/**
 * The distributions of one token (`$1`, lowercase), newest first by (block_number, log_index),
 * with their claims' count and sum (kept on the row by the indexer) and whether a tree of the same
 * root was uploaded; a page of an unknown token is `null`. Source: `tokens`,
 * `reward_distributions`, `reward_trees`.
 */
export const TOKEN_REWARD_DISTRIBUTIONS: KeysetSource = {
  name: "reward_distributions",
  select: `r.distribution_id, r.epoch::text AS epoch, r.asset, r.root, r.block_number, r.block_timestamp,
    r.transaction_hash, r.log_index, r.claimed_count, r.claimed_amount::text AS claimed_amount,
    EXISTS (SELECT 1 FROM reward_trees t WHERE t.distribution_id = r.distribution_id AND t.root = r.root) AS tree_uploaded`,
  from: "reward_distributions r",
  where: "r.token_address = $1",
  key: [
    { sql: "r.block_number", column: "block_number", type: "int8", descending: true },
    { sql: "r.log_index", column: "log_index", type: "int4", descending: true },
  ],
  parent: { from: "tokens t0", where: "t0.address = $1" },
};

/** A row of {@link TOKEN_REWARD_DISTRIBUTIONS}. */
export interface RewardDistributionRow extends Record<string, unknown> {
  distribution_id: string;
  epoch: string;
  asset: string;
  root: string;
  block_number: Int8;
  block_timestamp: Int8;
  transaction_hash: string;
  log_index: number;
  claimed_count: number;
  claimed_amount: string;
  tree_uploaded: boolean;
}

/** The wire RewardDistribution of a row. */
export function rewardDistributionOf(r: RewardDistributionRow) {
  return {
    distribution_id: r.distribution_id,
    epoch: r.epoch,
    asset: r.asset,
    root: r.root,
    published: {
      block_number: Number(r.block_number),
      timestamp: Number(r.block_timestamp),
      transaction_hash: r.transaction_hash,
      log_index: r.log_index,
    },
    claimed_count: r.claimed_count,
    claimed_amount: r.claimed_amount,
    tree_uploaded: r.tree_uploaded,
  };
}

/**
 * Every claim of `wallet` (`reward_claims`, newest first) and every leaf of `wallet` in an
 * uploaded tree whose (id, root) is an indexed distribution (`reward_tree_leaves` ⋈
 * `reward_distributions`), with whether it was claimed (`reward_claims`) and whether the
 * trader-rewards vault's indexed balance of (token, asset) covers it (`token_asset_fees`:
 * trader_rewards_funded − trader_rewards_paid). Amounts decimal strings.
 */
export async function readWalletRewards(db: SqlReader, wallet: string) {
  const [claims, leaves] = await Promise.all([
    db.query<{
      distribution_id: string;
      token_address: string;
      epoch: string;
      asset: string;
      amount: string;
      block_number: Int8;
      block_timestamp: Int8;
      transaction_hash: string;
      log_index: number;
    }>(
      `SELECT distribution_id, token_address, epoch::text AS epoch, asset, amount::text AS amount,
              block_number, block_timestamp, transaction_hash, log_index
         FROM reward_claims WHERE claimant = $1
        ORDER BY block_number DESC, log_index DESC`,
      [wallet],
    ),
    db.query<{
      distribution_id: string;
      token_address: string;
      epoch: string;
      asset: string;
      root: string;
      amount: string;
      proof: string[];
      claimed: boolean;
      covered: boolean;
    }>(
      `SELECT d.distribution_id, d.token_address, d.epoch::text AS epoch, d.asset, d.root,
              l.amount::text AS amount, l.proof, (c.claimant IS NOT NULL) AS claimed,
              coalesce(f.trader_rewards_funded - f.trader_rewards_paid >= l.amount, false) AS covered
         FROM reward_tree_leaves l
         JOIN reward_distributions d ON d.distribution_id = l.distribution_id AND d.root = l.root
         LEFT JOIN reward_claims c ON c.distribution_id = l.distribution_id AND c.claimant = l.claimant
         LEFT JOIN token_asset_fees f ON f.token_address = d.token_address AND f.asset = d.asset
        WHERE l.claimant = $1
        ORDER BY d.block_number DESC, d.log_index DESC`,
      [wallet],
    ),
  ]);
  return {
    address: wallet,
    claims: claims.rows.map((c) => ({
      distribution_id: c.distribution_id,
      token_address: c.token_address,
      epoch: c.epoch,
      asset: c.asset,
      amount: c.amount,
      claimed: {
        block_number: Number(c.block_number),
        timestamp: Number(c.block_timestamp),
        transaction_hash: c.transaction_hash,
        log_index: c.log_index,
      },
    })),
    leaves: leaves.rows.map((l) => ({
      distribution_id: l.distribution_id,
      token_address: l.token_address,
      epoch: l.epoch,
      asset: l.asset,
      root: l.root,
      amount: l.amount,
      proof: l.proof,
      claimed: l.claimed,
      claimable: !l.claimed && l.covered,
    })),
  };
}
