// Test fixtures of query-api: rows shaped as the indexer writes them (tokens, trades,
// chain_events, candles, checkpoints, trending snapshots, creators, metadata drafts), inserted
// with SQL into a test database. Used by the hand-built cases; the devnet tests use the real indexer.
import type pg from "pg";

/** 0x + 40 hex digits made from `n` (distinct per n). */
export function addr(n: number | bigint, prefix = ""): string {
  const hex = prefix + BigInt(n).toString(16);
  return `0x${hex.padStart(40, "0")}`;
}

/** 0x + 64 hex digits made from `n`. */
export function txHash(n: number | bigint): string {
  return `0x${BigInt(n).toString(16).padStart(64, "0")}`;
}

export interface SeedToken {
  address: string;
  creator: string;
  name: string;
  symbol: string;
  block: number;
  logIndex?: number;
  createdAt: number;
  state?: "curve" | "graduated";
  currentPrice?: string | null;
  lastTradeSource?: string | null;
  volume?: string;
  poolAddress?: string | null;
  chainId?: number;
}

/** Inserts a token row (as after its launch) with the given identity and optional state. */
export async function insertToken(db: pg.Pool, t: SeedToken): Promise<void> {
  const price = t.currentPrice === undefined ? "28000000000" : t.currentPrice;
  await db.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
      created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at, state,
      reserve_balance, token_balance, real_reserve, tokens_sold, graduation_threshold, pool_address, pool_token_is_token0,
      graduated_block_number, graduated_transaction_hash, graduated_log_index, graduated_at,
      trade_count, buy_count, sell_count, volume, fees, unique_trader_count, holder_count, current_price, fully_diluted_value,
      last_trade_source, last_trade_block_number, updated_block_number)
     VALUES ($1, $2, $3, $4, $5, $6, $7, '1000000000000000000000000000', $8, 0, $9, $10, $11, $12,
      '30000000000000000000', '1073000000000000000000000000', '1000000000000000000', '2000000000000000000000000', '5000000000000000000',
      $13, $14, $15, $16, $17, $18, 3, 2, 1, $19, '15000000000000000', 2, 2, $20, $21, $22, $8, $8)`,
    [
      t.address,
      t.chainId ?? 31337,
      t.creator,
      t.name,
      t.symbol,
      t.name.normalize("NFC").toLowerCase(),
      t.symbol.normalize("NFC").toLowerCase(),
      t.block,
      txHash(t.block * 1000 + (t.logIndex ?? 0)),
      t.logIndex ?? 0,
      t.createdAt,
      t.state ?? "curve",
      t.poolAddress ?? null,
      t.poolAddress ? true : null,
      t.state === "graduated" ? t.block + 1 : null,
      t.state === "graduated" ? txHash(999_000 + t.block) : null,
      t.state === "graduated" ? 7 : null,
      t.state === "graduated" ? t.createdAt + 12 : null,
      t.volume ?? "3000000000000000000",
      price,
      price === null ? null : (BigInt(price) * 1_000_000_000n).toString(),
      t.lastTradeSource === undefined ? "curve" : t.lastTradeSource,
    ],
  );
}

export interface SeedTrade {
  token: string;
  block: number;
  txIndex?: number;
  logIndex: number;
  hash?: string;
  timestamp: number;
  trader: string;
  side: "buy" | "sell";
  source?: "curve" | "dex_v3";
  tokenAmount: bigint;
  reserveAmount: bigint;
}

/** Inserts a trade (fees 1% protocol + 0.5% creator of the reserve amount for curve trades). */
export async function insertTrade(db: pg.Pool, t: SeedTrade): Promise<void> {
  const curve = t.source !== "dex_v3";
  const protocolFee = curve ? t.reserveAmount / 100n : 0n;
  const creatorFee = curve ? t.reserveAmount / 200n : 0n;
  const curveValue = curve
    ? t.side === "buy"
      ? t.reserveAmount - protocolFee - creatorFee
      : t.reserveAmount + protocolFee + creatorFee
    : t.reserveAmount;
  const price = t.tokenAmount === 0n ? null : (curveValue * 10n ** 18n) / t.tokenAmount;
  await db.query(
    `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader,
      side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      t.block,
      t.logIndex,
      t.txIndex ?? 0,
      t.hash ?? txHash(t.block * 1000 + (t.txIndex ?? 0)),
      t.timestamp,
      t.token,
      t.trader,
      t.side,
      t.source ?? "curve",
      t.tokenAmount.toString(),
      t.reserveAmount.toString(),
      curveValue.toString(),
      protocolFee.toString(),
      creatorFee.toString(),
      price?.toString() ?? null,
    ],
  );
}

/** Inserts a chain event row. */
export async function insertEvent(
  db: pg.Pool,
  e: {
    token: string | null;
    block: number;
    txIndex?: number;
    logIndex: number;
    name: string;
    decoded: object;
    timestamp?: number;
    hash?: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
      contract_address, event_name, token_address, decoded) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      e.block,
      e.logIndex,
      txHash(e.block),
      e.timestamp ?? 1_700_000_000,
      e.txIndex ?? 0,
      e.hash ?? txHash(e.block * 1000 + (e.txIndex ?? 0)),
      e.token ?? addr(1),
      e.name,
      e.token,
      JSON.stringify(e.decoded),
    ],
  );
}

/** Sets the indexer checkpoint (latest indexed block) of the chain. */
export async function setCheckpoint(
  db: pg.Pool,
  block: number,
  timestamp: number,
  chainId = 31337,
): Promise<void> {
  await db.query(
    `INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp) VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain_id) DO UPDATE SET block_number = $2, block_hash = $3, block_timestamp = $4`,
    [chainId, block, txHash(block), timestamp],
  );
}
