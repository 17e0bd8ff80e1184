import type { EventPosition, PageOrder, PositionedRows } from "../common/route-helpers.js";
import { type Int8, prepared, type ReadDb } from "../db.js";
import type { ActivityItem } from "./activity-schemas.js";

// One page of a token's canonical decoded chain events. Each statement is a `LEFT JOIN LATERAL`
// from the token row, so one round trip tells an unknown token (no row) from a token without
// events (one all-null row). They use the `(token_address, block_number DESC, transaction_index
// DESC, log_index DESC, transaction_hash DESC)` index, forwards or backwards. `$1` token, keyset
// `$2..$5`, limit last.

const ACTIVITY_DESC_FIRST_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.event_name, r.decoded
  FROM chain_events r WHERE r.token_address = $1
  ORDER BY r.block_number DESC, r.transaction_index DESC, r.log_index DESC, r.transaction_hash DESC
  LIMIT $2) x ON true WHERE t.address = $1`;

const ACTIVITY_DESC_AFTER_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.event_name, r.decoded
  FROM chain_events r WHERE r.token_address = $1
    AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) < ($2::int8, $3::int4, $4::int4, $5::text)
  ORDER BY r.block_number DESC, r.transaction_index DESC, r.log_index DESC, r.transaction_hash DESC
  LIMIT $6) x ON true WHERE t.address = $1`;

const ACTIVITY_ASC_FIRST_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.event_name, r.decoded
  FROM chain_events r WHERE r.token_address = $1
  ORDER BY r.block_number ASC, r.transaction_index ASC, r.log_index ASC, r.transaction_hash ASC
  LIMIT $2) x ON true WHERE t.address = $1`;

const ACTIVITY_ASC_AFTER_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.event_name, r.decoded
  FROM chain_events r WHERE r.token_address = $1
    AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) > ($2::int8, $3::int4, $4::int4, $5::text)
  ORDER BY r.block_number ASC, r.transaction_index ASC, r.log_index ASC, r.transaction_hash ASC
  LIMIT $6) x ON true WHERE t.address = $1`;

interface ActivityRow {
  block_number: Int8 | null;
  transaction_index: number;
  log_index: number;
  transaction_hash: string;
  event_name: string;
  decoded: Record<string, unknown>;
}

/**
 * Canonical decoded chain events of `token` (every `chain_events` row whose `token_address` is
 * the token: the platform's events, the token's `Transfer`s, its pool's `Swap`s), ordered by
 * (block_number, transaction_index, log_index, transaction_hash) in `order`, strictly after
 * `after`, at most `take`. `null` when the token has no canonical launch.
 * Source: `tokens`, `chain_events`.
 */
export async function listActivity(
  db: ReadDb,
  options: { token: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<ActivityItem> | null> {
  const { token, order, after, take } = options;
  const result =
    after === null
      ? await prepared<ActivityRow>(
          db,
          `qapi_chain_events_${order}_first`,
          order === "desc" ? ACTIVITY_DESC_FIRST_SQL : ACTIVITY_ASC_FIRST_SQL,
          [token, take],
        )
      : await prepared<ActivityRow>(
          db,
          `qapi_chain_events_${order}_after`,
          order === "desc" ? ACTIVITY_DESC_AFTER_SQL : ACTIVITY_ASC_AFTER_SQL,
          [token, after[0].toString(), after[1], after[2], after[3], take],
        );
  if (result.rows.length === 0) return null;
  const rows = result.rows.filter((row) => row.block_number !== null);
  return {
    items: rows.map((row) => ({
      event_name: row.event_name,
      decoded: row.decoded,
      block_number: Number(row.block_number),
      transaction_index: row.transaction_index,
      transaction_hash: row.transaction_hash,
      log_index: row.log_index,
    })),
    positions: rows.map((row) => [
      BigInt(row.block_number as Int8),
      row.transaction_index,
      row.log_index,
      row.transaction_hash,
    ]),
  };
}
