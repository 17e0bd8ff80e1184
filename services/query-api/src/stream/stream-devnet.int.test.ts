import { createTrader, type Devnet, rpc } from "@tmi/devnet";
import { createCursorCodec } from "@tmi/shared/codec";
import { createHttpApp } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import { chainHead, type IndexerProcess, type TestDatabase } from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSse, type SseClient, type SseEvent } from "../../test/fixtures.js";
import { type IndexedDevnetApp, startIndexedDevnetApp } from "../../test/harness.js";
import { freshnessPlugin } from "../freshness/freshness-plugin.js";
import { statusRoutes } from "../status/status-routes.js";
import { holderRoutes } from "../tokens/holders/holder-routes.js";
import { streamRoutes } from "./stream-routes.js";

/** `ether` ETH in wei (up to 6 decimals). */
const parseEther = (ether: string): bigint => BigInt(Math.round(Number(ether) * 1e6)) * 10n ** 12n;

// The real indexer on an automine devnet feeding the stream, holders, status and freshness.

let env: IndexedDevnetApp<FastifyInstance>;
let devnet: Devnet;
let indexer: IndexerProcess;
let app: FastifyInstance;
let base: string;
const clients: SseClient[] = [];

/** Freshness, status, holders and the stream over `reader` (the stream listens on `db`), listening on a free port. */
async function streamApp(reader: pg.Pool, db: TestDatabase): Promise<FastifyInstance> {
  const http = createHttpApp({
    service: "query-api",
    logger: createLogger({ service: "query-api", level: "warn" }),
  }) as unknown as FastifyInstance;
  await http.register(freshnessPlugin({ pool: reader }));
  await http.register(statusRoutes({ db: reader }));
  await http.register(
    holderRoutes({ db: reader, cursors: createCursorCodec("devnet-test-secret-0123456789") }),
  );
  await http.register(streamRoutes({ listenerUrl: db.url, config: { heartbeatMs: 500 } }));
  base = await http.listen({ host: "127.0.0.1", port: 0 });
  return http;
}

beforeAll(async () => {
  env = await startIndexedDevnetApp({ ethUsdFeed: true, app: streamApp });
  ({ devnet, indexer, app } = env);
});

afterAll(async () => {
  for (const c of clients) c.close();
  await env?.stop();
});

async function connect(query = ""): Promise<SseClient> {
  const client = await openSse(`${base}/api/v1/stream${query}`);
  clients.push(client);
  expect(client.status).toBe(200);
  return client;
}

describe("stream, holders and status on the devnet with the real indexer", () => {
  it("default", async () => {
    const all = await connect();
    const creator = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
    const buyer = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
    const { token, receipt } = await creator.createToken("Streamed", "STRM", { value: parseEther("0.05") });
    const onlyToken = await connect(`?tokens=${token}&events=trade,candle,graduated&interval=1h`);
    const buy = await buyer.buy(token, parseEther("0.2"));

    await all.waitFor(
      (events) => events.some((e) => e.event === "trade" && e.data.transaction_hash === buy.hash),
      15_000,
    );
    const created = all.events.find((e) => e.event === "token_created");
    expect(created?.data).toMatchObject({
      address: token,
      name: "Streamed",
      symbol: "STRM",
      creator: creator.address,
    });
    expect(created?.data.created_at).toMatchObject({ block_number: Number(receipt.blockNumber) });
    const trades = all.events.filter((e) => e.event === "trade");
    expect(trades.map((e) => e.data.trader)).toEqual([creator.address, buyer.address]);
    expect(trades[1]?.data).toMatchObject({
      token_address: token,
      side: "buy",
      source: "curve",
      reserve_amount: parseEther("0.2").toString(),
    });
    expect(all.events.filter((e) => e.event === "candle").every((e) => e.data.interval === "1m")).toBe(true);

    await onlyToken.waitFor((events) => events.filter((e) => e.event === "candle").length >= 1, 15_000);
    expect(onlyToken.events.every((e) => e.data.token_address === token)).toBe(true);
    expect(onlyToken.events.filter((e) => e.event === "candle").every((e) => e.data.interval === "1h")).toBe(
      true,
    );

    // Graduation.
    const graduation = await buyer.graduate(token);
    await onlyToken.waitFor((events) => events.some((e) => e.event === "graduated"), 15_000);
    expect(onlyToken.events.find((e) => e.event === "graduated")?.data).toMatchObject({
      token_address: token,
      pool_address: graduation.pool.toLowerCase(),
      transaction_hash: graduation.hash,
    });

    // Holders: on-chain balances, the pool and factory left out.
    await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
    const holders = await app.inject({ url: `/api/v1/tokens/${token}/holders` });
    expect(holders.statusCode).toBe(200);
    // Tags (automine, one transaction per block): the launch, the creator's buy, then the buyer's
    // first buy two blocks after the launch — a sniper.
    const expected = [
      { address: creator.address, balance: await creator.balanceOf(token), tags: ["creator"] },
      { address: buyer.address, balance: await buyer.balanceOf(token), tags: ["sniper"] },
    ]
      .filter((h) => h.balance > 0n)
      .sort((a, b) =>
        a.balance === b.balance ? (a.address < b.address ? -1 : 1) : a.balance > b.balance ? -1 : 1,
      );
    expect(holders.json().items).toEqual(
      expected.map((h) => ({
        address: h.address,
        balance: h.balance.toString(),
        share_bps: Number((h.balance * 10_000n) / 10n ** 27n),
        tags: h.tags,
      })),
    );

    // Status and freshness headers.
    const head = await chainHead(devnet.rpcUrl);
    const status = await app.inject({ url: "/api/v1/status" });
    expect(status.json()).toMatchObject({
      chain_id: devnet.chainId,
      indexed_block: head,
      head_block: head,
      lag_blocks: 0,
      lag_seconds: 0,
    });
    expect(Number(holders.headers["x-indexed-block"])).toBeGreaterThan(0);
    expect(Number(holders.headers["x-indexed-at"])).toBeGreaterThan(1_600_000_000);
  });

  it("behavior: an anvil_reorg is seen on the stream as a reorg event, and no orphaned trade follows it", async () => {
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 3 });
    const { token } = await trader.createToken("Forked", "FORK", { value: parseEther("0.01") });
    const sse = await connect(`?tokens=${token}`);
    const kept = await trader.buy(token, parseEther("0.01"));
    const orphan1 = await trader.buy(token, parseEther("0.02"));
    const orphan2 = await trader.buy(token, parseEther("0.03"));
    const orphaned = new Set<string>([orphan1.hash, orphan2.hash]);
    await sse.waitFor((events) => events.some((e) => e.data.transaction_hash === orphan2.hash), 15_000);

    await rpc(devnet.rpcUrl, "anvil_reorg", [2, []]); // replace the last 2 blocks with empty ones
    const after = await trader.buy(token, parseEther("0.04"));
    await sse.waitFor((events) => events.some((e) => e.data.transaction_hash === after.hash), 20_000);

    const reorgAt = sse.events.findIndex((e) => e.event === "reorg");
    expect(reorgAt).toBeGreaterThan(0);
    const reorg = sse.events[reorgAt]!;
    // The indexer may roll back further than the replaced blocks (down to the last block it can prove canonical).
    const from = Number(reorg.data.from_block);
    expect(from).toBeLessThanOrEqual(Number(orphan1.receipt.blockNumber));
    expect(Number(reorg.data.to_block)).toBeGreaterThanOrEqual(Number(orphan2.receipt.blockNumber));
    const tail: SseEvent[] = sse.events.slice(reorgAt + 1);
    const tailTrades = tail.filter((e) => e.event === "trade");
    expect(tailTrades.filter((e) => orphaned.has(String(e.data.transaction_hash)))).toEqual([]);
    expect(tailTrades.at(-1)?.data.transaction_hash).toBe(after.hash);
    // Re-sent after the reorg: only the surviving trades of the rolled-back range, in order.
    expect(tailTrades.every((e) => Number(e.data.block_number) >= from)).toBe(true);
    const survivors = sse.events
      .slice(0, reorgAt)
      .filter(
        (e) =>
          e.event === "trade" &&
          Number(e.data.block_number) >= from &&
          !orphaned.has(String(e.data.transaction_hash)),
      )
      .map((e) => e.data.transaction_hash);
    expect(tailTrades.map((e) => e.data.transaction_hash)).toEqual([...survivors, after.hash]);
    expect(sse.events.some((e) => e.event === "trade" && e.data.transaction_hash === kept.hash)).toBe(true);
    // The last candle after the reorg counts only surviving trades of its bucket.
    const lastCandle = tail.filter((e) => e.event === "candle").at(-1)!;
    const start = Number(lastCandle.data.bucket_start);
    const surviving = sse.events.filter(
      (e) =>
        e.event === "trade" &&
        !orphaned.has(String(e.data.transaction_hash)) &&
        Number(e.data.block_timestamp) >= start &&
        Number(e.data.block_timestamp) < start + 60,
    );
    expect(lastCandle.data.trade_count).toBe(new Set(surviving.map((e) => e.data.transaction_hash)).size);
  });
});
