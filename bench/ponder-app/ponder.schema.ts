import { index, onchainTable, primaryKey } from "ponder";

/** One row per launch: the curve state the price comes from, and running totals. */
export const tokens = onchainTable("tokens", (t) => ({
  address: t.hex().primaryKey(),
  creator: t.hex().notNull(),
  curve: t.hex().notNull(),
  pool: t.hex().notNull(),
  createdBlock: t.bigint().notNull(),
  createdAt: t.bigint().notNull(),
  soldSupply: t.bigint().notNull(),
  reserveCoordinate: t.bigint().notNull(),
  graduated: t.boolean().notNull(),
  currentPrice: t.bigint().notNull(),
  tradeCount: t.integer().notNull(),
  volume: t.bigint().notNull(),
  latestTradeAt: t.bigint(),
}));

/** Canonical pool → its launch token (a Swap names only the pool). */
export const pools = onchainTable("pools", (t) => ({
  address: t.hex().primaryKey(),
  token: t.hex().notNull(),
}));

/** One row per curve trade or canonical-pool swap after graduation (the platform's trade rules). */
export const trades = onchainTable(
  "trades",
  (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    trader: t.hex().notNull(),
    side: t.text().notNull(),
    source: t.text().notNull(),
    tokenAmount: t.bigint().notNull(),
    reserveAmount: t.bigint().notNull(),
    curveValue: t.bigint().notNull(),
    price: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ tokenIdx: index().on(table.token, table.blockNumber, table.logIndex) }),
);

/** 1-minute OHLC candles per token; prices are the price after each trade (wei per whole token). */
export const candles1m = onchainTable(
  "candles_1m",
  (t) => {
    const price = () => t.bigint().notNull();
    return {
      token: t.hex().notNull(),
      bucket: t.bigint().notNull(),
      open: price(),
      high: price(),
      low: price(),
      close: price(),
      volume: t.bigint().notNull(),
      tradeCount: t.integer().notNull(),
    };
  },
  (table) => ({ pk: primaryKey({ columns: [table.token, table.bucket] }) }),
);
