// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Issue-8 additions of the token and trade routes over the real indexer on a devnet: `usd` of token
// items and detail against a recomputation from the indexed ETH/USD answer (rounds set with
// `setEthUsdRound`), `reserve_amount_usd` with the answer in force at each trade's block (the answer
// changes between trades), `stats` against a recomputation from the trades of each window (trades
// spread over 27 h with `evm_increaseTime`), nulls when no answer is indexed; then query-api as its
// own process (main.ts): the live stream delivers an indexed trade, and with TRUST_PROXY the
// per-IP stream cap counts the client of `X-Forwarded-For`, not the proxy.

import {
  createTrader,
  type Devnet,
  localPublicClient,
  rpc,
  setEthUsdRound,
  startDevnet,
  type Trader,
} from "@tmi/devnet";
import { curveSpotPrice } from "@tmi/shared/chain";
import { createLogger } from "@tmi/shared/logger";
import {
  createTestDatabase,
  devnetIndexerOptions,
  type IndexerProcess,
  indexToHead,
  type ServiceProcess,
  startServiceProcess,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import { createReadPool } from "../src/db.js";
import { openSse, type SseClient } from "./fixtures.js";
import { openApiValidator } from "./harness.js";

const ETH = 10n ** 18n;
const A1 = 250_012_345_678n; // 2,500.12345678 USD per ETH (8 decimals)
const A2 = 310_000_000_001n; // 3,100.00000001

interface Env {
  database: TestDatabase;
  indexer: IndexerProcess;
  pool: pg.Pool;
  app: Awaited<ReturnType<typeof buildApp>>;
}

let devnet: Devnet;
let withFeed: Env; // the indexer records the ETH/USD feed
let withoutFeed: Env; // no ETH/USD answer is ever indexed
let validate: (path: string, body: unknown) => void;
let traders: [Trader, Trader, Trader, Trader];
let token: `0x${string}`;
/** Transaction hashes of the trades made while A1 was the latest answer. */
const atA1 = new Set<string>();
let server: ServiceProcess | undefined;
const clients: SseClient[] = [];

/** `wei` × `answer` / 10^26 as an exact decimal string (trailing zeros trimmed), computed independently. */
function usd(wei: bigint, answer: bigint): string {
  const scaled = wei * answer;
  const unit = 10n ** 26n;
  const fraction = (scaled % unit).toString().padStart(26, "0").replace(/0+$/, "");
  return `${scaled / unit}${fraction ? `.${fraction}` : ""}`;
}

/** The indexed post-trade price (wei per whole token) of each trade of `token`, by transaction hash. */
async function priceByTransaction(of: string): Promise<Map<string, bigint>> {
  const { rows } = await withFeed.pool.query<{ transaction_hash: string; price: string }>(
    "SELECT transaction_hash, price::text AS price FROM trades WHERE token_address = $1",
    [of],
  );
  return new Map(rows.map((row) => [row.transaction_hash, BigInt(row.price)]));
}

async function get(env: Env, url: string): Promise<any> {
  const res = await env.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return res.json();
}

async function open(database: TestDatabase, feed: boolean): Promise<Env> {
  const indexer = await indexToHead({
    ...devnetIndexerOptions(devnet, database.url, { ethUsdFeed: feed }),
    timeoutMs: 90_000,
  });
  const pool = createReadPool({ url: database.url, max: 4 });
  const app = await buildApp({
    pool,
    config: { cursorSecret: "additions-test-cursor-secret-0123456789", corsOrigins: "*" },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
  return { database, indexer, pool, app };
}

const advance = (seconds: number) => rpc(devnet.rpcUrl, "evm_increaseTime", [seconds]);

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine" });
  traders = [1, 2, 3, 4].map((account) =>
    createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
  ) as [Trader, Trader, Trader, Trader];
  const [a, b, c, d] = traders;
  const round = async (roundId: bigint, answer: bigint) => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    await setEthUsdRound(devnet.rpcUrl, devnet.deployment, {
      roundId,
      answer,
      startedAt: now,
      updatedAt: now,
      answeredInRound: roundId,
    });
  };

  // 27 h 20 min before the end: launch and a buy at A1.
  await round(2n, A1);
  const created = await a.createToken("Usd Stats", "USDS", { value: ETH / 20n });
  token = created.token;
  atA1.add(created.firstBuy!.hash); // createToken is not payable: the first buy is its own transaction
  atA1.add((await b.buy(token, ETH / 10n)).hash);
  await round(3n, A2);
  // 7 h 20 min before the end (in 24h only).
  await advance(20 * 3600);
  await c.buy(token, ETH / 5n);
  await b.sell(token, (await b.balanceOf(token)) / 2n);
  // 1 h 20 min before the end (in 6h and 24h).
  await advance(6 * 3600);
  await d.buy(token, ETH / 20n);
  // 10 min before the end (in 1h, 6h, 24h).
  await advance(70 * 60);
  await c.sell(token, (await c.balanceOf(token)) / 3n);
  // The end (in every window).
  await advance(10 * 60);
  await a.buy(token, (ETH * 3n) / 10n);
  await d.buy(token, ETH / 100n);

  const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  [withFeed, withoutFeed] = await Promise.all([open(first, true), open(second, false)]);

  const check = await openApiValidator(withFeed.app);
  validate = (path, body) => check(path, 200, body);
}, 240_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.stop();
  for (const env of [withFeed, withoutFeed]) {
    await env?.app.close();
    await env?.pool.end();
    await env?.indexer.stop();
    await env?.database.drop();
  }
  await devnet?.stop();
});

describe("usd, reserve_amount_usd and stats over the real indexer", () => {
  test("default: usd of token items and detail is the wei values × the latest indexed answer", async () => {
    const list = await get(withFeed, "/api/v1/tokens");
    validate("/api/v1/tokens", list);
    const item = list.items.find((t: { address: string }) => t.address === token);
    const m = item.metrics;
    expect(item.usd).toEqual({
      price: usd(BigInt(m.current_price), A2),
      fully_diluted_value: usd(BigInt(m.fully_diluted_value), A2),
      volume: usd(BigInt(m.volume), A2),
    });
    expect(item.usd.price).toMatch(/^0\.0000\d+$/); // small prices are not rounded away

    const detail = await get(withFeed, `/api/v1/tokens/${token}`);
    validate("/api/v1/tokens/{address}", detail);
    expect(detail.usd).toEqual(item.usd);
    // The spec fields are unchanged: the price is still wei per whole token.
    expect(detail.metrics.current_price).toBe(
      curveSpotPrice(BigInt(detail.curve.sold_supply), BigInt(detail.curve.reserve_balance)).toString(),
    );

    for (const path of [
      "/api/v1/trending",
      `/api/v1/creators/${traders[0].address}`,
      `/api/v1/creators/${traders[0].address}/tokens`,
    ]) {
      const body = await get(withFeed, path);
      validate(path.replace(traders[0].address, "{address}"), body);
      const tokens = body.items ?? body.tokens;
      expect(tokens.find((t: { address: string }) => t.address === token)?.usd, path).toEqual(item.usd);
    }
  });

  test("behavior: reserve_amount_usd uses the answer in force at the trade's block", async () => {
    const trades = await get(withFeed, `/api/v1/tokens/${token}/trades?limit=100&order=asc`);
    validate("/api/v1/tokens/{address}/trades", trades);
    expect(trades.items).toHaveLength(8);
    let seenA1 = 0;
    for (const t of trades.items) {
      const answer = atA1.has(t.transaction_hash) ? A1 : A2;
      if (answer === A1) seenA1 += 1;
      expect(t.reserve_amount_usd, t.transaction_hash).toBe(usd(BigInt(t.reserve_amount), answer));
    }
    expect(seenA1).toBe(2);
  });

  test("behavior: stats equal a recomputation from the trades of each window", async () => {
    const client = localPublicClient(devnet.rpcUrl, devnet.chainId);
    const trades = (await get(withFeed, `/api/v1/tokens/${token}/trades?limit=100&order=asc`)).items;
    const times = new Map<number, number>();
    for (const t of trades)
      if (!times.has(t.block_number))
        times.set(
          t.block_number,
          Number((await client.getBlock({ blockNumber: BigInt(t.block_number) })).timestamp),
        );
    const now = (await get(withFeed, "/api/v1/status")).indexed_at as number;
    const detail = await get(withFeed, `/api/v1/tokens/${token}`);
    expect(Object.keys(detail.stats)).toEqual(["5m", "15m", "30m", "1h", "6h", "24h"]);
    const windows = [
      ["5m", 300, 60],
      ["15m", 900, 60],
      ["30m", 1_800, 60],
      ["1h", 3600, 60],
      ["6h", 21_600, 300],
      ["24h", 86_400, 900],
    ] as const;
    // A trade's price in the rollups is the price after it (the curve's spotPrice()), as indexed.
    const indexedPrices = await priceByTransaction(token);
    const priceOf = (t: { transaction_hash: string }) => indexedPrices.get(t.transaction_hash)!;
    const counts: number[] = [];
    for (const [name, seconds, bucket] of windows) {
      const start = Math.floor(now / bucket) * bucket - seconds + bucket;
      const inside = trades.filter((t: any) => times.get(t.block_number)! >= start);
      const before = trades.filter((t: any) => times.get(t.block_number)! < start);
      const startPrice = before.length > 0 ? priceOf(before.at(-1)) : null;
      const lastPrice = priceOf(trades.at(-1));
      const of = (side: string) =>
        new Set(inside.filter((t: any) => t.side === side).map((t: any) => t.trader));
      const volumeOf = (side?: string) =>
        inside
          .filter((t: { side: string }) => side === undefined || t.side === side)
          .reduce((sum: bigint, t: { curve_value: string }) => sum + BigInt(t.curve_value), 0n);
      expect(detail.stats[name], name).toEqual({
        volume: volumeOf().toString(),
        buy_volume: volumeOf("buy").toString(),
        sell_volume: volumeOf("sell").toString(),
        net_volume: (volumeOf("buy") - volumeOf("sell")).toString(),
        trade_count: inside.length,
        buy_count: inside.filter((t: { side: string }) => t.side === "buy").length,
        sell_count: inside.filter((t: { side: string }) => t.side === "sell").length,
        unique_buyers: of("buy").size,
        unique_sellers: of("sell").size,
        unique_traders: new Set(inside.map((t: any) => t.trader)).size,
        price_change_bps:
          startPrice === null || startPrice === 0n
            ? null
            : Number(((lastPrice - startPrice) * 10_000n) / startPrice),
      });
      if (name !== "15m" && name !== "30m") counts.push(inside.length);
    }
    // The trades were spread so that every window of 5m, 1h, 6h and 24h holds a different set.
    expect(counts).toEqual([2, 3, 4, 6]);
    expect(detail.stats["24h"].price_change_bps).not.toBeNull();
  });

  test("behavior: usd and reserve_amount_usd are null when no ETH/USD answer is indexed", async () => {
    const list = await get(withoutFeed, "/api/v1/tokens");
    validate("/api/v1/tokens", list);
    expect(list.items.find((t: { address: string }) => t.address === token).usd).toBeNull();
    const detail = await get(withoutFeed, `/api/v1/tokens/${token}`);
    validate("/api/v1/tokens/{address}", detail);
    expect(detail.usd).toBeNull();
    // Stats need no answer: the same as with the feed.
    expect(detail.stats).toEqual((await get(withFeed, `/api/v1/tokens/${token}`)).stats);
    const trades = await get(withoutFeed, `/api/v1/tokens/${token}/trades?limit=100`);
    validate("/api/v1/tokens/{address}/trades", trades);
    expect(trades.items).toHaveLength(8);
    expect(trades.items.every((t: { reserve_amount_usd: unknown }) => t.reserve_amount_usd === null)).toBe(
      true,
    );
  });

  test("behavior: the OpenAPI document has every addition", async () => {
    const doc: any = (await withFeed.app.inject({ url: "/api/v1/openapi.json" })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/v1/tokens/{address}/holders", "/api/v1/status"]),
    );
    const text = JSON.stringify(doc);
    for (const field of ['"usd"', '"stats"', '"reserve_amount_usd"', '"price_change_bps"', '"unique_buyers"'])
      expect(text).toContain(field);
  });
});

describe("query-api as its own process (main.ts)", () => {
  test("behavior: the live stream delivers an indexed trade; the per-IP cap sees the forwarded client", async () => {
    server = startServiceProcess({
      service: "query-api",
      env: {
        PORT: "0",
        DATABASE_URL: withFeed.database.url,
        DATABASE_READ_URL: undefined,
        TRUST_PROXY: "loopback",
        CURSOR_SECRET: "process-test-cursor-secret-0123456789",
      },
    });
    const base = await waitFor(
      () => {
        if (server!.child.exitCode !== null) throw new Error(`query-api exited:\n${server!.output()}`);
        return /"address":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*query-api listening/.exec(server!.output())?.[1];
      },
      { timeoutMs: 60_000, message: "query-api did not start" },
    );

    // The production app has the stream, and its OpenAPI document lists every addition.
    const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/api/v1/tokens/{address}/holders", "/api/v1/status", "/api/v1/stream"]),
    );
    for (const field of ['"usd"', '"stats"', '"reserve_amount_usd"'])
      expect(JSON.stringify(doc)).toContain(field);

    const sse = await openSse(`${base}/api/v1/stream?tokens=${token}&events=trade`, {
      "x-forwarded-for": "203.0.113.7",
    });
    clients.push(sse);
    expect(sse.status).toBe(200);
    const buy = await traders[1].buy(token, ETH / 50n);
    await sse.waitFor(
      (events) => events.some((e) => e.event === "trade" && e.data.transaction_hash === buy.hash),
      20_000,
    );
    expect(sse.events.find((e) => e.data.transaction_hash === buy.hash)?.data).toMatchObject({
      token_address: token,
      trader: traders[1].address,
      side: "buy",
      reserve_amount: (ETH / 50n).toString(),
      reserve_amount_usd: usd(ETH / 50n, A2), // as on the trades page
    });

    // 10 streams per client IP: the forwarded client 203.0.113.7 has used one; nine more fill its cap.
    for (let i = 0; i < 9; i++) {
      const more = await openSse(`${base}/api/v1/stream`, { "x-forwarded-for": "203.0.113.7" });
      clients.push(more);
      expect(more.status).toBe(200);
    }
    const refused = await openSse(`${base}/api/v1/stream`, { "x-forwarded-for": "203.0.113.7" });
    clients.push(refused);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "rate_limited" } });
    // Another client behind the same proxy (the same socket address) is not affected.
    const other = await openSse(`${base}/api/v1/stream`, { "x-forwarded-for": "198.51.100.9" });
    clients.push(other);
    expect(other.status).toBe(200);
  }, 120_000);
});
