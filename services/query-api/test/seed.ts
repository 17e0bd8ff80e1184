// Test fixtures of query-api: rows shaped as the indexer writes them (tokens, trades,
// chain_events, candles, checkpoints, trending snapshots, creators, metadata drafts), inserted
// with SQL into a test database. Used by the hand-built cases; the devnet tests use the real indexer.
import type { Lifecycle } from "@tmi/shared/market";
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
  lifecycle?: Lifecycle;
  currentPrice?: string | null;
  lastTradeSource?: string | null;
  volume?: string;
  poolAddress?: string | null;
  chainId?: number;
}

/** Curve address of a seeded token (unique per token). */
export function curveOf(token: string): string {
  return `0xc${token.slice(3)}`;
}

/** Canonical pool of a seeded token when none is given (unique per token). */
export function poolOf(token: string): string {
  return `0xd${token.slice(3)}`;
}

/** Curve allocation (token base units): the graduation threshold of every V3 token. */
export const CURVE_ALLOCATION = 800_000_000n * 10n ** 18n;

/**
 * Inserts a V3 token row with the given identity and optional lifecycle: on the curve, 6 % of the
 * curve allocation sold (48,000,000 tokens, 0.25 ETH net in the curve); graduated, everything
 * sold, with the graduation (`Graduated` at block + 1, log 7) and its settlement (`GraduatedV3`
 * at block + 1, log 5).
 */
export async function insertToken(db: pg.Pool, t: SeedToken): Promise<void> {
  const price = t.currentPrice === undefined ? "28000000000" : t.currentPrice;
  const graduated = t.lifecycle === "graduated";
  const g = (value: unknown) => (graduated ? value : null);
  await db.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
      created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at, lifecycle,
      curve_address, pool_address, pool_token_is_token0, sold_supply, reserve_balance, virtual_token_reserve,
      virtual_eth_reserve, graduation_threshold,
      graduation_manager_address, lp_custodian_address, position_token_id, graduation_liquidity, graduation_token_amount,
      graduation_eth_amount, graduation_sold_supply,
      graduated_block_number, graduated_transaction_hash, graduated_log_index, graduated_at,
      settled_block_number, settled_transaction_hash, settled_log_index,
      trade_count, buy_count, sell_count, volume, fees, unique_trader_count, holder_count, current_price, fully_diluted_value,
      latest_trade_timestamp, last_trade_source, last_trade_block_number, updated_block_number)
     VALUES ($1, $2, $3, $4, $5, $6, $7, '1000000000000000000000000000', $8, 0, $9, $10, $11, $12,
      $13, $14, true, $15, $16, '1066666666666666666666666667', '1000000000000000000', $17,
      $18, $19, $20, $21, $22, $23, $24,
      $25, $26, $27, $28, $25, $26, $29,
      3, 2, 1, $30, '15000000000000000', 2, 2, $31, $32, $33, $34, $8, $8)`,
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
      t.lifecycle ?? "active",
      curveOf(t.address),
      t.poolAddress ?? poolOf(t.address),
      graduated ? CURVE_ALLOCATION.toString() : "48000000000000000000000000",
      graduated ? "0" : "250000000000000000",
      CURVE_ALLOCATION.toString(),
      g(addr(0x6a, "9")),
      g(addr(0xc5, "9")),
      g("4242"),
      g("123456789012345678901"),
      g("200000000000000000000000000"),
      g("2970000000000000000"),
      g(CURVE_ALLOCATION.toString()),
      g(t.block + 1),
      g(txHash(999_000 + t.block)),
      g(7),
      g(t.createdAt + 12),
      g(5),
      t.volume ?? "3000000000000000000",
      price,
      price === null ? null : (BigInt(price) * 1_000_000_000n).toString(),
      t.createdAt + 6,
      t.lastTradeSource === undefined ? "curve" : t.lastTradeSource,
    ],
  );
}

/**
 * Inserts tokens 1..`count` in one statement for the plan tests: token i has the address
 * `0x` + i in 40 hex digits, the creator of the SQL expression `creator` (over `i`), block 100 + i
 * (so the newest has the highest i), a curve, price 10^9 + i and no trades.
 */
export async function insertSeriesTokens(db: pg.ClientBase, count: number, creator: string): Promise<void> {
  await db.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
                         created_block_number, created_transaction_index, created_transaction_hash, created_log_index,
                         created_at, curve_address, virtual_token_reserve, virtual_eth_reserve, graduation_threshold,
                         updated_block_number, current_price)
     SELECT '0x' || lpad(to_hex(i), 40, '0'), 31337, ${creator}, 'T' || i, 'T', 't' || i, 't', 10^27, 100 + i, 0,
            '0x' || lpad(to_hex(i), 64, '0'), 0, 1763712000 + i, '0xc' || lpad(to_hex(i), 39, '0'),
            10^27, 10^18, 8 * 10^26, 100 + i, 10^9 + i
     FROM generate_series(1, ${count}) i`,
  );
}

/** The plan tests' wallet address of the SQL integer expression `j` (`0xb` + 39 hex digits). */
export const walletSql = (j: string) => `'0xb' || lpad(to_hex(${j}), 39, '0')`;

/** The address {@link walletSql} gives for `j`. */
export const wallet = (j: number) => `0xb${j.toString(16).padStart(39, "0")}`;

/**
 * Inserts positions i = 1..`count` for the plan tests: token and trader the SQL expressions `token`
 * and `trader` (over `i`), one buy of 10^21 tokens, volume 10^15 + i (so the volume order is i's),
 * realized pnl i % 11, first and last trade at block 1000 + i.
 */
export async function insertSeriesPositions(
  db: pg.ClientBase,
  count: number,
  token: string,
  trader: string,
): Promise<void> {
  await db.query(
    `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
                            buy_count, sell_count, open_quantity, cost_basis, realized_pnl,
                            first_block_number, first_transaction_hash, first_log_index, first_timestamp,
                            last_block_number, last_transaction_hash, last_log_index, last_timestamp)
     SELECT ${token}, ${trader}, 10^21, 10^15 + i, 0, i % 7, 10^15 + i, 1, 0, 10^21, 10^15, i % 11,
            1000 + i, '0x' || lpad(to_hex(i), 64, '0'), 0, 1763712000 + i,
            1000 + i, '0x' || lpad(to_hex(i), 64, '0'), 0, 1763712000 + i
     FROM generate_series(1, ${count}) i`,
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
  source?: "curve" | "uniswap_v3";
  tokenAmount: bigint;
  reserveAmount: bigint;
}

/** Inserts a trade (fees 1% protocol + 0.5% creator of the reserve amount for curve trades). */
export async function insertTrade(db: pg.Pool, t: SeedTrade): Promise<void> {
  const curve = t.source !== "uniswap_v3";
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
