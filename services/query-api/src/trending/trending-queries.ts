import { type Int8, prepared, type ReadDb } from "../db.js";
import { TOKEN_ITEM_JSON, VISIBLE_TOKEN } from "../tokens/token-queries.js";

/** Keyset position in a trending snapshot: (snapshot id, rank). */
export type TrendingPosition = [bigint, number];

/** A visible token of a trending snapshot: its rank and its wire JSON (`TOKEN_ITEM_JSON`). */
export interface TrendingRow {
  snapshot_id: Int8;
  rank: number | null;
  item: string | null;
}

/** The first page of the latest snapshot: ranks above $1, at most $2 (one row with null rank when the page is empty). */
const LATEST_SQL = `SELECT s.id AS snapshot_id, x.rank, x.item
  FROM (SELECT id FROM trending_snapshots ORDER BY id DESC LIMIT 1) s
  LEFT JOIN LATERAL (
    SELECT e.rank, ${TOKEN_ITEM_JSON} AS item
    FROM trending_entries e JOIN tokens t ON t.address = e.token_address
      LEFT JOIN metadata_drafts m ON m.token_address = t.address AND m.status = 'finalized'
    WHERE e.snapshot_id = s.id AND e.rank > $1 AND ${VISIBLE_TOKEN}
    ORDER BY e.rank LIMIT $2) x ON true`;

/** A further page of snapshot $3: ranks above $1, at most $2 (no row when the snapshot is gone). */
const AT_SQL = `SELECT s.id AS snapshot_id, x.rank, x.item
  FROM (SELECT id FROM trending_snapshots WHERE id = $3) s
  LEFT JOIN LATERAL (
    SELECT e.rank, ${TOKEN_ITEM_JSON} AS item
    FROM trending_entries e JOIN tokens t ON t.address = e.token_address
      LEFT JOIN metadata_drafts m ON m.token_address = t.address AND m.status = 'finalized'
    WHERE e.snapshot_id = s.id AND e.rank > $1 AND ${VISIBLE_TOKEN}
    ORDER BY e.rank LIMIT $2) x ON true`;

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
      ? await prepared<TrendingRow>(db, "qapi_trending_latest", LATEST_SQL, [0, options.take])
      : await prepared<TrendingRow>(db, "qapi_trending_at", AT_SQL, [
          options.after[1],
          options.take,
          options.after[0].toString(),
        ]);
  const first = result.rows[0];
  if (!first) return { snapshotId: null, rows: [] };
  const rows: { rank: number; item: string }[] = [];
  for (const row of result.rows)
    if (row.rank !== null && row.item !== null) rows.push({ rank: row.rank, item: row.item });
  return { snapshotId: BigInt(first.snapshot_id), rows };
}
