import { formatFixed } from "@tmi/shared/codec";
import type { ErrorDetail } from "@tmi/shared/errors";
import type { FeedSnapshot } from "./feed-reader.js";

/**
 * The `source` of every ETH/USD answer: the platform's name for its Chainlink feed (the spec's
 * `oracle_eth_usd` is a neutral stand-in for it; docs/api.md "GET /api/v1/prices/eth-usd").
 */
export const ETH_USD_SOURCE = "chainlink_eth_usd";

/** Tolerated clock skew (s) before an `updatedAt` in the future is rejected. */
export const FUTURE_TOLERANCE_SECONDS = 300;

/** Fractional digits of every `price` answered: 8, what the platform's client requires. */
export const PRICE_DECIMALS = 8 as const;

/**
 * The ETH/USD reference response in the platform's shape (its running API and web client; the
 * spec's table is its docs' illustrative sample), plus the spec's `decimals` and `chain_id` and
 * `updated_at_unix` (docs/api.md "GET /api/v1/prices/eth-usd").
 */
export interface EthUsdPrice {
  /**
   * The answer with exactly {@link PRICE_DECIMALS} fractional digits (e.g. `"3012.45000000"`): exact
   * for a feed of 8 decimals or fewer, rounded down (floor) for a feed with more.
   */
  price: string;
  /** Always {@link PRICE_DECIMALS}: the fractional digits of `price`. */
  price_decimals: typeof PRICE_DECIMALS;
  /** `updatedAt` of the round, ISO 8601 UTC to the second (`2026-08-15T10:00:00Z`). */
  updated_at: string;
  /** The ETH/USD feed address the answer was read from (the configured `ORACLE_ETH_USD_ADDRESS`, lowercase). */
  feed: `0x${string}`;
  source: typeof ETH_USD_SOURCE;
  /** `ORACLE_ETH_USD_MAX_AGE`: the oldest answer served, seconds. */
  max_age_seconds: number;
  /** The spec's key: the fractional digits of `price` (same as `price_decimals`). */
  decimals: typeof PRICE_DECIMALS;
  /** The spec's key: the chain the feed was read on. */
  chain_id: number;
  /** `updatedAt` of the round, Unix seconds (the spec's integer `updated_at`). */
  updated_at_unix: number;
}

/**
 * `answer` (with `feedDecimals` fractional digits) as a decimal string of exactly
 * {@link PRICE_DECIMALS} fractional digits: padded when the feed has fewer, rounded toward
 * negative infinity (floor) when it has more. A positive answer is never rounded up, so the price
 * shown is never above the feed's.
 */
export function toPriceDecimals(answer: bigint, feedDecimals: number): string {
  const shift = feedDecimals - PRICE_DECIMALS;
  let scaled: bigint;
  if (shift <= 0) {
    scaled = answer * 10n ** BigInt(-shift);
  } else {
    const divisor = 10n ** BigInt(shift);
    scaled = answer / divisor;
    if (answer < 0n && answer % divisor !== 0n) scaled -= 1n;
  }
  return formatFixed(scaled, PRICE_DECIMALS);
}

/** Unix seconds as ISO 8601 UTC without fractional seconds (`2026-08-15T10:00:00Z`). */
export function isoSeconds(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Rules a snapshot must pass (docs/api.md). */
export interface EthUsdPolicy {
  /** `ORACLE_CHAIN_ID`. */
  chainId: number;
  /** `ORACLE_ETH_USD_MAX_AGE`, seconds. */
  maxAgeSeconds: number;
  /** `ORACLE_SEQUENCER_GRACE_PERIOD`, seconds. */
  sequencerGraceSeconds: number;
}

/** Result of {@link evaluateEthUsd}: the answer, or why there is none (each reason a `details` entry). */
export type EthUsdEvaluation = { ok: true; price: EthUsdPrice } | { ok: false; details: ErrorDetail[] };

/**
 * Decides whether a feed snapshot may be served, at wall-clock time `nowSeconds` (Unix seconds).
 * Reasons, each a `details` entry `{field, reason}` (field names are stable, reasons are text):
 * - `chain_id`: the RPC's chain id is not `ORACLE_CHAIN_ID` (nothing else is checked then);
 * - `sequencer`: the sequencer uptime feed reports the sequencer down (answer 1), an unknown
 *   status, an invalid round (`startedAt` 0), or up for less than the grace period;
 * - `answer`: the answer is ≤ 0;
 * - `round`: the round is incomplete (`updatedAt` 0, or `answeredInRound` < `roundId`);
 * - `updated_at`: `now − updatedAt` > max age, or `updatedAt` is in the future (beyond
 *   {@link FUTURE_TOLERANCE_SECONDS} of clock skew).
 * Every failing rule is listed, not only the first.
 */
export function evaluateEthUsd(
  snapshot: FeedSnapshot,
  policy: EthUsdPolicy,
  nowSeconds: number,
): EthUsdEvaluation {
  if (snapshot.chainId !== policy.chainId) {
    return {
      ok: false,
      details: [
        {
          field: "chain_id",
          reason: `the RPC serves chain ${snapshot.chainId}, not ORACLE_CHAIN_ID ${policy.chainId}`,
        },
      ],
    };
  }
  const now = BigInt(Math.floor(nowSeconds));
  const details: ErrorDetail[] = [];

  const seq = snapshot.sequencer;
  if (seq) {
    if (seq.answer === 1n) {
      details.push({ field: "sequencer", reason: `the L2 sequencer is down (since ${seq.startedAt})` });
    } else if (seq.answer !== 0n) {
      details.push({
        field: "sequencer",
        reason: `the sequencer uptime feed reports unknown status ${seq.answer}`,
      });
    } else if (seq.startedAt === 0n) {
      details.push({
        field: "sequencer",
        reason: "the sequencer uptime feed round is invalid (startedAt is 0)",
      });
    } else if (now - seq.startedAt < BigInt(policy.sequencerGraceSeconds)) {
      details.push({
        field: "sequencer",
        reason: `the L2 sequencer came back up ${now - seq.startedAt} s ago, within the ${policy.sequencerGraceSeconds} s grace period`,
      });
    }
  }

  const round = snapshot.round;
  if (round.answer <= 0n) {
    details.push({ field: "answer", reason: `the answer ${round.answer} is not positive` });
  }
  if (round.updatedAt === 0n) {
    details.push({ field: "round", reason: `round ${round.roundId} is incomplete (updatedAt is 0)` });
  } else if (round.answeredInRound < round.roundId) {
    details.push({
      field: "round",
      reason: `round ${round.roundId} is incomplete (answeredInRound ${round.answeredInRound} < roundId)`,
    });
  }
  if (round.updatedAt !== 0n) {
    const age = now - round.updatedAt;
    if (age > BigInt(policy.maxAgeSeconds)) {
      details.push({
        field: "updated_at",
        reason: `the answer is ${age} s old, more than ORACLE_ETH_USD_MAX_AGE ${policy.maxAgeSeconds} s`,
      });
    } else if (-age > BigInt(FUTURE_TOLERANCE_SECONDS)) {
      details.push({
        field: "updated_at",
        reason: `updatedAt ${round.updatedAt} is ${-age} s in the future`,
      });
    }
  }

  if (details.length > 0) return { ok: false, details };
  const updatedAt = Number(round.updatedAt);
  return {
    ok: true,
    price: {
      price: toPriceDecimals(round.answer, snapshot.decimals),
      price_decimals: PRICE_DECIMALS,
      updated_at: isoSeconds(updatedAt),
      feed: snapshot.feed,
      source: ETH_USD_SOURCE,
      max_age_seconds: policy.maxAgeSeconds,
      decimals: PRICE_DECIMALS,
      chain_id: snapshot.chainId,
      updated_at_unix: updatedAt,
    },
  };
}
