import {
  createTrader,
  type Devnet,
  localPublicClient,
  localWalletClient,
  rpc,
  startDevnet,
} from "@tmi/devnet";
import {
  erc20Abi,
  graduationManagerV3Abi,
  poolPriceFromSqrtPriceX96,
  uniswapV3PoolAbi,
  WAD,
  zonkCurveV3Abi,
} from "@tmi/shared/chain";
import { decodeChainString } from "@tmi/shared/codec";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  emitterInitCode,
  indexToHead,
  startIndexer,
  type TestDatabase,
  topicOf,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";
import {
  type Address,
  encodeAbiParameters,
  type Hex,
  parseEther,
  parseEventLogs,
  toEventSelector,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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

/** Candles recomputed from the trades table in SQL (independent of the indexer's code): volume = Σ curve_value, split by side. */
const RECOMPUTED_CANDLES = `
  WITH iv(name, size) AS (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)),
  b AS (
    SELECT t.*, iv.name AS interval,
      CASE WHEN iv.size = 604800 THEN ((t.block_timestamp - 345600) / 604800) * 604800 + 345600
           ELSE (t.block_timestamp / iv.size) * iv.size END AS bucket_start
    FROM trades t CROSS JOIN iv)
  SELECT token_address, interval, bucket_start::text, count(*)::int AS trade_count,
    count(*) FILTER (WHERE side = 'buy')::int AS buy_count, count(*) FILTER (WHERE side = 'sell')::int AS sell_count,
    sum(curve_value)::text AS volume,
    coalesce(sum(curve_value) FILTER (WHERE side = 'buy'), 0)::text AS buy_volume,
    coalesce(sum(curve_value) FILTER (WHERE side = 'sell'), 0)::text AS sell_volume,
    count(DISTINCT trader)::int AS unique_trader_count,
    ((array_agg(price ORDER BY block_number, log_index) FILTER (WHERE price IS NOT NULL))[1])::text AS open_price,
    max(price)::text AS high_price, min(price)::text AS low_price,
    ((array_agg(price ORDER BY block_number DESC, log_index DESC) FILTER (WHERE price IS NOT NULL))[1])::text AS close_price
  FROM b GROUP BY token_address, interval, bucket_start ORDER BY 1, 2, 3`;

const STORED_CANDLES = `
  SELECT token_address, interval, bucket_start::text, trade_count, buy_count, sell_count, volume::text,
    buy_volume::text, sell_volume::text, unique_trader_count, open_price::text, high_price::text, low_price::text, close_price::text
  FROM candles ORDER BY 1, 2, 3`;

function indexerOptions(db: TestDatabase, devnet: Devnet, env: Record<string, string> = {}) {
  return { ...devnetIndexerOptions(devnet, db.url, { ethUsdFeed: true }), env };
}

const pad = topicOf;

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
    const [t0, t1, t2] = [1, 2, 3].map((account) =>
      createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
    ) as [ReturnType<typeof createTrader>, ReturnType<typeof createTrader>, ReturnType<typeof createTrader>];
    const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
    const { weth, graduationManager } = devnet.deployment.contracts;

    // Token A stays on its curve.
    const a = await t0.createToken("Alpha Token", "ALPHA");
    const tokenA = a.token.toLowerCase() as Address;
    const receipts = [];
    receipts.push((await t1.buy(a.token, parseEther("0.3"))).receipt);
    receipts.push((await t2.buy(a.token, parseEther("0.05"))).receipt);
    receipts.push((await t1.sell(a.token, (await t1.balanceOf(a.token)) / 2n)).receipt);
    await t1.transfer(a.token, t2.address, 12345n);
    await t2.transfer(a.token, t0.address, await t2.balanceOf(a.token)); // t2 leaves the holder set
    // Token B graduates, then trades on its canonical pool both ways.
    const b = await t2.createToken("Beta", "BETA");
    const tokenB = b.token.toLowerCase() as Address;
    await t0.buy(b.token, parseEther("0.5"));
    const graduated = await t1.graduate(b.token);
    const swapBuy = await t0.swapExactEthForTokens(b.token, parseEther("0.2"));
    const swapSell = await t1.swapExactTokensForEth(b.token, (await t1.balanceOf(b.token)) / 3n);

    const db = await newDb();
    const indexer = await indexToHead(indexerOptions(db, devnet));
    await indexer.stop();

    // Curve state and price equal the curve's own views (eth_call) at the indexed head and at every trade.
    const curveA = await t0.curveOf(a.token);
    const view = (functionName: string, blockNumber?: bigint) =>
      client.readContract({
        address: curveA,
        abi: zonkCurveV3Abi,
        functionName,
        blockNumber,
      } as never) as Promise<bigint>;
    const [rowA] = await query<Record<string, unknown>>(db.url, "SELECT * FROM tokens WHERE address = $1", [
      tokenA,
    ]);
    const spot = await view("spotPrice");
    expect(rowA).toMatchObject({
      creator: t0.address,
      name: "Alpha Token",
      symbol: "ALPHA",
      search_name: "alpha token",
      curve_address: curveA,
      pool_token_is_token0: BigInt(tokenA) < BigInt(weth),
      lifecycle: "active",
      sold_supply: String(await view("soldSupply")),
      reserve_balance: String(await view("reserveCoordinate")),
      virtual_token_reserve: String(await view("virtualTokenReserve")),
      virtual_eth_reserve: String(await view("virtualEthReserve")),
      graduation_threshold: String(800_000_000n * WAD),
      current_price: String(spot),
      fully_diluted_value: String((spot * 10n ** 27n) / WAD),
      trade_count: 3,
      buy_count: 2,
      sell_count: 1,
      unique_trader_count: 2,
      holder_count: 2,
      last_trade_source: "curve",
    });
    expect(rowA!.pool_address).toBe(
      String(
        await client.readContract({
          address: graduationManager,
          abi: graduationManagerV3Abi,
          functionName: "canonicalPoolOf",
          args: [a.token],
        }),
      ).toLowerCase(),
    );

    // Trades: the platform's field mapping; price = spotPrice() right after the trade (eth_call at its block).
    const events = parseEventLogs({ abi: zonkCurveV3Abi, logs: receipts.flatMap((r) => r.logs) });
    const curveTrades = events.filter((e) => e.eventName === "TokensBought" || e.eventName === "TokensSold");
    const trades = await query<Record<string, string>>(
      db.url,
      "SELECT block_number::text, trader, side, source, token_amount::text, reserve_amount::text, curve_value::text, protocol_fee::text, creator_fee::text, price::text FROM trades WHERE token_address = $1 ORDER BY block_number, log_index",
      [tokenA],
    );
    const expected = [];
    for (const e of curveTrades) {
      const x = e.args as Record<string, bigint | string>;
      const buy = e.eventName === "TokensBought";
      expected.push({
        block_number: String(e.blockNumber),
        trader: String(buy ? x.buyer : x.seller).toLowerCase(),
        side: buy ? "buy" : "sell",
        source: "curve",
        token_amount: String(buy ? x.tokensOut : x.tokensIn),
        reserve_amount: String(buy ? x.acceptedGross : x.netSellerOutput),
        curve_value: String(buy ? x.netCurveInput : x.grossCurveOutput),
        protocol_fee: String(x.protocolFee),
        creator_fee: String(x.creatorFee),
        price: String(await view("spotPrice", e.blockNumber)),
      });
    }
    expect(trades).toEqual(expected);
    const volume = trades.reduce((s, t) => s + BigInt(t.curve_value!), 0n);
    const fees = trades.reduce((s, t) => s + BigInt(t.protocol_fee!) + BigInt(t.creator_fee!), 0n);
    const lastBlock = await client.getBlock({ blockNumber: curveTrades.at(-1)!.blockNumber });
    expect(rowA).toMatchObject({
      volume: String(volume),
      fees: String(fees),
      latest_trade_timestamp: String(lastBlock.timestamp),
    });

    // Holders: balances equal balanceOf; the curve is not a holder.
    const balances = await query<{ holder: string; balance: string }>(
      db.url,
      "SELECT holder, balance::text FROM token_balances WHERE token_address = $1 ORDER BY holder",
      [tokenA],
    );
    expect(balances.map((x) => x.holder).sort()).toEqual([t0.address, t1.address].sort());
    for (const x of balances) {
      const onChain = await client.readContract({
        address: a.token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [x.holder as Address],
      });
      expect(x.balance).toBe(String(onChain));
    }

    // Graduation and settlement of B; pool swaps priced from sqrtPriceX96; trader = transaction sender.
    const [rowB] = await query<Record<string, unknown>>(db.url, "SELECT * FROM tokens WHERE address = $1", [
      tokenB,
    ]);
    const manager = (fn: "custodianOf" | "residualEscrowOf") =>
      client.readContract({
        address: graduationManager,
        abi: graduationManagerV3Abi,
        functionName: fn,
        args: [b.token],
      });
    const [sqrtPriceX96] = await client.readContract({
      address: graduated.pool,
      abi: uniswapV3PoolAbi,
      functionName: "slot0",
    });
    const isToken0 = BigInt(tokenB) < BigInt(weth);
    const market = poolPriceFromSqrtPriceX96(sqrtPriceX96, isToken0)!;
    const gradLogs = parseEventLogs({
      abi: [...zonkCurveV3Abi, ...graduationManagerV3Abi],
      logs: graduated.receipt.logs,
    });
    const gv3 = gradLogs.find((e) => e.eventName === "GraduatedV3")!;
    const grad = gradLogs.find((e) => e.eventName === "Graduated")!;
    expect(rowB).toMatchObject({
      lifecycle: "graduated",
      pool_address: graduated.pool.toLowerCase(),
      pool_token_is_token0: isToken0,
      sold_supply: String(800_000_000n * WAD),
      graduation_manager_address: graduationManager.toLowerCase(),
      lp_custodian_address: String(await manager("custodianOf")).toLowerCase(),
      position_token_id: String((gv3.args as { tokenId: bigint }).tokenId),
      graduation_liquidity: String((gv3.args as { liquidity: bigint }).liquidity),
      graduation_token_amount: String((grad.args as { tokenAmount: bigint }).tokenAmount),
      graduation_eth_amount: String((grad.args as { ethAmount: bigint }).ethAmount),
      graduated_block_number: String(grad.blockNumber),
      graduated_log_index: grad.logIndex,
      settled_block_number: String(gv3.blockNumber),
      settled_log_index: gv3.logIndex,
      last_trade_source: "uniswap_v3",
      current_price: String(market),
      fully_diluted_value: String((market * 10n ** 27n) / WAD),
    });
    if (rowB!.residual_escrow_address !== null)
      expect(rowB!.residual_escrow_address).toBe(String(await manager("residualEscrowOf")).toLowerCase());
    const dex = await query<Record<string, string>>(
      db.url,
      "SELECT trader, side, curve_value::text, reserve_amount::text, protocol_fee::text, transaction_hash FROM trades WHERE token_address = $1 AND source = 'uniswap_v3' ORDER BY block_number",
      [tokenB],
    );
    expect(dex.map((d) => [d.trader, d.side, d.protocol_fee, d.transaction_hash])).toEqual([
      [t0.address, "buy", "0", swapBuy.hash],
      [t1.address, "sell", "0", swapSell.hash],
    ]);
    expect(dex.every((d) => d.curve_value === d.reserve_amount)).toBe(true);
    const holdersB = (await Promise.all([t0, t1, t2].map((t) => t.balanceOf(b.token)))).filter(
      (x) => x > 0n,
    ).length;
    expect(rowB!.holder_count).toBe(holdersB);
    const [lastCandle] = await query<{ close_price: string }>(
      db.url,
      "SELECT close_price::text FROM candles WHERE token_address = $1 AND interval = '1m' ORDER BY bucket_start DESC LIMIT 1",
      [tokenB],
    );
    expect(lastCandle!.close_price).toBe(String(market));

    // Candles, creators, activity log.
    expect(await query(db.url, STORED_CANDLES)).toEqual(await query(db.url, RECOMPUTED_CANDLES));
    expect(await query(db.url, "SELECT token_count FROM creators WHERE address = $1", [t2.address])).toEqual([
      { token_count: 1 },
    ]);
    const launchActivity = await query<{ event_name: string }>(
      db.url,
      "SELECT event_name FROM chain_events WHERE transaction_hash = $1 ORDER BY log_index",
      [a.hash.toLowerCase()],
    );
    expect(launchActivity.map((x) => x.event_name)).toEqual([
      "Transfer",
      "TokenRegistered",
      "LaunchRegistered",
      "TokenLaunchedV3",
    ]);
    const [bought] = await query<{ decoded: Record<string, string> }>(
      db.url,
      "SELECT decoded FROM chain_events WHERE token_address = $1 AND event_name = 'TokensBought' ORDER BY block_number LIMIT 1",
      [tokenA],
    );
    const first = curveTrades[0]!.args as Record<string, bigint | string>;
    expect(bought!.decoded).toEqual(
      Object.fromEntries(
        Object.entries(first).map(([k, v]) => [
          k,
          typeof v === "bigint" ? v.toString() : String(v).toLowerCase(),
        ]),
      ),
    );
  });

  it("behavior: contracts emitting the platform's signatures from other addresses change nothing", async () => {
    const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 4 });
    const victim = await t.createToken("Victim", "VICT");
    await t.buy(victim.token, parseEther("0.1"));
    const db = await newDb();
    const indexer = await indexToHead(indexerOptions(db, devnet));
    try {
      const before = await dumpIndexedTables(db.url);
      const wallet = localWalletClient(devnet.rpcUrl, 5, devnet.deployment.chainId);
      const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
      const curve = await t.curveOf(victim.token);
      const words = (n: number, v: bigint) =>
        encodeAbiParameters(
          Array.from({ length: n }, () => ({ type: "uint256" })),
          Array(n).fill(v),
        );
      const initCode = emitterInitCode([
        // A curve trade naming the real token, a graduation naming the impostor as manager, its settlement.
        {
          topics: [
            toEventSelector(zonkCurveV3Abi.find((x) => x.type === "event" && x.name === "TokensBought")!),
            pad(victim.token),
            pad(t.address),
          ],
          data: words(10, 10n ** 26n),
        },
        {
          topics: [
            toEventSelector(zonkCurveV3Abi.find((x) => x.type === "event" && x.name === "Graduated")!),
            pad(victim.token),
            pad(wallet.account.address),
          ],
          data: words(3, 1n),
        },
        {
          topics: [
            toEventSelector(
              graduationManagerV3Abi.find((x) => x.type === "event" && x.name === "GraduatedV3")!,
            ),
            pad(victim.token),
            pad(t.address),
            pad("0x01"),
          ],
          data: words(1, 1n),
        },
        // A Transfer out of the real curve, emitted by the impostor.
        {
          topics: [
            toEventSelector(erc20Abi.find((x) => x.type === "event" && x.name === "Transfer")!),
            pad(curve),
            pad(t.address),
          ],
          data: words(1, 10n ** 26n),
        },
      ]);
      const hash = await wallet.sendTransaction({ data: initCode, account: wallet.account, chain: null });
      const receipt = await client.waitForTransactionReceipt({ hash });
      expect(receipt.logs).toHaveLength(4);
      const impostor = receipt.contractAddress!.toLowerCase();
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      const after = await dumpIndexedTables(db.url);
      for (const d of [before, after]) {
        delete d.indexer_checkpoints;
        delete d.trending_latest;
      }
      expect(after).toEqual(before);
      expect(
        await query(db.url, "SELECT 1 FROM chain_events WHERE contract_address = $1", [impostor]),
      ).toHaveLength(0);
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: hostile token names sent through the factory are indexed sanitized and indexing goes on", async () => {
    const wallet = localWalletClient(devnet.rpcUrl, 6, devnet.deployment.chainId);
    const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
    const factory = devnet.deployment.contracts.factory;
    const utf8 = (s: string) => new TextEncoder().encode(s);
    const corpus: [label: string, name: Uint8Array][] = [
      ["NUL", utf8("Evil\u0000Name")],
      ["encoded lone surrogate", Uint8Array.from([0x41, 0xed, 0xa0, 0x80, 0x42])],
      ["invalid UTF-8", Uint8Array.from([0xff, 0xfe, 0x41, 0xc3])],
      ["control characters", utf8("\u0001\u0007\u001b[31mred\u007f\t\n")],
      ["RTL override", utf8("\u202Egnp.exe")],
      ["64 bytes of 4-byte characters", utf8("🚀".repeat(16))],
    ];
    const launch = async (name: Uint8Array, symbol: Uint8Array) => {
      const data = `0x72c46e10${encodeAbiParameters(
        [{ type: "bytes" }, { type: "bytes" }, { type: "bytes32" }],
        [`0x${Buffer.from(name).toString("hex")}`, `0x${Buffer.from(symbol).toString("hex")}`, pad("0x5a17")],
      ).slice(2)}` as Hex;
      const hash = await wallet.sendTransaction({
        to: factory,
        data,
        account: wallet.account,
        chain: null,
        gas: 15_000_000n,
      });
      return client.waitForTransactionReceipt({ hash });
    };
    const launched: { name: Uint8Array; symbol: Uint8Array; hash: string }[] = [];
    for (const [i, [, name]] of corpus.entries()) {
      const symbol = Uint8Array.from([0x48, 0x00, 0x30 + i, 0xff]);
      const receipt = await launch(name, symbol);
      expect(receipt.status).toBe("success");
      launched.push({ name, symbol, hash: receipt.transactionHash.toLowerCase() });
    }
    // 10 KB: the factory refuses names over 64 bytes (the transaction reverts, nothing to index).
    const tooLong = await launch(utf8("Z".repeat(10_240)), utf8("LONG")).catch((error: unknown) => error);
    expect(tooLong instanceof Error || (tooLong as { status?: string }).status === "reverted").toBe(true);

    const db = await newDb();
    const indexer = await indexToHead(indexerOptions(db, devnet));
    try {
      const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 7 });
      const after = await t.createToken("After", "AFTR");
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      for (const l of launched) {
        const [row] = await query<{ name: string; symbol: string; json: { name: string } }>(
          db.url,
          "SELECT name, symbol, jsonb_build_object('name', name) AS json FROM tokens WHERE created_transaction_hash = $1",
          [l.hash],
        );
        expect(row).toBeDefined();
        expect(row!.name).toBe(decodeChainString(l.name));
        expect(row!.symbol).toBe(decodeChainString(l.symbol));
        expect(row!.json.name).toBe(row!.name);
        expect(row!.name).not.toContain("\u0000");
      }
      expect(
        await query(db.url, "SELECT 1 FROM tokens WHERE address = $1", [after.token.toLowerCase()]),
      ).toHaveLength(1);
      expect(await query(db.url, "SELECT 1 FROM skipped_logs")).toHaveLength(0);
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
      const second = await t2.createToken("Orphan", "ORPH");
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      expect(
        await query(db.url, "SELECT 1 FROM tokens WHERE address = $1", [second.token.toLowerCase()]),
      ).toHaveLength(1);
      // Replace the last 3 blocks (buy, sell, second launch) with empty ones, then trade on.
      await rpc(devnet.rpcUrl, "anvil_reorg", [3, []]);
      await t1.buy(token, parseEther("0.07"));
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      await indexer.waitForTrending();
      const fresh = await newDb();
      const scratch = await indexToHead(indexerOptions(fresh, devnet));
      await scratch.waitForTrending();
      await scratch.stop();
      await indexer.stop();
      expect(indexer.output()).toContain("rolled back orphaned blocks");
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
      await t2.buy(token, parseEther("0.01"));
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      await indexer.waitForTrending();
      await indexer.stop();
      expect(indexer.output()).toContain("rolled back orphaned blocks");
      expect(await query(db.url, "SELECT 1 FROM tokens WHERE name = 'Gone'")).toHaveLength(0);
      const fresh = await newDb();
      const scratch = await indexToHead(indexerOptions(fresh, devnet));
      await scratch.waitForTrending();
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
      if (i % 5 === 4 && (await t.balanceOf(token)) > 0n)
        await t.sell(token, (await t.balanceOf(token)) / 3n);
      else await t.buy(token, parseEther("0.01") + BigInt(i) * 10n ** 15n);
    }
    const head = await chainHead(devnet.rpcUrl);
    const slow = { LOG_BATCH_BLOCKS: "1", MAX_LOG_BATCH_BLOCKS: "2", PREFETCH_RANGES: "1" };
    const reference = await newDb();
    const full = await indexToHead({ ...indexerOptions(reference, devnet, slow), timeoutMs: 120_000 });
    await full.waitForTrending();
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
    await indexer.waitForTrending();
    await indexer.stop();
    expect(await dumpIndexedTables(db.url)).toEqual(await dumpIndexedTables(reference.url));
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
