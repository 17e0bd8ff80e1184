import type { Lifecycle } from "./lifecycle.js";
import type { TradeSource } from "./trade-fields.js";

/**
 * Rule: `pricing.source` is `indexed_v3_market` when the token has graduated and its latest
 * indexed trade is a swap of its canonical pool, else `indexed_v3_curve`. Served from
 * `tokens.lifecycle` and `tokens.last_trade_source` by {@link pricingSourceSql}.
 */

/** The values of `pricing.source`. */
export type PricingSource = "indexed_v3_curve" | "indexed_v3_market";

/** `pricing.source` of a token. */
export function pricingSource(lifecycle: Lifecycle, lastTradeSource: TradeSource | null): PricingSource {
  return lifecycle === "graduated" && lastTradeSource === "uniswap_v3"
    ? "indexed_v3_market"
    : "indexed_v3_curve";
}

/** SQL form of {@link pricingSource} over `text` expressions (a `text`). */
export function pricingSourceSql(lifecycle: string, lastTradeSource: string): string {
  return `(CASE WHEN ${lifecycle} = 'graduated' AND ${lastTradeSource} IS NOT DISTINCT FROM 'uniswap_v3' THEN 'indexed_v3_market' ELSE 'indexed_v3_curve' END)`;
}
