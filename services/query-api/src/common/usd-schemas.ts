import { z } from "zod";

/**
 * Wire schemas of the USD values (docs/api.md "USD values"): wei values × the indexed ETH/USD
 * aggregator answers (`eth_usd_answers`, written by the indexer from the feed's `AnswerUpdated`
 * events). query-api never calls the chain; the values are computed in SQL (`usd-sql.ts`).
 */

/** Decimals of the ETH/USD answer (Chainlink ETH/USD feeds and the devnet aggregator: 8). */
export const DEFAULT_ETH_USD_DECIMALS = 8;

/** A USD value on the wire: exact decimal string, no rounding, no exponent (≤ 26 fractional digits). */
export const usdValue = z
  .string()
  .regex(/^[0-9]+(\.[0-9]*[1-9])?$/)
  .meta({
    description:
      "USD, exact decimal string: wei × answer / 10^(18 + 8), not rounded, trailing fractional zeros trimmed, no exponent",
  });

/** `usd` object of tokens. */
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

/** `reserve_amount_usd` of a trade: decimal string in USD, null when no answer precedes the trade. */
export const reserveAmountUsdSchema = usdValue
  .nullable()
  .describe(
    "reserve_amount × the ETH/USD answer in force at the trade (USD); null when none is indexed before it",
  );
