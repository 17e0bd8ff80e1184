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

/** The ETH/USD reference response of the spec. */
export interface EthUsdPrice {
  /** The answer with `decimals` fractional digits, exact (e.g. `"3012.45000000"`). */
  price: string;
  decimals: number;
  /** `updatedAt` of the round, Unix seconds. */
  updated_at: number;
  source: typeof ETH_USD_SOURCE;
  chain_id: number;
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
  return {
    ok: true,
    price: {
      price: formatFixed(round.answer, snapshot.decimals),
      decimals: snapshot.decimals,
      updated_at: Number(round.updatedAt),
      source: ETH_USD_SOURCE,
      chain_id: snapshot.chainId,
    },
  };
}
