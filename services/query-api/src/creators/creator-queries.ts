import { TOKEN_FROM_SQL } from "@tmi/shared/token";
import { prepared, type SqlReader } from "../db.js";
import {
  checkTake,
  firstRows,
  NEWEST_PAGE_ORDER,
  type NewestPosition,
  PAGE_COLUMNS,
  type TokenJsonRow,
} from "../tokens/token-queries.js";

/**
 * `VISIBLE_TOKEN` for the tokens of creator $1 (`t.creator = $1`): the creator's exclusion is
 * tested once on the parameter (a one-time filter) instead of per row. Per row, PostgreSQL's
 * generic plan estimated that one row survives the creator anti-join, so it read every token of
 * the creator through a bitmap and sorted them (1,000 heap pages for a creator of 1,000 tokens, 24 ms
 * at 1M tokens) instead of walking `tokens_creator_newest_idx` and stopping after the page.
 */
const VISIBLE_CREATOR_TOKEN = `NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'token' AND x.address = t.address)
  AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'creator' AND x.address = $1)`;

const PROFILE_SQL = `SELECT
  EXISTS (SELECT 1 FROM excluded_addresses WHERE kind = 'creator' AND address = $1) AS excluded,
  (SELECT token_count FROM creators WHERE address = $1) AS token_count,
  (SELECT volume FROM creators WHERE address = $1) AS volume,
  h.hidden_count, h.hidden_volume
FROM (SELECT count(*)::int AS hidden_count, coalesce(sum(t.volume), 0) AS hidden_volume
      FROM excluded_addresses x JOIN tokens t ON t.address = x.address
      WHERE x.kind = 'token' AND t.creator = $1) h`;

/**
 * Aggregates of a creator's visible tokens: `token_count` and `volume` (wei, decimal string)
 * from `creators`, minus the creator's excluded tokens; zero for an address that launched
 * nothing and for an excluded creator (docs/api.md "Lists, search and exclusions"). Source: `creators`, `excluded_addresses`, `tokens`.
 */
export async function getCreatorAggregates(
  db: SqlReader,
  creator: string,
): Promise<{ tokenCount: number; volume: string }> {
  const result = await prepared<{
    excluded: boolean;
    token_count: number | null;
    volume: string | null;
    hidden_count: number;
    hidden_volume: string;
  }>(db, "qapi_creator_profile", PROFILE_SQL, [creator]);
  const row = result.rows[0];
  if (!row || row.excluded || row.token_count === null) return { tokenCount: 0, volume: "0" };
  const tokenCount = Math.max(0, row.token_count - row.hidden_count);
  const volume = BigInt(row.volume ?? "0") - BigInt(row.hidden_volume);
  return { tokenCount, volume: (volume > 0n ? volume : 0n).toString() };
}

/** Visible tokens of creator $1, newest first: the first page of `$2` rows (see `firstRows`). */
const CREATOR_TOKENS_FIRST_SQL = firstRows(
  `SELECT ${PAGE_COLUMNS} FROM ${TOKEN_FROM_SQL}
  WHERE t.creator = $1 AND ${VISIBLE_CREATOR_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$2",
  NEWEST_PAGE_ORDER,
);

/** Visible tokens of creator $1, newest first, after the keyset position ($2, $3): `$4` rows. */
const CREATOR_TOKENS_AFTER_SQL = firstRows(
  `SELECT ${PAGE_COLUMNS} FROM ${TOKEN_FROM_SQL}
  WHERE t.creator = $1 AND (t.created_block_number, t.created_log_index) < ($2::int8, $3::int4) AND ${VISIBLE_CREATOR_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$4",
  NEWEST_PAGE_ORDER,
);

/**
 * Visible tokens of `creator`, newest first (`tokens_creator_newest_idx`), after `after`, at
 * most `take` rows. Source: `tokens`, `excluded_addresses`.
 */
export async function listCreatorTokens(
  db: SqlReader,
  options: { creator: string; after: NewestPosition | null; take: number },
): Promise<TokenJsonRow[]> {
  return newestCreatorRows(db, options, {
    first: ["qapi_creator_tokens_first", CREATOR_TOKENS_FIRST_SQL],
    after: ["qapi_creator_tokens_after", CREATOR_TOKENS_AFTER_SQL],
  });
}

/**
 * Rows of one of a creator's newest-first statements: `first` (creator $1, take $2) without a
 * position, else `after` (creator $1, position ($2, $3), take $4); each a prepared [name, text].
 */
async function newestCreatorRows(
  db: SqlReader,
  options: { creator: string; after: NewestPosition | null; take: number },
  statements: { first: [string, string]; after: [string, string] },
): Promise<TokenJsonRow[]> {
  const { creator, after, take } = options;
  const result =
    after === null
      ? await prepared<TokenJsonRow>(db, ...statements.first, [creator, checkTake(take)])
      : await prepared<TokenJsonRow>(db, ...statements.after, [
          creator,
          after[0].toString(),
          after[1],
          checkTake(take),
        ]);
  return result.rows;
}

/** One earnings entry per token: the creator's curve fees and LP creator share, as wire JSON. */
const EARNINGS_ITEM = `json_build_object(
    'token', t.address,
    'payout_address', f.payout_address,
    'pending_payout_address', nullif(f.pending_payout_address, ''),
    'earned', coalesce(f.curve_creator, 0)::text,
    'claimed', coalesce(f.creator_claimed, 0)::text,
    'claimable', (coalesce(f.curve_creator, 0) - coalesce(f.creator_claimed, 0))::text,
    'lp', coalesce((SELECT json_agg(json_build_object('asset', a.asset, 'amount', a.lp_creator::text) ORDER BY a.asset)
                    FROM token_asset_fees a WHERE a.token_address = t.address AND a.lp_creator > 0), '[]'::json)
  )::text`;

const EARNINGS_COLUMNS = `t.created_block_number, t.created_log_index, ${EARNINGS_ITEM} AS item`;

/** Earnings of the visible tokens of creator $1, newest first: the first page of `$2` rows. */
const CREATOR_EARNINGS_FIRST_SQL = firstRows(
  `SELECT ${EARNINGS_COLUMNS} FROM tokens t LEFT JOIN token_fees f ON f.token_address = t.address
  WHERE t.creator = $1 AND ${VISIBLE_CREATOR_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$2",
  NEWEST_PAGE_ORDER,
);

/** Earnings of the visible tokens of creator $1, newest first, after ($2, $3): `$4` rows. */
const CREATOR_EARNINGS_AFTER_SQL = firstRows(
  `SELECT ${EARNINGS_COLUMNS} FROM tokens t LEFT JOIN token_fees f ON f.token_address = t.address
  WHERE t.creator = $1 AND (t.created_block_number, t.created_log_index) < ($2::int8, $3::int4) AND ${VISIBLE_CREATOR_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$4",
  NEWEST_PAGE_ORDER,
);

/**
 * Per visible token of `creator`, newest first, after `after` (at most `take` rows): the wire
 * earnings entry (`{token, payout_address, pending_payout_address, earned, claimed, claimable, lp}`,
 * wei / base units). Source: `tokens`, `token_fees`, `token_asset_fees`, `excluded_addresses`.
 */
export async function listCreatorEarnings(
  db: SqlReader,
  options: { creator: string; after: NewestPosition | null; take: number },
): Promise<TokenJsonRow[]> {
  return newestCreatorRows(db, options, {
    first: ["qapi_creator_earnings_first", CREATOR_EARNINGS_FIRST_SQL],
    after: ["qapi_creator_earnings_after", CREATOR_EARNINGS_AFTER_SQL],
  });
}

/** The earnings totals of an address (see {@link readCreatorEarningTotals}). */
export interface CreatorEarningTotals {
  /** Σ over the tokens it launched of curve creator fees earned − claimed (wei). */
  curveClaimable: string;
  /** Σ CreatorFeesClaimed of the tokens it launched (wei). */
  curveClaimed: string;
  /** Per asset, the LP fee vault's creator share accrued to it as recipient and not claimed. */
  lpClaimable: { asset: string; amount: string }[];
  /** Per asset, Σ CreatorLPFeesClaimed with it as recipient. */
  lpClaimed: { asset: string; amount: string }[];
}

const EARNING_TOTALS_SQL = `SELECT
  (SELECT (fees_earned - fees_claimed)::text FROM creators WHERE address = $1) AS curve_claimable,
  (SELECT fees_claimed::text FROM creators WHERE address = $1) AS curve_claimed,
  coalesce((SELECT json_agg(json_build_object('asset', asset, 'claimable', (earned - claimed)::text, 'claimed', claimed::text)
                    ORDER BY asset) FROM creator_lp_fees WHERE recipient = $1), '[]'::json) AS lp`;

/**
 * The earnings totals of `address`: curve fees of the tokens it launched (`creators`, one row;
 * every token, hidden ones included) and the LP creator share accrued to it as recipient
 * (`creator_lp_fees`, one row per asset: the LP fee vault keys creator claims by recipient).
 */
export async function readCreatorEarningTotals(
  db: SqlReader,
  address: string,
): Promise<CreatorEarningTotals> {
  const { rows } = await prepared<{
    curve_claimable: string | null;
    curve_claimed: string | null;
    lp: { asset: string; claimable: string; claimed: string }[];
  }>(db, "qapi_creator_earning_totals", EARNING_TOTALS_SQL, [address]);
  const row = rows[0]!;
  return {
    curveClaimable: row.curve_claimable ?? "0",
    curveClaimed: row.curve_claimed ?? "0",
    lpClaimable: row.lp
      .filter((l) => l.claimable !== "0")
      .map((l) => ({ asset: l.asset, amount: l.claimable })),
    lpClaimed: row.lp.filter((l) => l.claimed !== "0").map((l) => ({ asset: l.asset, amount: l.claimed })),
  };
}
