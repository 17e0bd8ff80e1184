/**
 * Rule: the NOTIFY with which the indexer announces every committed range and reorg, and its
 * payload; query-api's stream listens to it.
 */

/** PostgreSQL NOTIFY channel. */
export const INDEXED_CHANNEL = "tmi_indexed";

/**
 * Payload of {@link INDEXED_CHANNEL} (JSON): the committed block range, and for a reorg the
 * orphaned range that was undone. Delivered when the transaction commits.
 */
export interface IndexedNotification {
  from_block: number;
  to_block: number;
  reorg?: { from_block: number; to_block: number };
}

/** The JSON text of an {@link IndexedNotification}. */
export function formatIndexedNotification(n: IndexedNotification): string {
  return JSON.stringify(n);
}

const isBlock = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;

/** Parses a {@link INDEXED_CHANNEL} payload; null when it is not one (unknown shape or not JSON). */
export function parseIndexedNotification(payload: string): IndexedNotification | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  if (!isBlock(v.from_block) || !isBlock(v.to_block)) return null;
  const out: IndexedNotification = { from_block: v.from_block, to_block: v.to_block };
  if (v.reorg !== undefined) {
    const r = v.reorg as Record<string, unknown> | null;
    if (typeof r !== "object" || r === null || !isBlock(r.from_block) || !isBlock(r.to_block)) return null;
    out.reorg = { from_block: r.from_block, to_block: r.to_block };
  }
  return out;
}
