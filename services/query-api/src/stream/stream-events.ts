/**
 * Event model of the live stream (`GET /api/v1/stream`): names, positions and SSE ids.
 *
 * Ids (the SSE `id:` field, sent back by clients as `Last-Event-ID`):
 * - data events `<block>-<log_index>-<hash8>` (`token_created`, `trade`, `graduated`; hash8 = first
 *   8 hex digits of the block hash, so that an id of an orphaned block never equals one of its
 *   replacement), candles `<block>-<log_index>-<hash8>-<interval>` (log index of the last trade of the
 *   batch in that bucket);
 * - markers `<block>-reorg-<to_block>` (a reorg rolled back `block`..`to_block`), the candle
 *   corrections that follow it `<block>-reorg-<to_block>-<interval>-<bucket>-<token8>`, and
 *   `<block>-reset`: "resume from the start of `block`".
 * Within one chain branch ids increase with (block, log_index, kind); a `reorg` moves the position back.
 */

import { CANDLE_INTERVALS, type CandleInterval, type StreamPosition } from "@tmi/shared/market";

/** Events a client can subscribe to with `events=`. */
export const DATA_EVENT_NAMES = [
  "token_created",
  "trade",
  "graduated",
  "candle",
  "fees_claimed",
  "distribution_published",
  "reward_claimed",
] as const;
export type DataEventName = (typeof DATA_EVENT_NAMES)[number];
/**
 * The events of a subscription without `events=`: the market's four. The fee economy's
 * (`fees_claimed`, `distribution_published`, `reward_claimed`) are sent only when named, so that
 * clients written before them see the stream they knew.
 */
export const DEFAULT_DATA_EVENT_NAMES: readonly DataEventName[] = [
  "token_created",
  "trade",
  "graduated",
  "candle",
];
/** Control events, always delivered: `reorg` (rolled-back range) and `reset` (refetch state). */
export type ControlEventName = "reorg" | "reset";
export type StreamEventName = DataEventName | ControlEventName;

/** One event produced for the stream, before it gets its process-local sequence number. */
export interface StreamEventData {
  name: StreamEventName;
  id: string;
  position: StreamPosition;
  /** Token the event is about (filter key); null for control events. */
  token: string | null;
  /** Interval of a `candle` event. */
  interval: CandleInterval | null;
  /** JSON payload (snake_case, amounts as decimal strings). */
  data: Record<string, unknown>;
}

/** First 8 hex digits of a block hash (`00000000` when unknown). */
export function hash8(hash: string | null | undefined): string {
  if (!hash || hash.length < 10) return "00000000";
  return hash.slice(2, 10).toLowerCase();
}

/** Id of a data event. */
export function dataEventId(
  block: bigint,
  logIndex: number,
  blockHash: string | null | undefined,
  interval?: CandleInterval,
): string {
  return `${block}-${logIndex}-${hash8(blockHash)}${interval ? `-${interval}` : ""}`;
}

/** Sub-position of a candle event of `interval` (after the trade itself). */
export function candleSub(interval: CandleInterval): number {
  return 1 + CANDLE_INTERVALS.indexOf(interval);
}

/** A `Last-Event-ID` understood by the server. */
export type ParsedEventId =
  | { kind: "data"; position: StreamPosition; hash8: string }
  | { kind: "marker"; position: StreamPosition };

const INTERVAL_ALTERNATIVES = CANDLE_INTERVALS.join("|");
const DATA_ID = new RegExp(`^(\\d{1,19})-(\\d{1,9})-([0-9a-f]{8})(?:-(${INTERVAL_ALTERNATIVES}))?$`);
const MARKER_ID = new RegExp(
  `^(\\d{1,19})-(?:reorg-\\d{1,19}(?:-(?:${INTERVAL_ALTERNATIVES})-\\d{1,19}-[0-9a-f]{8})?|reset)$`,
);

/** Parses a `Last-Event-ID`; null when it is not an id this server issues. */
export function parseEventId(id: string): ParsedEventId | null {
  const data = DATA_ID.exec(id);
  if (data) {
    const interval = data[4] as CandleInterval | undefined;
    return {
      kind: "data",
      position: {
        block: BigInt(data[1]!),
        logIndex: Number(data[2]),
        sub: interval ? candleSub(interval) : 0,
      },
      hash8: data[3]!,
    };
  }
  const marker = MARKER_ID.exec(id);
  if (marker) return { kind: "marker", position: { block: BigInt(marker[1]!), logIndex: -1, sub: 0 } };
  return null;
}

/** The SSE frame of an event: `id`, `event` and one `data` line (JSON has no raw newlines). */
export function sseFrame(event: Pick<StreamEventData, "id" | "name" | "data">): string {
  return `id: ${event.id}\nevent: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Why a client got a `reset` event. */
export type ResetReason = "unknown_id" | "too_old" | "orphaned" | "backlog";

/** The `reorg` event of blocks `from`..`to` rolled back: placed before every data event of `from`. */
export function reorgEvent(reorg: { from: bigint; to: bigint }): StreamEventData {
  const depth = reorg.to - reorg.from + 1n;
  return {
    name: "reorg",
    id: `${reorg.from}-reorg-${reorg.to}`,
    position: { block: reorg.from, logIndex: -1, sub: 0 },
    token: null,
    interval: null,
    data: { from_block: Number(reorg.from), to_block: Number(reorg.to), depth: Number(depth) },
  };
}

/**
 * The `reset` event telling a client to reload (`reason`), placed after `highWater`, the last
 * dispatched block (null before the first checkpoint).
 */
export function resetEvent(reason: ResetReason, highWater: bigint | null): StreamEventData {
  const next = (highWater ?? -1n) + 1n;
  return {
    name: "reset",
    id: `${next}-reset`,
    position: { block: next, logIndex: -1, sub: 0 },
    token: null,
    interval: null,
    data: { reason, indexed_block: highWater === null ? null : Number(highWater) },
  };
}
