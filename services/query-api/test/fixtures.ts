// Test support for the features' integration tests (stream, holders, status, freshness):
// rows written the way the indexer writes them, and a minimal SSE client. Not used at runtime.
import http from "node:http";
import {
  bucketStart,
  CANDLE_INTERVALS,
  formatIndexedNotification,
  INDEXED_CHANNEL,
  INTERVAL_SECONDS,
  type IndexedNotification,
} from "@tmi/shared/market";
import type pg from "pg";

/** A lowercase address made from a small number (tests). */
export function testAddress(n: number | bigint, prefix = "a"): string {
  return `0x${prefix}${n.toString(16).padStart(39, "0")}`.toLowerCase();
}

/** A block hash made from a block number and a branch tag (tests). */
export function testBlockHash(block: bigint | number, branch = 0): string {
  return `0x${branch.toString(16).padStart(8, "0")}${BigInt(block).toString(16).padStart(56, "0")}`;
}

/** Factory address used by the test rows (emitter of their launch events). */
export const TEST_FACTORY = testAddress(1, "1");

/** Writes or moves the checkpoint (chain 31337) to `block`. */
export async function upsertCheckpoint(
  db: pg.ClientBase | pg.Pool,
  options: {
    block: bigint;
    timestamp: bigint;
    head?: bigint;
    branch?: number;
    reorg?: { from: bigint; to: bigint };
  },
): Promise<void> {
  await db.query(
    `INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp, head_block_number, head_seen_at,
                                      last_reorg_at, last_reorg_from_block, last_reorg_to_block, last_reorg_depth)
     VALUES (31337, $1, $2, $3, $4, now(), $5, $6, $7, $8)
     ON CONFLICT (chain_id) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
       block_timestamp = EXCLUDED.block_timestamp, head_block_number = EXCLUDED.head_block_number, head_seen_at = now(),
       last_reorg_at = COALESCE(EXCLUDED.last_reorg_at, indexer_checkpoints.last_reorg_at),
       last_reorg_from_block = COALESCE(EXCLUDED.last_reorg_from_block, indexer_checkpoints.last_reorg_from_block),
       last_reorg_to_block = COALESCE(EXCLUDED.last_reorg_to_block, indexer_checkpoints.last_reorg_to_block),
       last_reorg_depth = COALESCE(EXCLUDED.last_reorg_depth, indexer_checkpoints.last_reorg_depth),
       updated_at = now()`,
    [
      options.block.toString(),
      testBlockHash(options.block, options.branch ?? 0),
      options.timestamp.toString(),
      (options.head ?? options.block).toString(),
      options.reorg ? new Date() : null,
      options.reorg?.from.toString() ?? null,
      options.reorg?.to.toString() ?? null,
      options.reorg ? Number(options.reorg.to - options.reorg.from + 1n) : null,
    ],
  );
}

/**
 * Inserts a launch: the `tokens` row (V3 curve at launch: nothing sold, canonical pool set) and
 * its `TokenLaunchedV3` chain event (emitted by the factory {@link TEST_FACTORY}).
 */
export async function insertToken(
  db: pg.ClientBase | pg.Pool,
  t: {
    address: string;
    creator?: string;
    block: bigint;
    logIndex?: number;
    timestamp: bigint;
    branch?: number;
    name?: string;
  },
): Promise<void> {
  const logIndex = t.logIndex ?? 0;
  const creator = t.creator ?? testAddress(9, "c");
  const name = t.name ?? `Token ${t.address.slice(-4)}`;
  const txHash = `0x${"ab".repeat(16)}${t.block.toString(16).padStart(32, "0")}`;
  await db.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
                         created_block_number, created_transaction_index, created_transaction_hash, created_log_index,
                         created_at, curve_address, pool_address, pool_token_is_token0, virtual_token_reserve,
                         virtual_eth_reserve, graduation_threshold, updated_block_number)
     VALUES ($1, 31337, $2, $3, 'TST', lower($3), 'tst', 1000000000000000000000000000, $4, 0, $5, $6, $7,
             $8, $9, true, 1066666666666666666666666667, 1000000000000000000, 800000000000000000000000000, $4)`,
    [
      t.address,
      creator,
      name,
      t.block.toString(),
      txHash,
      logIndex,
      t.timestamp.toString(),
      `0xc${t.address.slice(3)}`,
      `0xd${t.address.slice(3)}`,
    ],
  );
  await insertChainEvent(db, {
    block: t.block,
    logIndex,
    timestamp: t.timestamp,
    branch: t.branch,
    contract: TEST_FACTORY,
    eventName: "TokenLaunchedV3",
    token: t.address,
    decoded: {
      creator,
      token: t.address,
      curve: `0xc${t.address.slice(3)}`,
      canonicalPool: `0xd${t.address.slice(3)}`,
    },
  });
}

/** Inserts one `chain_events` row (and its `blocks` row when missing). */
export async function insertChainEvent(
  db: pg.ClientBase | pg.Pool,
  e: {
    block: bigint;
    logIndex: number;
    timestamp: bigint;
    branch?: number | undefined;
    contract: string;
    eventName: string;
    token: string | null;
    decoded: Record<string, unknown>;
  },
): Promise<void> {
  const hash = testBlockHash(e.block, e.branch ?? 0);
  await db.query(
    `INSERT INTO blocks (number, hash, parent_hash, timestamp) VALUES ($1, $2, $3, $4) ON CONFLICT (number) DO NOTHING`,
    [e.block.toString(), hash, testBlockHash(e.block - 1n, e.branch ?? 0), e.timestamp.toString()],
  );
  await db.query(
    `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
                               contract_address, event_name, token_address, decoded)
     VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $9)`,
    [
      e.block.toString(),
      e.logIndex,
      hash,
      e.timestamp.toString(),
      `0x${"cd".repeat(16)}${e.block.toString(16).padStart(28, "0")}${e.logIndex.toString(16).padStart(4, "0")}`,
      e.contract,
      e.eventName,
      e.token,
      JSON.stringify(e.decoded),
    ],
  );
}

/**
 * Inserts a curve trade (`trades` + its `TokensBought`/`TokensSold` chain event) and rebuilds the
 * candles of every interval for the touched buckets from `trades` (as the indexer's rollups would hold them).
 */
export async function insertTrade(
  db: pg.ClientBase | pg.Pool,
  t: {
    token: string;
    trader: string;
    block: bigint;
    logIndex: number;
    timestamp: bigint;
    side?: "buy" | "sell";
    reserve?: bigint;
    tokens?: bigint;
    branch?: number;
  },
): Promise<void> {
  const side = t.side ?? "buy";
  const reserve = t.reserve ?? 10n ** 17n;
  const tokenAmount = t.tokens ?? 10n ** 24n;
  const price = (reserve * 10n ** 18n) / tokenAmount;
  const txHash = `0x${"ef".repeat(16)}${t.block.toString(16).padStart(28, "0")}${t.logIndex.toString(16).padStart(4, "0")}`;
  await db.query(
    `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader,
                         side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
     VALUES ($1, $2, 0, $3, $4, $5, $6, $7, 'curve', $8, $9, $9, 0, 0, $10)`,
    [
      t.block.toString(),
      t.logIndex,
      txHash,
      t.timestamp.toString(),
      t.token,
      t.trader,
      side,
      tokenAmount.toString(),
      reserve.toString(),
      price.toString(),
    ],
  );
  await insertChainEvent(db, {
    block: t.block,
    logIndex: t.logIndex,
    timestamp: t.timestamp,
    branch: t.branch,
    contract: TEST_FACTORY,
    eventName: side === "buy" ? "TokensBought" : "TokensSold",
    token: t.token,
    decoded: { token: t.token, reserveAmount: reserve.toString(), tokenAmount: tokenAmount.toString() },
  });
  await rebuildCandles(db, t.token, t.timestamp);
}

/** Recomputes the candles and candle traders (every interval) of `token` around `timestamp` from `trades`; deletes empty ones. */
export async function rebuildCandles(
  db: pg.ClientBase | pg.Pool,
  token: string,
  timestamp: bigint,
): Promise<void> {
  for (const interval of CANDLE_INTERVALS) {
    const start = BigInt(bucketStart(Number(timestamp), interval));
    const end = start + BigInt(INTERVAL_SECONDS[interval]);
    await db.query(
      "DELETE FROM candle_traders WHERE token_address = $1 AND interval = $2 AND bucket_start = $3",
      [token, interval, start.toString()],
    );
    await db.query(
      `INSERT INTO candle_traders (token_address, interval, bucket_start, trader, bought, sold)
       SELECT $1, $2, $3, trader, bool_or(side = 'buy'), bool_or(side = 'sell')
         FROM trades WHERE token_address = $1 AND block_timestamp >= $3 AND block_timestamp < $4 GROUP BY trader`,
      [token, interval, start.toString(), end.toString()],
    );
    await db.query("DELETE FROM candles WHERE token_address = $1 AND interval = $2 AND bucket_start = $3", [
      token,
      interval,
      start.toString(),
    ]);
    await db.query(
      `INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
                            buy_volume, sell_volume, unique_trader_count, open_price, high_price, low_price, close_price)
       SELECT $1, $2, $3, count(*), count(*) FILTER (WHERE side = 'buy'), count(*) FILTER (WHERE side = 'sell'),
              sum(reserve_amount), coalesce(sum(reserve_amount) FILTER (WHERE side = 'buy'), 0),
              coalesce(sum(reserve_amount) FILTER (WHERE side = 'sell'), 0), count(DISTINCT trader),
              (array_agg(price ORDER BY block_number, log_index))[1], max(price), min(price),
              (array_agg(price ORDER BY block_number DESC, log_index DESC))[1]
         FROM trades WHERE token_address = $1 AND block_timestamp >= $3 AND block_timestamp < $4
       HAVING count(*) > 0`,
      [token, interval, start.toString(), end.toString()],
    );
  }
}

/** Inserts a graduation: updates the token and adds its `Graduated` chain event (emitted by the curve). */
export async function insertGraduation(
  db: pg.ClientBase | pg.Pool,
  g: { token: string; pool: string; block: bigint; logIndex: number; timestamp: bigint },
): Promise<void> {
  await db.query(
    `UPDATE tokens SET lifecycle = 'graduated', pool_address = $2, graduated_block_number = $3, graduated_log_index = $4,
                       graduated_at = $5, graduated_transaction_hash = $6 WHERE address = $1`,
    [g.token, g.pool, g.block.toString(), g.logIndex, g.timestamp.toString(), `0x${"12".repeat(32)}`],
  );
  await insertChainEvent(db, {
    block: g.block,
    logIndex: g.logIndex,
    timestamp: g.timestamp,
    contract: `0xc${g.token.slice(3)}`,
    eventName: "Graduated",
    token: g.token,
    decoded: { token: g.token, graduationManager: TEST_FACTORY },
  });
}

/** Runs `work` in a transaction that ends with the indexer's `NOTIFY tmi_indexed` for `from`..`to` (and a reorg range). */
export async function commitIndexed(
  pool: pg.Pool,
  range: { from: bigint; to: bigint; reorg?: { from: bigint; to: bigint } },
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await work(client);
    const payload: IndexedNotification = { from_block: Number(range.from), to_block: Number(range.to) };
    if (range.reorg)
      payload.reorg = { from_block: Number(range.reorg.from), to_block: Number(range.reorg.to) };
    await client.query("SELECT pg_notify($1, $2)", [INDEXED_CHANNEL, formatIndexedNotification(payload)]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

/** One received SSE event. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: Record<string, unknown>;
  /** `performance.now()` when it was parsed. */
  receivedAt: number;
}

/** A connected (or refused) SSE client. */
export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Body of a refused (non-200) request. */
  body: string;
  events: SseEvent[];
  comments: string[];
  /** Calls `listener` when the server ends the response. */
  onEnd(listener: () => void): void;
  /** Waits until `predicate` holds for the received events (default 5 s). */
  waitFor(predicate: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `url` as an SSE stream (plain `node:http`, no reconnect) and parses events and comments. */
export function openSse(
  url: string,
  headers: Record<string, string> = {},
  onEvent?: (event: SseEvent) => void,
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { headers: { accept: "text/event-stream", ...headers }, agent: false },
      (response) => {
        const events: SseEvent[] = [];
        const comments: string[] = [];
        const waiters = new Set<() => void>();
        let buffer = "";
        let body = "";
        const client: SseClient = {
          status: response.statusCode ?? 0,
          headers: response.headers,
          get body() {
            return body;
          },
          events,
          comments,
          onEnd(listener) {
            response.on("end", listener);
          },
          waitFor(predicate, timeoutMs = 5_000) {
            if (predicate(events)) return Promise.resolve();
            return new Promise<void>((ok, fail) => {
              const check = () => {
                if (predicate(events)) {
                  clearTimeout(timer);
                  waiters.delete(check);
                  ok();
                }
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(
                  new Error(`SSE wait timed out; got ${JSON.stringify(events.map((e) => [e.event, e.id]))}`),
                );
              }, timeoutMs);
              waiters.add(check);
            });
          },
          close() {
            request.destroy();
          },
        };
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (client.status !== 200) {
            body += chunk;
            return;
          }
          buffer += chunk;
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id: string | undefined;
            let event = "message";
            let data = "";
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) comments.push(line.slice(1).trim());
              else if (line.startsWith("id: ")) id = line.slice(4);
              else if (line.startsWith("event: ")) event = line.slice(7);
              else if (line.startsWith("data: ")) data += line.slice(6);
            }
            if (data) {
              const parsed: SseEvent = { id, event, data: JSON.parse(data), receivedAt: performance.now() };
              events.push(parsed);
              onEvent?.(parsed);
            }
            end = buffer.indexOf("\n\n");
          }
          for (const check of [...waiters]) check();
        });
        response.on("error", () => {});
        if (client.status === 200) resolve(client);
        else response.on("end", () => resolve(client));
      },
    );
    request.on("error", reject);
  });
}
