import { z } from "zod";
import type { ReadDb } from "../../db.js";

/**
 * USD values from the indexed ETH/USD aggregator answers (`eth_usd_answers`, written by the
 * indexer from the feed's `AnswerUpdated` events). query-api never calls the chain: a value "at
 * block B" uses the latest positive answer indexed at or before that position.
 */

/** Decimals of the ETH/USD answer (Chainlink ETH/USD feeds and the devnet aggregator: 8). */
export const DEFAULT_ETH_USD_DECIMALS = 8;

/** One indexed answer: `answer` is USD per ETH with `decimals` fractional digits. */
export interface EthUsdAnswer {
  answer: bigint;
  roundId: bigint;
  /** Round time (Unix seconds) reported by the feed. */
  updatedAt: number;
  blockNumber: bigint;
  logIndex: number;
}

/** The latest positive answer indexed (all committed rows are at or below the checkpoint); null when none. */
export async function readLatestEthUsd(db: ReadDb): Promise<EthUsdAnswer | null> {
  const { rows } = await db.query<{
    answer: string;
    round_id: string;
    updated_at: string;
    block_number: string;
    log_index: number;
  }>(
    `SELECT answer::text, round_id::text, updated_at::text, block_number::text, log_index
       FROM eth_usd_answers WHERE answer > 0 ORDER BY block_number DESC, log_index DESC LIMIT 1`,
  );
  const row = rows[0];
  if (!row) return null;
  return {
    answer: BigInt(row.answer),
    roundId: BigInt(row.round_id),
    updatedAt: Number(row.updated_at),
    blockNumber: BigInt(row.block_number),
    logIndex: row.log_index,
  };
}

/** Key of a chain position in the map returned by {@link readEthUsdAt}. */
export function positionKey(blockNumber: bigint | number | string, logIndex: number): string {
  return `${blockNumber}:${logIndex}`;
}

/**
 * The answer in force at each position (the latest positive answer at (block, log index) ≤ the
 * position), in one query (a backward primary-key probe per position). Positions without an earlier
 * answer are absent from the map. Keys: {@link positionKey}.
 */
export async function readEthUsdAt(
  db: ReadDb,
  positions: readonly { blockNumber: bigint | number | string; logIndex: number }[],
): Promise<Map<string, bigint>> {
  const result = new Map<string, bigint>();
  if (positions.length === 0) return result;
  const { rows } = await db.query<{ b: string; l: number; answer: string | null }>(
    `SELECT p.b::text AS b, p.l,
            (SELECT a.answer::text FROM eth_usd_answers a
              WHERE (a.block_number, a.log_index) <= (p.b, p.l) AND a.answer > 0
              ORDER BY a.block_number DESC, a.log_index DESC LIMIT 1) AS answer
       FROM unnest($1::bigint[], $2::int[]) AS p(b, l)`,
    [positions.map((p) => p.blockNumber.toString()), positions.map((p) => p.logIndex)],
  );
  for (const row of rows) if (row.answer !== null) result.set(positionKey(row.b, row.l), BigInt(row.answer));
  return result;
}

/**
 * Converts a wei amount to USD, exactly: `wei × answer / 10^(18 + decimals)` as a decimal string
 * without rounding (trailing fractional zeros trimmed; `"0"` for zero). Null when either input is null.
 * Works for any wei-denominated value: amounts, and prices in wei per whole token (→ USD per whole token).
 */
export function weiToUsd(
  wei: bigint | null | undefined,
  answer: bigint | null | undefined,
  decimals = DEFAULT_ETH_USD_DECIMALS,
): string | null {
  if (wei === null || wei === undefined || answer === null || answer === undefined) return null;
  const scale = 18 + decimals;
  const product = wei * answer;
  const negative = product < 0n;
  const digits = (negative ? -product : product).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** A USD value on the wire: exact decimal string, no rounding, no exponent (≤ 26 fractional digits). */
const usdValue = z
  .string()
  .regex(/^[0-9]+(\.[0-9]*[1-9])?$/)
  .meta({
    description:
      "USD, exact decimal string: wei × answer / 10^(18 + 8), not rounded, trailing fractional zeros trimmed, no exponent",
  });

/** `usd` object of token list items and detail. */
export const tokenUsdSchema = z
  .object({
    price: usdValue
      .nullable()
      .describe("USD per whole token (current_price × ETH/USD); null when current_price is null"),
    fully_diluted_value: usdValue
      .nullable()
      .describe("USD (fully_diluted_value × ETH/USD); null when fully_diluted_value is null"),
    volume: usdValue.describe("USD (volume × the latest indexed ETH/USD answer)"),
  })
  .meta({ id: "TokenUsd" })
  .nullable()
  .describe(
    "USD values at the latest indexed ETH/USD answer (exact decimal strings); null when no answer is indexed yet",
  );

/**
 * The `usd` object of a token from its wei values (`current_price`, `fully_diluted_value`,
 * `volume`) and the latest answer ({@link readLatestEthUsd}); null when there is no answer.
 */
export function tokenUsd(
  token: { currentPrice: bigint | null; fullyDilutedValue: bigint | null; volume: bigint },
  latest: Pick<EthUsdAnswer, "answer"> | null,
  decimals = DEFAULT_ETH_USD_DECIMALS,
): z.infer<typeof tokenUsdSchema> {
  if (!latest) return null;
  return {
    price: weiToUsd(token.currentPrice, latest.answer, decimals),
    fully_diluted_value: weiToUsd(token.fullyDilutedValue, latest.answer, decimals),
    volume: weiToUsd(token.volume, latest.answer, decimals) ?? "0",
  };
}

/** A per-process cache of {@link readLatestEthUsd} (default 250 ms), so that list pages do not query it per request. */
export function createLatestEthUsdCache(db: ReadDb, ttlMs = 250): { get(): Promise<EthUsdAnswer | null> } {
  let value: EthUsdAnswer | null = null;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<EthUsdAnswer | null> | undefined;
  return {
    get() {
      if (performance.now() - fetchedAt < ttlMs) return Promise.resolve(value);
      inflight ??= (async () => {
        const started = performance.now();
        try {
          value = await readLatestEthUsd(db);
          fetchedAt = started;
          return value;
        } finally {
          inflight = undefined;
        }
      })();
      return inflight;
    },
  };
}

/** `reserve_amount_usd` of a trade: decimal string in USD, null when no answer precedes the trade. */
export const reserveAmountUsdSchema = usdValue
  .nullable()
  .describe(
    "reserve_amount × the ETH/USD answer in force at the trade (USD); null when none is indexed before it",
  );

/**
 * Adds `usd` to wire token items (list items or detail: anything with `metrics.current_price`,
 * `metrics.fully_diluted_value`, `metrics.volume` as decimal strings), with one latest answer
 * (pass `await cache.get()` of {@link createLatestEthUsdCache}).
 */
export function withTokenUsd<
  T extends { metrics: { current_price: string | null; fully_diluted_value: string | null; volume: string } },
>(
  items: readonly T[],
  latest: Pick<EthUsdAnswer, "answer"> | null,
  decimals = DEFAULT_ETH_USD_DECIMALS,
): (T & { usd: z.infer<typeof tokenUsdSchema> })[] {
  return items.map((item) => ({
    ...item,
    usd: tokenUsd(
      {
        currentPrice: item.metrics.current_price === null ? null : BigInt(item.metrics.current_price),
        fullyDilutedValue:
          item.metrics.fully_diluted_value === null ? null : BigInt(item.metrics.fully_diluted_value),
        volume: BigInt(item.metrics.volume),
      },
      latest,
      decimals,
    ),
  }));
}

/**
 * Adds `reserve_amount_usd` to wire trades (`reserve_amount`, `block_number`, `log_index`), with
 * one query for the whole page ({@link readEthUsdAt}).
 */
export async function withTradeUsd<
  T extends { reserve_amount: string; block_number: number; log_index: number },
>(
  db: ReadDb,
  trades: readonly T[],
  decimals = DEFAULT_ETH_USD_DECIMALS,
): Promise<(T & { reserve_amount_usd: string | null })[]> {
  const answers = await readEthUsdAt(
    db,
    trades.map((t) => ({ blockNumber: t.block_number, logIndex: t.log_index })),
  );
  return trades.map((t) => ({
    ...t,
    reserve_amount_usd: weiToUsd(
      BigInt(t.reserve_amount),
      answers.get(positionKey(t.block_number, t.log_index)) ?? null,
      decimals,
    ),
  }));
}
