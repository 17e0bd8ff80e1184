// query-api over a database filled by the real indexer from a devnet run: launches, curve buys
// and sells, a transfer, a graduation and pool swaps, indexed with `indexToHead`; then every
// route against what happened on chain, a chart recomputed from the trades, and cursor walks
// while new trades keep arriving (the indexer keeps following an automine devnet).

import { createTrader, type Devnet, localPublicClient, type Trader } from "@tmi/devnet";
import { CURVE_ALLOCATION, curveSpotPrice } from "@tmi/shared/chain";
import type { IndexerProcess } from "@tmi/testkit";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type IndexedDevnetApp,
  openApiValidator,
  type QueryApiApp,
  startIndexedDevnetApp,
} from "./harness.js";

const ETH = 10n ** 18n;
const WAD = 10n ** 18n;

let env: IndexedDevnetApp<QueryApiApp>;
let devnet: Devnet;
let indexer: IndexerProcess;
let pool: pg.Pool;
let app: QueryApiApp;
let validate: (path: string, body: unknown) => void;
const traders: Trader[] = [];
const hashes = new Map<string, string[]>(); // token → trade transaction hashes, in order
let alpha: `0x${string}`;
let beta: `0x${string}`;
let grad: `0x${string}`;
let pool3: `0x${string}`;
let alphaCreateTx: string;

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
const get = async (url: string): Promise<{ status: number; body: any }> => {
  const res = await app.inject({ url });
  return { status: res.statusCode, body: res.json() };
};

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies
async function walk(url: string, limit: number, between?: () => Promise<void>): Promise<any[]> {
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies
  const items: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const sep = url.includes("?") ? "&" : "?";
    const res = await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    items.push(...(res.body.items ?? res.body.tokens));
    cursor = res.body.next_cursor;
    if (cursor === undefined) return items;
    await between?.();
  }
}

const record = (token: string, hash: string) => {
  const list = hashes.get(token) ?? [];
  list.push(hash);
  hashes.set(token, list);
};

/** The history indexed before the tests: launches, trades, a transfer, a graduation, a pool swap. */
async function makeHistory(): Promise<void> {
  for (const account of [1, 2, 3, 4])
    traders.push(createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }));
  const [a, b, c, d] = traders as [Trader, Trader, Trader, Trader];

  const created1 = await a.createToken("Alpha Token", "ALPHA", { value: ETH / 10n });
  alpha = created1.token;
  alphaCreateTx = created1.hash;
  record(alpha, created1.firstBuy!.hash); // createToken is not payable: the first buy follows
  const created2 = await b.createToken("Beta Ünïcode", "BETA");
  beta = created2.token;
  const created3 = await a.createToken("Grad", "GRAD", { value: ETH / 100n });
  grad = created3.token;
  record(grad, created3.firstBuy!.hash);

  for (let i = 0; i < 6; i++) {
    const trader = traders[i % 4]!;
    record(alpha, (await trader.buy(alpha, ETH / 20n + BigInt(i) * 10n ** 15n)).hash);
  }
  const balance = await b.balanceOf(alpha);
  record(alpha, (await b.sell(alpha, balance / 2n)).hash);
  await c.transfer(alpha, d.address, (await c.balanceOf(alpha)) / 3n);
  record(beta, (await c.buy(beta, ETH / 50n)).hash);

  const graduated = await d.graduate(grad);
  record(grad, graduated.hash);
  pool3 = graduated.pool;
  record(grad, (await c.swapExactEthForTokens(grad, ETH / 10n)).hash);
}

beforeAll(async () => {
  env = await startIndexedDevnetApp({
    beforeIndex: async (started) => {
      devnet = started;
      await makeHistory();
    },
  });
  ({ indexer, reader: pool, app } = env);
  const check = await openApiValidator(app);
  validate = (path, body) => check(path, 200, body);
}, 240_000);

afterAll(() => env?.stop());

describe("over the real indexer", () => {
  test("default: token list and detail match the chain", async () => {
    const list = await get("/api/v1/tokens");
    expect(list.status).toBe(200);
    validate("/api/v1/tokens", list.body);
    expect(list.body.items.map((t: { address: string }) => t.address)).toEqual([grad, beta, alpha]);
    const item = list.body.items[2];
    expect(item).toMatchObject({
      address: alpha,
      creator: traders[0]!.address,
      name: "Alpha Token",
      symbol: "ALPHA",
      initial_supply: "1000000000000000000000000000",
      created_at: { transaction_hash: alphaCreateTx },
    });
    expect(item.metrics.trade_count).toBe(hashes.get(alpha)!.length);
    expect(item.metrics.sell_count).toBe(1);
    expect(item.metrics.holder_count).toBeGreaterThanOrEqual(4);

    const detail = await get(`/api/v1/tokens/${alpha}`);
    validate("/api/v1/tokens/{address}", detail.body);
    for (const key of ["graduation", "metadata_verified", "image_url", "description"]) {
      expect(detail.body).not.toHaveProperty(key);
    }
    const curve = detail.body.curve;
    expect(curve).toMatchObject({
      address: (await traders[0]!.curveOf(alpha)).toLowerCase(),
      supply: "1000000000000000000000000000",
      graduation_threshold: CURVE_ALLOCATION.toString(),
      lifecycle: "active",
    });
    expect(BigInt(curve.sold_supply)).toBeGreaterThan(0n);
    expect(BigInt(curve.reserve_balance)).toBeGreaterThan(0n);
    expect(curve.progress_bps).toBe(Number((BigInt(curve.sold_supply) * 10_000n) / CURVE_ALLOCATION));
    // The curve's spotPrice() formula over the indexed state (docs/api.md "Units").
    expect(detail.body.metrics.current_price).toBe(
      curveSpotPrice(BigInt(curve.sold_supply), BigInt(curve.reserve_balance)).toString(),
    );
    expect(detail.body.metrics.latest_trade_timestamp).toBeTypeOf("number");
    expect(item.curve).toEqual(curve);

    const graduated = await get(`/api/v1/tokens/${grad}`);
    validate("/api/v1/tokens/{address}", graduated.body);
    expect(graduated.body.curve).toMatchObject({ lifecycle: "graduated", progress_bps: 10_000 });
    expect(graduated.body.graduation).toMatchObject({
      phase: "graduated",
      canonical_pool_address: pool3.toLowerCase(),
      sold_supply: CURVE_ALLOCATION.toString(),
    });
    expect(graduated.body.graduation.curve_terminal_at.block_number).toBeTypeOf("number");
    expect(graduated.body.graduation.settled_at.block_number).toBeTypeOf("number");
  });

  test("behavior: pricing source follows graduation and pool swaps", async () => {
    const curve = await get(`/api/v1/tokens/${alpha}/pricing`);
    validate("/api/v1/tokens/{address}/pricing", curve.body);
    expect(curve.body.source).toBe("indexed_v3_curve");
    const market = await get(`/api/v1/tokens/${grad}/pricing`);
    expect(market.body.source).toBe("indexed_v3_market");
    expect(market.body.current_price).not.toBeNull();
    expect(BigInt(market.body.fully_diluted_value)).toBe(
      (BigInt(market.body.current_price) * 10n ** 27n) / WAD,
    );
  });

  test("behavior: trades and activity are the chain's, newest first", async () => {
    const trades = await get(`/api/v1/tokens/${alpha}/trades?limit=100`);
    validate("/api/v1/tokens/{address}/trades", trades.body);
    const items = trades.body.items;
    expect(items.map((t: { transaction_hash: string }) => t.transaction_hash)).toEqual(
      [...hashes.get(alpha)!].reverse(),
    );
    expect(items[0].side).toBe("sell");
    for (const t of items) {
      expect(t.token_address).toBe(alpha);
      expect(t.source).toBe("curve");
      // A curve buy: reserve_amount = acceptedGross = curve_value (net) + the 1 % fee, of which
      // protocol_fee and creator_fee are two shares (community and trader rewards stay in the activity).
      if (t.side === "buy") {
        const fee = BigInt(t.reserve_amount) - BigInt(t.curve_value);
        expect(fee).toBe((BigInt(t.reserve_amount) * 100n) / 10_000n);
        expect(BigInt(t.protocol_fee) + BigInt(t.creator_fee)).toBeLessThanOrEqual(fee);
      }
    }
    const swaps = await get(`/api/v1/tokens/${grad}/trades`);
    expect(swaps.body.items[0]).toMatchObject({
      source: "uniswap_v3",
      side: "buy",
      protocol_fee: "0",
      creator_fee: "0",
    });

    const activity = await get(`/api/v1/tokens/${alpha}/activity?limit=100`);
    validate("/api/v1/tokens/{address}/activity", activity.body);
    const names = activity.body.items.map((e: { event_name: string }) => e.event_name);
    expect(names).toContain("TokenLaunchedV3");
    expect(names).toContain("TokensBought");
    expect(names).toContain("TokensSold");
    expect(names).toContain("Transfer"); // the token's ERC-20 transfers
    const gradActivity = await get(`/api/v1/tokens/${grad}/activity?limit=100`);
    const gradNames = gradActivity.body.items.map((e: { event_name: string }) => e.event_name);
    expect(gradNames).toContain("Graduated");
    expect(gradNames).toContain("GraduatedV3");
    expect(gradNames).toContain("Swap"); // the pool's swaps
    const bought = activity.body.items.find((e: { event_name: string }) => e.event_name === "TokensBought");
    expect(bought.decoded.token.toLowerCase()).toBe(alpha);
    // Newest first by position.
    const positions = activity.body.items.map(
      (e: { block_number: number; log_index: number }) => e.block_number * 10_000 + e.log_index,
    );
    expect(positions).toEqual([...positions].sort((x: number, y: number) => y - x));
  });

  test("behavior: chart equals a recomputation from the trades", async () => {
    const client = localPublicClient(devnet.rpcUrl, devnet.chainId);
    const trades = await walk(`/api/v1/tokens/${alpha}/trades?order=asc`, 3);
    const { rows } = await pool.query<{ transaction_hash: string; price: string }>(
      "SELECT transaction_hash, price::text AS price FROM trades WHERE token_address = $1",
      [alpha],
    );
    const prices = new Map(rows.map((row) => [row.transaction_hash, BigInt(row.price)]));
    const times = new Map<number, number>();
    for (const t of trades) {
      if (!times.has(t.block_number))
        times.set(
          t.block_number,
          Number((await client.getBlock({ blockNumber: BigInt(t.block_number) })).timestamp),
        );
    }
    for (const interval of [
      ["1m", 60],
      ["1h", 3600],
      ["1w", 604_800],
    ] as const) {
      const [name, size] = interval;
      const origin = name === "1w" ? 345_600 : 0;
      const bucketOf = (ts: number) => Math.floor((ts - origin) / size) * size + origin;
      const expected = new Map<
        number,
        { n: number; b: number; s: number; v: bigint; bv: bigint; u: Set<string>; p: bigint[] }
      >();
      for (const t of trades) {
        const b = bucketOf(times.get(t.block_number)!);
        const e = expected.get(b) ?? { n: 0, b: 0, s: 0, v: 0n, bv: 0n, u: new Set<string>(), p: [] };
        e.n += 1;
        if (t.side === "buy") e.b += 1;
        else e.s += 1;
        e.v += BigInt(t.curve_value); // volume = Σ curve_value
        if (t.side === "buy") e.bv += BigInt(t.curve_value); // buy_volume: the buys' part
        e.u.add(t.trader);
        e.p.push(prices.get(t.transaction_hash)!); // the price after the trade, as indexed
        expected.set(b, e);
      }
      const chart = await get(`/api/v1/tokens/${alpha}/chart?interval=${name}&limit=1000`);
      expect(chart.status).toBe(200);
      validate("/api/v1/tokens/{address}/chart", chart.body);
      const candles = chart.body.candles;
      for (let i = 1; i < candles.length; i++)
        expect(candles[i].bucket_start - candles[i - 1].bucket_start).toBe(size);
      for (const c of candles) {
        const e = expected.get(c.bucket_start);
        if (!e) {
          expect(c).toMatchObject({ trade_count: 0, volume: "0", open_price: null, close_price: null });
          continue;
        }
        // biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
        const max = e.p.reduce((x, y) => (y > x ? y : x));
        // biome-ignore lint/complexity/useMathMinMax: bigints (Math.min takes numbers)
        const min = e.p.reduce((x, y) => (y < x ? y : x));
        expect(c, `${name} ${c.bucket_start}`).toEqual({
          bucket_start: c.bucket_start,
          trade_count: e.n,
          buy_count: e.b,
          sell_count: e.s,
          volume: e.v.toString(),
          buy_volume: e.bv.toString(),
          sell_volume: (e.v - e.bv).toString(),
          unique_trader_count: e.u.size,
          open_price: e.p[0]!.toString(),
          high_price: max.toString(),
          low_price: min.toString(),
          close_price: e.p.at(-1)!.toString(),
        });
      }
      // Every bucket with trades is in the chart.
      for (const b of expected.keys())
        expect(candles.some((c: { bucket_start: number }) => c.bucket_start === b)).toBe(true);
    }
  });

  test("behavior: cursor walks visit every trade once while new trades arrive", async () => {
    const before = (await walk(`/api/v1/tokens/${alpha}/trades`, 100)).map((t) => t.transaction_hash);
    const [a, b] = traders as [Trader, Trader];
    let n = 0;
    const trade = async () => {
      const hash = (await (n++ % 2 === 0 ? a : b).buy(alpha, 10n ** 15n)).hash;
      record(alpha, hash);
      await indexer.waitForBlock(
        Number(await localPublicClient(devnet.rpcUrl, devnet.chainId).getBlockNumber()),
        30_000,
      );
    };
    // Newest first: the walk goes back from its first page; trades that arrive meanwhile are newer.
    const desc = await walk(`/api/v1/tokens/${alpha}/trades`, 2, trade);
    const descHashes = desc.map((t) => t.transaction_hash);
    expect(new Set(descHashes).size).toBe(descHashes.length);
    expect(descHashes).toEqual(before);
    // Oldest first: the walk reaches the trades that arrived meanwhile, each once.
    const asc = await walk(`/api/v1/tokens/${alpha}/trades?order=asc`, 2, trade);
    const ascHashes = asc.map((t) => t.transaction_hash);
    expect(new Set(ascHashes).size).toBe(ascHashes.length);
    expect(ascHashes.slice(0, before.length)).toEqual([...before].reverse());
    expect(ascHashes.length).toBeGreaterThan(before.length);
    // Everything on chain is indexed and served once.
    const all = (await walk(`/api/v1/tokens/${alpha}/trades?order=asc`, 100)).map((t) => t.transaction_hash);
    expect(all).toEqual(hashes.get(alpha));
    // Activity pages the same way.
    const activity = await walk(`/api/v1/tokens/${alpha}/activity`, 3, trade);
    const keys = activity.map((e) => `${e.block_number}:${e.log_index}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("behavior: trending, creators and search over indexed data", async () => {
    const trending = await get("/api/v1/trending");
    validate("/api/v1/trending", trending.body);
    // Window volume order: the graduation buy dominates.
    expect(trending.body.items[0].address).toBe(grad);
    expect(new Set(trending.body.items.map((t: { address: string }) => t.address))).toEqual(
      new Set([alpha, beta, grad]),
    );
    const creator = await get(`/api/v1/creators/${traders[0]!.address}`);
    validate("/api/v1/creators/{address}", creator.body);
    expect(creator.body.token_count).toBe(2);
    expect(creator.body.tokens.map((t: { address: string }) => t.address)).toEqual([grad, alpha]);
    expect(BigInt(creator.body.volume)).toBe(
      creator.body.tokens.reduce(
        (sum: bigint, t: { metrics: { volume: string } }) => sum + BigInt(t.metrics.volume),
        0n,
      ),
    );
    const search = await get(`/api/v1/tokens?search=${encodeURIComponent("beta ü")}`);
    expect(search.body.items.map((t: { address: string }) => t.address)).toEqual([beta]);
    const bySymbol = await get("/api/v1/tokens?search=gra");
    expect(bySymbol.body.items.map((t: { address: string }) => t.address)).toEqual([grad]);
    const byAddress = await get(
      `/api/v1/tokens?search=${alpha.slice(0, 12).toUpperCase().replace("0X", "0x")}`,
    );
    expect(byAddress.body.items.map((t: { address: string }) => t.address)).toContain(alpha);
  });
});
