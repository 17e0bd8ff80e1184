import { CHAIN_POSITION_KEY, type KeysetSource } from "../../common/keyset-page.js";
import type { Int8 } from "../../db.js";
import type { ActivityItem } from "./activity-schemas.js";

/**
 * The canonical decoded chain events of one token (`$1`, lowercase): every `chain_events` row
 * whose `token_address` is the token (the platform's events, the token's `Transfer`s, its pool's
 * `Swap`s), keyset-paged by chain position over `chain_events_token_position_idx`, forwards or
 * backwards; a page of an unknown token is `null`. Source: `tokens`, `chain_events`.
 */
export const TOKEN_ACTIVITY: KeysetSource = {
  name: "chain_events",
  select: "r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.event_name, r.decoded",
  from: "chain_events r",
  where: "r.token_address = $1",
  key: CHAIN_POSITION_KEY,
  parent: { from: "tokens t", where: "t.address = $1" },
};

/** A row of an activity page ({@link TOKEN_ACTIVITY}). */
export interface ActivityRow extends Record<string, unknown> {
  block_number: Int8;
  transaction_index: number;
  log_index: number;
  transaction_hash: string;
  event_name: string;
  decoded: Record<string, unknown>;
}

/** The wire Activity item of a row. */
export function activityOf(row: ActivityRow): ActivityItem {
  return {
    event_name: row.event_name,
    decoded: row.decoded,
    block_number: Number(row.block_number),
    transaction_index: row.transaction_index,
    transaction_hash: row.transaction_hash,
    log_index: row.log_index,
  };
}
