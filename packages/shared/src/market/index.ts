/**
 * The market rules the indexer (writer) and query-api (reader) share, one module per rule, each
 * with its TypeScript function and, where SQL needs it, the SQL form built from the same
 * constants (`test/market-rules.int.test.ts` proves the two agree).
 */
export * from "./candle-buckets.js";
export * from "./chain-position.js";
export * from "./hidden-trades.js";
export * from "./holder-exclusion.js";
export * from "./indexed-notification.js";
export * from "./lifecycle.js";
export * from "./pricing-source.js";
export * from "./progress.js";
export * from "./trade-fields.js";
export * from "./value-at-price.js";
export * from "./volume-window.js";
