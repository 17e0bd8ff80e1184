import { TOKEN_FROM_SQL } from "@tmi/shared/token";
import { prepared, type SqlReader } from "../db.js";
import {
  checkTake,
  firstRows,
  NEWEST_PAGE_ORDER,
  type NewestPosition,
  PAGE_COLUMNS,
  type TokenJsonRow,
  VISIBLE_TOKEN,
} from "../tokens/token-queries.js";

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
  WHERE t.creator = $1 AND ${VISIBLE_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$2",
  NEWEST_PAGE_ORDER,
);

/** Visible tokens of creator $1, newest first, after the keyset position ($2, $3): `$4` rows. */
const CREATOR_TOKENS_AFTER_SQL = firstRows(
  `SELECT ${PAGE_COLUMNS} FROM ${TOKEN_FROM_SQL}
  WHERE t.creator = $1 AND (t.created_block_number, t.created_log_index) < ($2::int8, $3::int4) AND ${VISIBLE_TOKEN}
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
  const { creator, after, take } = options;
  const result =
    after === null
      ? await prepared<TokenJsonRow>(db, "qapi_creator_tokens_first", CREATOR_TOKENS_FIRST_SQL, [
          creator,
          checkTake(take),
        ])
      : await prepared<TokenJsonRow>(db, "qapi_creator_tokens_after", CREATOR_TOKENS_AFTER_SQL, [
          creator,
          after[0].toString(),
          after[1],
          checkTake(take),
        ]);
  return result.rows;
}
