/**
 * Facts the indexer (writer) and query-api (reader) share about the read models: candle intervals
 * and their UTC bucketing, chain positions and their order, the NOTIFY channel and payload of a
 * committed range, and the value sets of the read-model columns.
 */

/** Candle intervals, shortest first. */
export const CANDLE_INTERVALS = ["1m", "5m", "15m", "1h", "4h", "1d", "1w"] as const;

/** A candle interval (`candles.interval`). */
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

/** Length of each interval in seconds. */
export const INTERVAL_SECONDS: Readonly<Record<CandleInterval, number>> = Object.freeze({
  "1m": 60,
  "5m": 300,
  "15m": 900,
  "1h": 3_600,
  "4h": 14_400,
  "1d": 86_400,
  "1w": 604_800,
});

/** 1970-01-05 00:00 UTC, the first Monday after the Unix epoch: origin of `1w` buckets. */
export const WEEK_ORIGIN = 345_600;

/**
 * Start (Unix seconds) of the UTC bucket of an interval of `seconds` that holds `timestamp`
 * (Unix seconds). Weeks start Monday 00:00 UTC; every other interval divides the day evenly.
 */
export function bucketStart(timestamp: number, seconds: number): number {
  const origin = seconds === 604_800 ? WEEK_ORIGIN : 0;
  return Math.floor((timestamp - origin) / seconds) * seconds + origin;
}

/**
 * SQL expression of {@link bucketStart} over bigint expressions `ts` (Unix seconds) and `size`
 * (interval seconds); floors like the function for timestamps before the origin too.
 */
export function bucketSql(ts: string, size: string): string {
  return `(CASE WHEN ${size} = 604800 THEN floor((${ts} - ${WEEK_ORIGIN})::numeric / 604800)::bigint * 604800 + ${WEEK_ORIGIN} ELSE floor((${ts})::numeric / ${size})::bigint * ${size} END)`;
}

/** Where an event sits in the chain; trades and activity are ordered by these fields. */
export interface ChainPosition {
  blockNumber: number;
  transactionIndex: number;
  logIndex: number;
  transactionHash: string;
}

/**
 * Chain order of two positions (block number, transaction index, log index, transaction hash):
 * negative when `a` comes first. The API's newest-first order is the reverse.
 */
export function comparePositions(a: ChainPosition, b: ChainPosition): number {
  return (
    a.blockNumber - b.blockNumber ||
    a.transactionIndex - b.transactionIndex ||
    a.logIndex - b.logIndex ||
    (a.transactionHash < b.transactionHash ? -1 : a.transactionHash > b.transactionHash ? 1 : 0)
  );
}

/** PostgreSQL NOTIFY channel on which the indexer announces every committed range and reorg. */
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

/**
 * Parses a {@link INDEXED_CHANNEL} payload; null when it is not one (unknown shape or not JSON).
 */
export function parseIndexedNotification(payload: string): IndexedNotification | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const isBlock = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
  if (!isBlock(v.from_block) || !isBlock(v.to_block)) return null;
  const out: IndexedNotification = { from_block: v.from_block, to_block: v.to_block };
  if (v.reorg !== undefined) {
    const r = v.reorg as Record<string, unknown> | null;
    if (typeof r !== "object" || r === null || !isBlock(r.from_block) || !isBlock(r.to_block)) return null;
    out.reorg = { from_block: r.from_block, to_block: r.to_block };
  }
  return out;
}

/** `trades.source` / `tokens.last_trade_source`: the curve, or the token's canonical Uniswap V3 pool. */
export type TradeSource = "curve" | "uniswap_v3";

/** `trades.side`. */
export type TradeSide = "buy" | "sell";

/** `tokens.state`; the API's `curve.lifecycle` is `active` for `curve`. */
export type TokenState = "curve" | "graduated";

/** The API's `curve.lifecycle` of a `tokens.state`. */
export function lifecycleOf(state: TokenState): "active" | "graduated" {
  return state === "graduated" ? "graduated" : "active";
}

/** `progress_bps` = floor(sold_supply × 10000 / graduation_threshold), at most 10000 (0 without a threshold). */
export function progressBps(soldSupply: bigint, graduationThreshold: bigint): number {
  if (graduationThreshold <= 0n) return 0;
  const bps = (soldSupply * 10_000n) / graduationThreshold;
  return Number(bps > 10_000n ? 10_000n : bps < 0n ? 0n : bps);
}

/**
 * `pricing.source`: `indexed_v3_market` when the token is graduated and its latest indexed trade
 * is a pool swap, else `indexed_v3_curve`.
 */
export function pricingSource(
  state: TokenState,
  lastTradeSource: TradeSource | null,
): "indexed_v3_curve" | "indexed_v3_market" {
  return state === "graduated" && lastTradeSource === "uniswap_v3" ? "indexed_v3_market" : "indexed_v3_curve";
}

/** `fully_diluted_value` = floor(price × initial_supply / 10^18) in wei; null without a price. */
export function fullyDilutedValue(price: bigint | null, initialSupply: bigint): bigint | null {
  return price === null ? null : (price * initialSupply) / 10n ** 18n;
}
