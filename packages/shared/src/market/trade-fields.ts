/** The value sets of the `trades` columns that are enums on the wire. */

/** `trades.source` / `tokens.last_trade_source`: the curve, or the token's canonical Uniswap V3 pool. */
export type TradeSource = "curve" | "uniswap_v3";

/** `trades.side`. */
export type TradeSide = "buy" | "sell";
