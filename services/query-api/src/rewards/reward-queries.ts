import {
  firstRows,
  type KeysetColumn,
  type KeysetSource,
  keyOf,
  keysetCondition,
  keysetOrderBy,
  type PageOrder,
} from "../common/keyset-page.js";
import type { Int8 } from "../db.js";

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

/** The order of a wallet's rewards page: (epoch, distribution_id), newest epoch first. */
const WALLET_REWARD_KEY: readonly KeysetColumn[] = [
  { sql: "x.epoch", column: "epoch", type: "numeric", descending: true },
  { sql: "x.distribution_id", column: "distribution_id", type: "text", descending: true },
];

/** {@link WALLET_REWARD_KEY} over the alias `alias` of one of the page's two sources. */
const keyOver = (alias: string) => WALLET_REWARD_KEY.map((c) => ({ ...c, sql: `${alias}.${c.column}` }));

/**
 * The rewards page statement of a wallet (`$1`): its next claims (`reward_claims` ⋈ the
 * distribution, for the root) and its next leaves in uploaded trees of an indexed distribution of
 * the same root (`reward_tree_leaves` ⋈ `reward_distributions`), each read in the page's order from
 * its `(claimant, epoch, distribution_id)` index and cut at the page's `LIMIT` before they are
 * merged by distribution: the first `LIMIT` distributions of the merge are the wallet's first
 * `LIMIT` (each has its claim and its leaf among the rows read, since fewer rows of either source
 * come before it), so the work is bounded by the page whatever the wallet holds.
 */
function walletRewardsSql(order: PageOrder, after: boolean): string {
  const limit = `$${after ? 4 : 2}`;
  const bound = (alias: string) =>
    after ? `\n       AND ${keysetCondition(keyOver(alias), order, (i, type) => `$${2 + i}::${type}`)}` : "";
  const orderBy = (alias: string) => keysetOrderBy(keyOver(alias), order);
  // Each source's first rows are read as `firstRows` does: planned under the constant LIMIT.
  const page = (ordered: string) =>
    firstRows(ordered, limit, keysetOrderBy(keyOf(WALLET_REWARD_KEY, "page"), order));
  return `WITH c AS (
    ${page(`SELECT c.distribution_id, c.epoch, c.token_address, c.asset, d.root, c.amount, c.block_number,
           c.block_timestamp, c.transaction_hash, c.log_index
      FROM reward_claims c
      JOIN reward_distributions d ON d.distribution_id = c.distribution_id
     WHERE c.claimant = $1${bound("c")}
     ORDER BY ${orderBy("c")}`)}
  ), l AS (
    ${page(`SELECT l.distribution_id, l.epoch, d.token_address, d.asset, d.root, l.amount, l.proof
      FROM reward_tree_leaves l
      -- A lateral read per leaf, not a join: PostgreSQL estimates the join on (id, root) at one row
      -- and then sorts the wallet's every leaf instead of walking its index for the page's rows.
      JOIN LATERAL (SELECT d.token_address, d.asset, d.root FROM reward_distributions d
                     WHERE d.distribution_id = l.distribution_id AND d.root = l.root LIMIT 1) d ON true
     WHERE l.claimant = $1${bound("l")}
     ORDER BY ${orderBy("l")}`)}
  ), x AS (
    SELECT coalesce(l.distribution_id, c.distribution_id) AS distribution_id,
           coalesce(l.epoch, c.epoch) AS epoch,
           coalesce(l.token_address, c.token_address) AS token_address,
           coalesce(l.asset, c.asset) AS asset, coalesce(l.root, c.root) AS root,
           coalesce(l.amount, c.amount) AS amount, l.proof,
           c.distribution_id IS NOT NULL AS claimed, c.block_number, c.block_timestamp,
           c.transaction_hash, c.log_index
      FROM l FULL JOIN c ON c.distribution_id = l.distribution_id
  )
  SELECT x.distribution_id, x.epoch::text AS epoch, x.token_address, x.asset, x.root,
         x.amount::text AS amount, x.proof, x.claimed, x.block_number, x.block_timestamp,
         x.transaction_hash, x.log_index,
         coalesce(f.trader_rewards_funded - f.trader_rewards_paid >= x.amount, false) AS covered
    FROM x
    LEFT JOIN token_asset_fees f ON f.token_address = x.token_address AND f.asset = x.asset
   ORDER BY ${keysetOrderBy(WALLET_REWARD_KEY, order)}
   LIMIT ${limit}`;
}

/**
 * The rewards of one wallet (`$1`, lowercase), one row per distribution in which it has a claim
 * (`reward_claims`) or a leaf of an uploaded tree whose (id, root) is an indexed distribution
 * (`reward_tree_leaves`), ordered by (epoch, distribution_id), newest epoch first; with whether the
 * trader-rewards vault's indexed balance of (token, asset) covers the amount (`token_asset_fees`:
 * trader_rewards_funded − trader_rewards_paid). See {@link walletRewardsSql}.
 */
export const WALLET_REWARDS: KeysetSource = {
  name: "wallet_rewards",
  // Unused: `statement` writes the whole page (two sources merged), not one table's page.
  select: "",
  from: "",
  where: "",
  key: WALLET_REWARD_KEY,
  statement: (order, after) => walletRewardsSql(order, after),
};

/** A row of {@link WALLET_REWARDS}: the claim's columns are null without a claim, `proof` without an uploaded leaf. */
export interface WalletRewardRow extends Record<string, unknown> {
  distribution_id: string;
  epoch: string;
  token_address: string;
  asset: string;
  root: string;
  /** Base units, decimal. */
  amount: string;
  proof: string[] | null;
  claimed: boolean;
  block_number: Int8 | null;
  block_timestamp: Int8 | null;
  transaction_hash: string | null;
  log_index: number | null;
  covered: boolean;
}

/** The wire WalletReward of a row: `claim` is the RewardClaimed log, `claimable` needs a served leaf. */
export function walletRewardOf(r: WalletRewardRow) {
  return {
    distribution_id: r.distribution_id,
    token_address: r.token_address,
    epoch: r.epoch,
    asset: r.asset,
    root: r.root,
    amount: r.amount,
    proof: r.proof,
    claimed: r.claimed,
    claim:
      r.claimed && r.block_number !== null
        ? {
            block_number: Number(r.block_number),
            timestamp: Number(r.block_timestamp),
            transaction_hash: r.transaction_hash,
            log_index: r.log_index,
          }
        : null,
    claimable: !r.claimed && r.proof !== null && r.covered,
  };
}
