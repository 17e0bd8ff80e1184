import { TOKEN_METADATA_JOIN_SQL } from "@tmi/shared/token";
import { type Int8, prepared, type ReadDb } from "../db.js";
import { limitLiteral, TOKEN_ITEM_JSON, VISIBLE_TOKEN } from "../tokens/token-queries.js";

/** Keyset position in a trending snapshot: (snapshot id, rank). */
export type TrendingPosition = [bigint, number];

/** A visible token of a trending snapshot: its rank and its wire JSON (`TOKEN_ITEM_JSON`). */
export interface TrendingRow {
  snapshot_id: Int8;
  rank: number | null;
  item: string | null;
}

/**
 * The first page of the latest snapshot: ranks above $1, at most `take` (a constant `LIMIT`, see
 * `limitLiteral`); one row with null rank when the page is empty.
 */
const latestSql = (take: number) => `SELECT s.id AS snapshot_id, x.rank, x.item
  FROM (SELECT id FROM trending_snapshots ORDER BY id DESC LIMIT 1) s
  LEFT JOIN LATERAL (
    SELECT e.rank, ${TOKEN_ITEM_JSON} AS item
    FROM trending_entries e JOIN tokens t ON t.address = e.token_address
      ${TOKEN_METADATA_JOIN_SQL}
    WHERE e.snapshot_id = s.id AND e.rank > $1 AND ${VISIBLE_TOKEN}
    ORDER BY e.rank LIMIT ${limitLiteral(take)}) x ON true`;

/** A further page of snapshot $2: ranks above $1, at most `take` (no row when the snapshot is gone). */
const atSql = (take: number) => `SELECT s.id AS snapshot_id, x.rank, x.item
  FROM (SELECT id FROM trending_snapshots WHERE id = $2) s
  LEFT JOIN LATERAL (
    SELECT e.rank, ${TOKEN_ITEM_JSON} AS item
    FROM trending_entries e JOIN tokens t ON t.address = e.token_address
      ${TOKEN_METADATA_JOIN_SQL}
    WHERE e.snapshot_id = s.id AND e.rank > $1 AND ${VISIBLE_TOKEN}
    ORDER BY e.rank LIMIT ${limitLiteral(take)}) x ON true`;

/**
 * Visible tokens of a trending snapshot in rank order (docs/api.md "Trending": window volume, then window
 * trade count, then window unique traders, then address, as ranked by the indexer), after rank
 * `after[1]` of snapshot `after[0]`, or from the top of the latest snapshot when `after` is null.
 * Returns `snapshotId: null` when there is no snapshot yet (or the cursor's snapshot was pruned).
 * Source: `trending_snapshots`, `trending_entries`, `tokens`, `excluded_addresses`.
 */
export async function listTrending(
  db: ReadDb,
  options: { after: TrendingPosition | null; take: number },
): Promise<{ snapshotId: bigint | null; rows: { rank: number; item: string }[] }> {
  const result =
    options.after === null
      ? await prepared<TrendingRow>(db, `qapi_trending_latest_${options.take}`, latestSql(options.take), [0])
      : await prepared<TrendingRow>(db, `qapi_trending_at_${options.take}`, atSql(options.take), [
          options.after[1],
          options.after[0].toString(),
        ]);
  const first = result.rows[0];
  if (!first) return { snapshotId: null, rows: [] };
  const rows: { rank: number; item: string }[] = [];
  for (const row of result.rows)
    if (row.rank !== null && row.item !== null) rows.push({ rank: row.rank, item: row.item });
  return { snapshotId: BigInt(first.snapshot_id), rows };
}
