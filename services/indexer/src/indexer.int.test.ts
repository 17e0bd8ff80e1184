import { createTrader, type Devnet, rpc, startDevnet } from "@tmi/devnet";
import { launchpadAbi, uniswapV3PoolAbi } from "@tmi/shared/chain";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  indexToHead,
  startIndexer,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";
import { createPublicClient, http, parseEther, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const WAD = 10n ** 18n;

async function query<T = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Candles recomputed from the trades table in SQL (independent of the indexer's code). */
const RECOMPUTED_CANDLES = `
  WITH iv(name, size) AS (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)),
  b AS (
    SELECT t.*, iv.name AS interval,
      CASE WHEN iv.size = 604800 THEN ((t.block_timestamp - 345600) / 604800) * 604800 + 345600
           ELSE (t.block_timestamp / iv.size) * iv.size END AS bucket_start
    FROM trades t CROSS JOIN iv)
  SELECT token_address, interval, bucket_start::text, count(*)::int AS trade_count,
    count(*) FILTER (WHERE side = 'buy')::int AS buy_count, count(*) FILTER (WHERE side = 'sell')::int AS sell_count,
    sum(reserve_amount)::text AS volume, count(DISTINCT trader)::int AS unique_trader_count,
    ((array_agg(price ORDER BY block_number, log_index) FILTER (WHERE price IS NOT NULL))[1])::text AS open_price,
    max(price)::text AS high_price, min(price)::text AS low_price,
    ((array_agg(price ORDER BY block_number DESC, log_index DESC) FILTER (WHERE price IS NOT NULL))[1])::text AS close_price
  FROM b GROUP BY token_address, interval, bucket_start ORDER BY 1, 2, 3`;

const STORED_CANDLES = `
  SELECT token_address, interval, bucket_start::text, trade_count, buy_count, sell_count, volume::text,
    unique_trader_count, open_price::text, high_price::text, low_price::text, close_price::text
  FROM candles ORDER BY 1, 2, 3`;

function indexerOptions(db: TestDatabase, devnet: Devnet, env: Record<string, string> = {}) {
  return { ...devnetIndexerOptions(devnet, db.url, { ethUsdFeed: true }), env };
}

describe("indexer", () => {
  let devnet: Devnet;
  const dbs: TestDatabase[] = [];
  const newDb = async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockTime: "automine" });
  });
  afterAll(async () => {
    await devnet?.stop();
    for (const db of dbs) await db.drop();
  });

  it("default", async () => {
    const t0 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
    const t1 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
    const t2 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 3 });
    const created = await t0.createToken("Alpha Token", "ALPHA", { value: parseEther("0.1") });
    const token = created.token.toLowerCase();
    const receipts = [created.receipt];
    receipts.push((await t1.buy(created.token, parseEther("0.3"))).receipt);
    receipts.push((await t2.buy(created.token, parseEther("0.05"))).receipt);
    const half = (await t1.balanceOf(created.token)) / 2n;
    receipts.push((await t1.sell(created.token, half)).receipt);
    await t1.transfer(created.token, t2.address, 12345n);
    await t2.transfer(created.token, t0.address, await t2.balanceOf(created.token)); // t2 leaves the holder set

    const db = await newDb();
    const indexer = await indexToHead(indexerOptions(db, devnet));
    try {
      const events = parseEventLogs({ abi: launchpadAbi, logs: receipts.flatMap((r) => r.logs) });
      const tradesEv = events.filter((e) => e.eventName === "TokensBought" || e.eventName === "TokensSold");
      const trades = await query<Record<string, string>>(
        db.url,
        "SELECT trader, side, source, token_amount::text, reserve_amount::text, curve_value::text, protocol_fee::text, creator_fee::text, price::text FROM trades WHERE token_address = $1 ORDER BY block_number, log_index",
        [token],
      );
      expect(trades).toEqual(
        tradesEv.map((e) => {
          const a = e.args as Record<string, bigint | string>;
          const buy = e.eventName === "TokensBought";
          return {
            trader: String(buy ? a.buyer : a.seller).toLowerCase(),
            side: buy ? "buy" : "sell",
            source: "curve",
            token_amount: String(a.tokenAmount),
            reserve_amount: String(a.reserveAmount),
            curve_value: String(a.curveValue),
            protocol_fee: String(a.protocolFee),
            creator_fee: String(a.creatorFee),
            price: String(((a.curveValue as bigint) * WAD) / (a.tokenAmount as bigint)),
          };
        }),
      );
      const last = tradesEv.at(-1)!.args as Record<string, bigint>;
      const createdEv = events.find((e) => e.eventName === "TokenCreated")!.args as Record<
        string,
        bigint | string
      >;
      const volume = tradesEv.reduce((s, e) => s + (e.args as Record<string, bigint>).reserveAmount!, 0n);
      const fees = tradesEv.reduce(
        (s, e) =>
          s +
          (e.args as Record<string, bigint>).protocolFee! +
          (e.args as Record<string, bigint>).creatorFee!,
        0n,
      );
      const [row] = await query<Record<string, unknown>>(db.url, "SELECT * FROM tokens WHERE address = $1", [
        token,
      ]);
      const price = (last.reserveBalance! * WAD) / last.tokenBalance!;
      expect(row).toMatchObject({
        creator: t0.address,
        name: "Alpha Token",
        symbol: "ALPHA",
        search_name: "alpha token",
        state: "curve",
        trade_count: 4,
        buy_count: 3,
        sell_count: 1,
        volume: String(volume),
        fees: String(fees),
        unique_trader_count: 3,
        holder_count: 2,
        reserve_balance: String(last.reserveBalance),
        token_balance: String(last.tokenBalance),
        real_reserve: String(last.reserveBalance! - (createdEv.reserveBalance as bigint)),
        tokens_sold: String((createdEv.tokenBalance as bigint) - last.tokenBalance!),
        current_price: String(price),
        fully_diluted_value: String((price * 10n ** 27n) / WAD),
        last_trade_source: "curve",
      });
      const balances = await query<{ holder: string; balance: string }>(
        db.url,
        "SELECT holder, balance::text FROM token_balances WHERE token_address = $1 AND holder IN ($2, $3, $4) ORDER BY holder",
        [token, t0.address, t1.address, t2.address],
      );
      for (const b of balances) {
        const onChain = await [t0, t1, t2].find((t) => t.address === b.holder)!.balanceOf(created.token);
        expect(b.balance).toBe(String(onChain));
      }
      expect(balances.map((b) => b.holder)).not.toContain(t2.address);
      const [creator] = await query(
        db.url,
        "SELECT token_count, volume::text FROM creators WHERE address = $1",
        [t0.address],
      );
      expect(creator).toEqual({ token_count: 1, volume: String(volume) });
      expect(await query(db.url, STORED_CANDLES)).toEqual(await query(db.url, RECOMPUTED_CANDLES));
      const activity = await query<{ event_name: string; decoded: Record<string, string> }>(
        db.url,
        "SELECT event_name, decoded FROM chain_events WHERE token_address = $1 AND event_name = 'TokensBought' ORDER BY block_number LIMIT 1",
        [token],
      );
      expect(activity[0]!.decoded.token).toBe(token);
      expect(activity[0]!.decoded.buyer).toBe(t0.address);
      const trending = await query(db.url, "SELECT token_address, window_trade_count FROM trending_entries");
      expect(trending).toContainEqual({ token_address: token, window_trade_count: 4 });

      // Graduation, then pool swaps: pricing follows the market.
      const graduated = await t1.graduate(created.token);
      await t2.swapExactEthForTokens(created.token, parseEther("0.2"));
      const sold = await t1.swapExactTokensForEth(created.token, (await t1.balanceOf(created.token)) / 3n);
      const head = await chainHead(devnet.rpcUrl);
      await indexer.waitForBlock(head);
      const client = createPublicClient({ transport: http(devnet.rpcUrl) });
      const [sqrtPriceX96] = await client.readContract({
        address: graduated.pool,
        abi: uniswapV3PoolAbi,
        functionName: "slot0",
      });
      const token0 = (
        await client.readContract({ address: graduated.pool, abi: uniswapV3PoolAbi, functionName: "token0" })
      ).toLowerCase();
      const isToken0 = token0 === token;
      const q192 = 1n << 192n;
      const market = isToken0
        ? (sqrtPriceX96 * sqrtPriceX96 * WAD) / q192
        : (q192 * WAD) / (sqrtPriceX96 * sqrtPriceX96);
      const [after] = await query<Record<string, unknown>>(
        db.url,
        "SELECT * FROM tokens WHERE address = $1",
        [token],
      );
      expect(after).toMatchObject({
        state: "graduated",
        pool_address: graduated.pool,
        pool_token_is_token0: isToken0,
        last_trade_source: "dex_v3",
        current_price: String(market),
        fully_diluted_value: String((market * 10n ** 27n) / WAD),
      });
      const dex = await query<Record<string, string>>(
        db.url,
        "SELECT trader, side, curve_value::text, reserve_amount::text, protocol_fee::text, transaction_hash FROM trades WHERE token_address = $1 AND source = 'dex_v3' ORDER BY block_number",
        [token],
      );
      expect(dex.map((d) => [d.trader, d.side, d.protocol_fee])).toEqual([
        [t2.address, "buy", "0"],
        [t1.address, "sell", "0"],
      ]);
      expect(dex[1]!.transaction_hash).toBe(sold.hash);
      expect(dex.every((d) => d.curve_value === d.reserve_amount)).toBe(true);
      // The pool's balance is not a holder: t0, t1, t2 hold again.
      const holders = await query<{ holder_count: number }>(
        db.url,
        "SELECT holder_count FROM tokens WHERE address = $1",
        [token],
      );
      const onChainHolders = (await Promise.all([t0, t1, t2].map((t) => t.balanceOf(created.token)))).filter(
        (b) => b > 0n,
      ).length;
      expect(holders[0]!.holder_count).toBe(onChainHolders);
      expect(await query(db.url, STORED_CANDLES)).toEqual(await query(db.url, RECOMPUTED_CANDLES));
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: a reorg (anvil_reorg) leaves the database identical to indexing the surviving chain", async () => {
    const t1 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 4 });
    const t2 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 5 });
    const { token } = await t1.createToken("Reorg", "RORG", { value: parseEther("0.05") });
    await t2.buy(token, parseEther("0.1"));
    const db = await newDb();
    const indexer = await indexToHead(indexerOptions(db, devnet));
    try {
      await t2.buy(token, parseEther("0.2"));
      await t1.sell(token, (await t1.balanceOf(token)) / 2n);
      const second = await t2.createToken("Orphan", "ORPH", { value: parseEther("0.01") });
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      expect(
        await query(db.url, "SELECT 1 FROM tokens WHERE address = $1", [second.token.toLowerCase()]),
      ).toHaveLength(1);
      // Replace the last 3 blocks (sell, second launch, buy) with empty ones, then trade on.
      await rpc(devnet.rpcUrl, "anvil_reorg", [3, []]);
      await t1.buy(token, parseEther("0.07"));
      const head = await chainHead(devnet.rpcUrl);
      await indexer.waitForBlock(head);
      await new Promise((r) => setTimeout(r, 1_200)); // the final trending snapshot
      const fresh = await newDb();
      const scratch = await indexToHead(indexerOptions(fresh, devnet));
      await new Promise((r) => setTimeout(r, 1_200));
      await scratch.stop();
      await indexer.stop();
      const [cp] = await query<{ last_reorg_depth: number }>(
        db.url,
        "SELECT last_reorg_depth FROM indexer_checkpoints",
      );
      expect(cp!.last_reorg_depth).toBeGreaterThanOrEqual(3);
      expect(
        await query(db.url, "SELECT 1 FROM tokens WHERE address = $1", [second.token.toLowerCase()]),
      ).toHaveLength(0);
      expect(await dumpIndexedTables(db.url)).toEqual(await dumpIndexedTables(fresh.url));
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: a switch to another branch (evm_snapshot/evm_revert) is rolled back and re-indexed", async () => {
    const t1 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 6 });
    const t2 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 7 });
    const { token } = await t1.createToken("Branch", "BRCH", { value: parseEther("0.05") });
    await t2.buy(token, parseEther("0.1"));
    const db = await newDb();
    const indexer = await indexToHead(indexerOptions(db, devnet));
    try {
      const snapshot = await rpc<string>(devnet.rpcUrl, "evm_snapshot", []);
      await t2.buy(token, parseEther("0.4"));
      await t2.transfer(token, t1.address, 1000n);
      await t1.createToken("Gone", "GONE", { value: parseEther("0.02") });
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      await rpc(devnet.rpcUrl, "evm_revert", [snapshot]);
      // A different branch, longer than the orphaned one.
      await t1.buy(token, parseEther("0.03"));
      await t2.sell(token, (await t2.balanceOf(token)) / 4n);
      await t1.transfer(token, t2.address, 777n);
      await t2.buy(token, parseEther("0.01"));
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      await new Promise((r) => setTimeout(r, 1_200));
      await indexer.stop();
      const [cp] = await query<{ last_reorg_depth: number | null }>(
        db.url,
        "SELECT last_reorg_depth FROM indexer_checkpoints",
      );
      expect(cp!.last_reorg_depth).toBeGreaterThanOrEqual(3);
      expect(await query(db.url, "SELECT 1 FROM tokens WHERE name = 'Gone'")).toHaveLength(0);
      const fresh = await newDb();
      const scratch = await indexToHead(indexerOptions(fresh, devnet));
      await new Promise((r) => setTimeout(r, 1_200));
      await scratch.stop();
      expect(await dumpIndexedTables(db.url)).toEqual(await dumpIndexedTables(fresh.url));
      expect(await query(db.url, STORED_CANDLES)).toEqual(await query(db.url, RECOMPUTED_CANDLES));
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: kill -9 mid-batch and restart gives the same database as an uninterrupted run", async () => {
    const traders = [8, 9, 1, 2].map((account) =>
      createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
    );
    const { token } = await traders[0]!.createToken("Crash", "CRSH", { value: parseEther("0.01") });
    for (let i = 0; i < 40; i++) {
      const t = traders[i % traders.length]!;
      if (i % 5 === 4) await t.sell(token, (await t.balanceOf(token)) / 3n);
      else await t.buy(token, parseEther("0.01") + BigInt(i) * 10n ** 15n);
    }
    const head = await chainHead(devnet.rpcUrl);
    const slow = { LOG_BATCH_BLOCKS: "1", MAX_LOG_BATCH_BLOCKS: "2", PREFETCH_RANGES: "1" };
    const reference = await newDb();
    const full = await indexToHead({ ...indexerOptions(reference, devnet, slow), timeoutMs: 120_000 });
    await new Promise((r) => setTimeout(r, 1_200));
    await full.stop();

    const db = await newDb();
    let indexer = startIndexer(indexerOptions(db, devnet, slow));
    const start = devnet.deployment.startBlock;
    await indexer.waitForBlock(start + Math.floor((head - start) / 3), 60_000);
    await indexer.kill();
    indexer = startIndexer(indexerOptions(db, devnet, slow));
    await indexer.waitForBlock(start + Math.floor(((head - start) * 2) / 3), 60_000);
    await indexer.kill();
    indexer = startIndexer(indexerOptions(db, devnet, slow));
    await indexer.waitForBlock(head, 60_000);
    await new Promise((r) => setTimeout(r, 1_200));
    await indexer.stop();
    expect(await dumpIndexedTables(db.url)).toEqual(await dumpIndexedTables(reference.url));
  });

  it("behavior: the addresses log filter mode indexes the same database as the topics mode", async () => {
    const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 4 });
    // A token launched and traded within one small range: its Transfers must still be picked up.
    const { token } = await t.createToken("Same Range", "SAME", { value: parseEther("0.02") });
    await t.transfer(
      token,
      createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 5 }).address,
      5n,
    );
    const topics = await newDb();
    const addresses = await newDb();
    const a = await indexToHead(indexerOptions(topics, devnet));
    const b = await indexToHead(
      indexerOptions(addresses, devnet, { LOG_FILTER_MODE: "addresses", LOG_BATCH_BLOCKS: "3" }),
    );
    await new Promise((r) => setTimeout(r, 1_200));
    await a.stop();
    await b.stop();
    const dump = await dumpIndexedTables(addresses.url);
    expect(dump.trades!.length).toBeGreaterThan(5);
    expect(dump).toEqual(await dumpIndexedTables(topics.url));
  });

  it("behavior: a websocket RPC_URL follows new heads through eth_subscribe", async () => {
    const db = await newDb();
    const wsUrl = devnet.rpcUrl.replace(/^http/, "ws");
    const indexer = await indexToHead({
      ...indexerOptions(db, devnet, { POLL_INTERVAL_MS: "60000" }),
      rpcUrl: wsUrl,
    });
    try {
      const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 6 });
      const { hash } = await t.createToken("Socket", "SOCK", { value: parseEther("0.01") });
      // The poll interval is a minute: only the newHeads subscription can wake the indexer this fast.
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 20_000);
      expect(
        await query(db.url, "SELECT 1 FROM trades WHERE transaction_hash = $1", [hash.toLowerCase()]),
      ).toHaveLength(1);
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: a second indexer waits on standby while the first holds the lock", async () => {
    const db = await newDb();
    const first = await indexToHead(indexerOptions(db, devnet));
    const second = startIndexer(indexerOptions(db, devnet));
    try {
      await waitFor(() => second.output().includes("standing by"), {
        timeoutMs: 30_000,
        message: "no standby",
      });
      expect(second.output()).not.toContain("writer lock acquired");
      await first.stop();
      const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 3 });
      await t.createToken("Standby", "STBY");
      await second.waitForBlock(await chainHead(devnet.rpcUrl), 30_000);
      expect(second.output()).toContain("writer lock acquired");
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it("error: a chain that does not match the indexed blocks beyond REORG_DEPTH stops the indexer", async () => {
    const db = await newDb();
    const first = await indexToHead(indexerOptions(db, devnet));
    await first.stop();
    // Pretend the indexed chain was another one: corrupt every stored hash.
    await query(db.url, "UPDATE blocks SET hash = '0x' || repeat('ab', 32)");
    await query(db.url, "UPDATE indexer_checkpoints SET block_hash = '0x' || repeat('ab', 32)");
    const second = startIndexer(indexerOptions(db, devnet, { REORG_DEPTH: "4" }));
    const code = await new Promise<number | null>((resolve) => second.child.once("exit", (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(second.output()).toMatch(/deeper than REORG_DEPTH=4/);
  });
});
