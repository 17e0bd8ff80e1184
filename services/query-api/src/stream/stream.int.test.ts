import { createHttpApp } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase, waitFor } from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commitIndexed,
  insertGraduation,
  insertToken,
  insertTrade,
  openSse,
  rebuildCandles,
  type SseClient,
  testAddress,
  upsertCheckpoint,
} from "../../test/fixtures.js";
import type { StreamHub } from "./stream-hub.js";
import { type StreamRoutesConfig, streamRoutes } from "./stream-routes.js";

// Driven by rows written the way the indexer writes them, committed with `NOTIFY tmi_indexed`.

const T0 = 1_763_700_000n; // a Unix time at a 1w bucket boundary or not: irrelevant
const tokenA = testAddress(0xa1);
const tokenB = testAddress(0xb2);
const alice = testAddress(1, "e");
const bob = testAddress(2, "e");
const carol = testAddress(3, "e");

let db: TestDatabase;
let writer: pg.Pool;
const apps: FastifyInstance[] = [];
const clients: SseClient[] = [];

async function startApp(
  config: StreamRoutesConfig = {},
): Promise<{ url: string; hub: StreamHub; app: FastifyInstance }> {
  const app = createHttpApp({
    service: "query-api",
    logger: createLogger({ service: "query-api", level: "warn" }),
  });
  let hub: StreamHub | undefined;
  await (app as unknown as FastifyInstance).register(
    streamRoutes({ listenerUrl: db.url, config: { pollMs: 200, ...config }, onHub: (h) => (hub = h) }),
  );
  const root = app as unknown as FastifyInstance;
  const address = await root.listen({ host: "127.0.0.1", port: 0 });
  apps.push(root);
  return { url: `${address}/api/v1/stream`, hub: hub!, app: root };
}

async function connect(url: string, headers?: Record<string, string>): Promise<SseClient> {
  const client = await openSse(url, headers);
  clients.push(client);
  return client;
}

let block = 100n;
/** Commits the next block with `work` and notifies. */
async function nextBlock(
  work: (client: pg.PoolClient, block: bigint, timestamp: bigint) => Promise<void>,
): Promise<bigint> {
  block += 1n;
  const b = block;
  const timestamp = T0 + b * 2n;
  await commitIndexed(writer, { from: b, to: b }, async (client) => {
    await work(client, b, timestamp);
    await upsertCheckpoint(client, { block: b, timestamp });
  });
  return b;
}

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 3 });
  writer.on("error", () => {});
  await upsertCheckpoint(writer, { block, timestamp: T0 + block * 2n });
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const app of apps) await app.close();
  await writer?.end();
  await db?.drop();
});

describe("GET /api/v1/stream", () => {
  it("default", async () => {
    const { url, hub } = await startApp();
    const sse = await connect(url);
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(sse.headers["cache-control"]).toContain("no-cache");
    expect(sse.headers["x-accel-buffering"]).toBe("no");
    expect(sse.headers["x-request-id"]).toBeTruthy();

    const created = await nextBlock((c, b, ts) =>
      insertToken(c, { address: tokenA, block: b, timestamp: ts }),
    );
    const traded = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: alice, block: b, logIndex: 1, timestamp: ts }),
    );
    await sse.waitFor((events) => events.some((e) => e.event === "candle"));

    const [first, second, third] = sse.events;
    expect(first).toMatchObject({
      event: "token_created",
      data: { address: tokenA, created_at: { block_number: Number(created) } },
    });
    expect(first?.id).toMatch(new RegExp(`^${created}-0-[0-9a-f]{8}$`));
    expect(second).toMatchObject({
      event: "trade",
      data: {
        token_address: tokenA,
        trader: alice,
        side: "buy",
        block_number: Number(traded),
        log_index: 1,
        source: "curve",
      },
    });
    expect(third).toMatchObject({
      event: "candle",
      data: { token_address: tokenA, interval: "1m", trade_count: 1 },
    });
    expect(third?.id).toBe(`${second?.id}-1m`);
    expect(hub.size).toBe(1);
  });

  it("behavior: graduated events, and filters by tokens, events and interval", async () => {
    const { url } = await startApp();
    const onlyB = await connect(
      `${url}?tokens=${tokenB.toUpperCase().replace("0X", "0x")}&events=trade,graduated`,
    );
    const candles5m = await connect(`${url}?events=candle&interval=5m`);
    await nextBlock((c, b, ts) => insertToken(c, { address: tokenB, block: b, timestamp: ts }));
    await nextBlock(async (c, b, ts) => {
      await insertTrade(c, { token: tokenA, trader: bob, block: b, logIndex: 0, timestamp: ts });
      await insertTrade(c, { token: tokenB, trader: bob, block: b, logIndex: 1, timestamp: ts });
    });
    const graduatedAt = await nextBlock((c, b, ts) =>
      insertGraduation(c, {
        token: tokenB,
        pool: testAddress(0xf00, "d"),
        block: b,
        logIndex: 3,
        timestamp: ts,
      }),
    );
    await onlyB.waitFor((events) => events.some((e) => e.event === "graduated"));
    expect(onlyB.events.map((e) => e.event)).toEqual(["trade", "graduated"]);
    expect(onlyB.events[0]?.data).toMatchObject({ token_address: tokenB });
    expect(onlyB.events[1]?.data).toMatchObject({
      token_address: tokenB,
      pool_address: testAddress(0xf00, "d"),
      block_number: Number(graduatedAt),
    });

    await candles5m.waitFor((events) => events.length >= 2);
    expect(candles5m.events.every((e) => e.event === "candle" && e.data.interval === "5m")).toBe(true);
    expect(new Set(candles5m.events.map((e) => e.data.token_address))).toEqual(new Set([tokenA, tokenB]));
  });

  it("behavior: Last-Event-ID resumes from the ring buffer, then from the database", async () => {
    const { url } = await startApp();
    const first = await connect(`${url}?events=trade`);
    await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: alice, block: b, logIndex: 0, timestamp: ts }),
    );
    await first.waitFor((events) => events.length === 1);
    const lastId = first.events[0]!.id!;
    first.close();
    const missed1 = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: bob, block: b, logIndex: 0, timestamp: ts }),
    );
    const missed2 = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: alice, block: b, logIndex: 2, timestamp: ts }),
    );

    // Same process: from the ring.
    const resumed = await connect(`${url}?events=trade`, { "last-event-id": lastId });
    await resumed.waitFor((events) => events.length === 2);
    expect(resumed.events.map((e) => e.data.block_number)).toEqual([Number(missed1), Number(missed2)]);

    // Another process (empty ring): from the database.
    const other = await startApp();
    const fromDb = await connect(`${other.url}?events=trade`, { "last-event-id": lastId });
    await fromDb.waitFor((events) => events.length === 2);
    expect(fromDb.events.map((e) => e.id)).toEqual(resumed.events.map((e) => e.id));
    const live = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: bob, block: b, logIndex: 0, timestamp: ts }),
    );
    await fromDb.waitFor((events) => events.length === 3);
    expect(fromDb.events[2]?.data.block_number).toBe(Number(live));
  });

  it("behavior: an id too old, unknown or orphaned gets a reset event", async () => {
    const { url } = await startApp({ maxGapBlocks: 3 });
    const tooOld = await connect(url, { "last-event-id": "1-0-00000000" });
    await tooOld.waitFor((events) => events.length === 1);
    expect(tooOld.events[0]).toMatchObject({
      event: "reset",
      data: { reason: "too_old", indexed_block: Number(block) },
    });
    expect(tooOld.events[0]?.id).toBe(`${block + 1n}-reset`);

    const unknown = await connect(url, { "last-event-id": "not-an-id" });
    await unknown.waitFor((events) => events.length === 1);
    expect(unknown.events[0]).toMatchObject({ event: "reset", data: { reason: "unknown_id" } });

    const orphaned = await connect(url, { "last-event-id": `${block}-0-deadbeef` });
    await orphaned.waitFor((events) => events.length === 1);
    expect(orphaned.events[0]).toMatchObject({ event: "reset", data: { reason: "orphaned" } });
  });

  it("behavior: heartbeat comments", async () => {
    const { url } = await startApp({ heartbeatMs: 100 });
    const sse = await connect(url);
    await waitFor(() => sse.comments.filter((c) => c.startsWith("heartbeat")).length >= 2, {
      message: "two heartbeats",
    });
  });

  it("behavior: a reorg is sent as a reorg event and no orphaned trade follows it", async () => {
    const { url } = await startApp();
    const sse = await connect(`${url}?tokens=${tokenA}`);
    const fork = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: alice, block: b, logIndex: 0, timestamp: ts, reserve: 111n }),
    );
    const orphan2 = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: alice, block: b, logIndex: 0, timestamp: ts, reserve: 222n }),
    );
    await sse.waitFor((events) => events.filter((e) => e.event === "trade").length === 2);

    // The indexer rolls back blocks fork..orphan2 and indexes the new branch (1 block) in one transaction.
    const ts = T0 + fork * 2n;
    await commitIndexed(writer, { from: fork, to: fork, reorg: { from: fork, to: orphan2 } }, async (c) => {
      await c.query("DELETE FROM trades WHERE block_number >= $1", [fork.toString()]);
      await c.query("DELETE FROM chain_events WHERE block_number >= $1", [fork.toString()]);
      await c.query("DELETE FROM blocks WHERE number >= $1", [fork.toString()]);
      await rebuildCandles(c, tokenA, ts);
      await rebuildCandles(c, tokenA, T0 + orphan2 * 2n);
      await insertTrade(c, {
        token: tokenA,
        trader: bob,
        block: fork,
        logIndex: 0,
        timestamp: ts,
        reserve: 333n,
        branch: 1,
      });
      await upsertCheckpoint(c, {
        block: fork,
        timestamp: ts,
        branch: 1,
        reorg: { from: fork, to: orphan2 },
      });
    });
    block = fork;
    await sse.waitFor((events) => events.some((e) => e.event === "trade" && e.data.reserve_amount === "333"));
    const afterReorg = sse.events.slice(sse.events.findIndex((e) => e.event === "reorg"));
    expect(afterReorg[0]).toMatchObject({
      event: "reorg",
      data: { from_block: Number(fork), to_block: Number(orphan2), depth: 2 },
    });
    const trades = afterReorg.filter((e) => e.event === "trade");
    expect(trades.map((e) => e.data.reserve_amount)).toEqual(["333"]);
    expect(trades[0]?.id).not.toBe(sse.events.find((e) => e.event === "trade")?.id); // same position, new block hash

    // Resuming from an orphaned id replays the reorg and the new branch, never the orphaned trade.
    const orphanedId = sse.events.find((e) => e.event === "trade" && e.data.reserve_amount === "222")!.id!;
    const resumed = await connect(`${url}?tokens=${tokenA}&events=trade`, { "last-event-id": orphanedId });
    await resumed.waitFor((events) => events.some((e) => e.event === "trade"));
    expect(resumed.events.map((e) => e.event)).toEqual(["reorg", "trade"]);
    expect(resumed.events[1]?.data.reserve_amount).toBe("333");
  });

  it("behavior: after a reorg, a candle that only orphaned trades touched is sent again, emptied", async () => {
    const { url } = await startApp();
    const sse = await connect(`${url}?tokens=${tokenB}&events=candle&interval=1h`);
    block += 1n;
    const b = block;
    const ts = T0 + b * 2n + 86_400n; // a bucket of its own
    await commitIndexed(writer, { from: b, to: b }, async (c) => {
      await insertTrade(c, {
        token: tokenB,
        trader: alice,
        block: b,
        logIndex: 0,
        timestamp: ts,
        reserve: 888n,
      });
      await upsertCheckpoint(c, { block: b, timestamp: ts });
    });
    await sse.waitFor((events) => events.length === 1);
    expect(sse.events[0]?.data).toMatchObject({ interval: "1h", trade_count: 1, volume: "888" });
    // Rolled back, nothing replaces it (the checkpoint goes back one block).
    await commitIndexed(writer, { from: b - 1n, to: b - 1n, reorg: { from: b, to: b } }, async (c) => {
      await c.query("DELETE FROM trades WHERE block_number >= $1", [b.toString()]);
      await c.query("DELETE FROM chain_events WHERE block_number >= $1", [b.toString()]);
      await c.query("DELETE FROM blocks WHERE number >= $1", [b.toString()]);
      await rebuildCandles(c, tokenB, ts);
      await upsertCheckpoint(c, { block: b - 1n, timestamp: T0 + (b - 1n) * 2n, reorg: { from: b, to: b } });
    });
    block = b - 1n;
    await sse.waitFor((events) => events.length === 3);
    expect(sse.events[1]).toMatchObject({
      event: "reorg",
      data: { from_block: Number(b), to_block: Number(b) },
    });
    expect(sse.events[2]).toMatchObject({
      event: "candle",
      data: {
        token_address: tokenB,
        interval: "1h",
        bucket_start: sse.events[0]?.data.bucket_start,
        trade_count: 0,
        volume: "0",
        close_price: null,
      },
    });
    expect(sse.events[2]?.id).toMatch(new RegExp(`^${b}-reorg-${b}-1h-\\d+-[0-9a-f]{8}$`));
  });

  it("behavior: without notifications, the checkpoint poll delivers rows and reorgs", async () => {
    const { url } = await startApp({ pollMs: 100 });
    const sse = await connect(`${url}?tokens=${tokenB}&events=trade`);
    const silent = async (work: (c: pg.PoolClient) => Promise<void>) => {
      const client = await writer.connect();
      try {
        await client.query("BEGIN");
        await work(client);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
    };
    block += 1n;
    const b = block;
    const ts = T0 + b * 2n;
    await silent(async (c) => {
      await insertTrade(c, {
        token: tokenB,
        trader: alice,
        block: b,
        logIndex: 0,
        timestamp: ts,
        reserve: 444n,
      });
      await upsertCheckpoint(c, { block: b, timestamp: ts });
    });
    await sse.waitFor((events) => events.some((e) => e.data.reserve_amount === "444"));
    // A rollback of that block, replaced by another trade, committed without NOTIFY either.
    await silent(async (c) => {
      await c.query("DELETE FROM trades WHERE block_number >= $1", [b.toString()]);
      await c.query("DELETE FROM chain_events WHERE block_number >= $1", [b.toString()]);
      await c.query("DELETE FROM blocks WHERE number >= $1", [b.toString()]);
      await insertTrade(c, {
        token: tokenB,
        trader: bob,
        block: b,
        logIndex: 0,
        timestamp: ts,
        reserve: 555n,
        branch: 2,
      });
      await upsertCheckpoint(c, { block: b, timestamp: ts, branch: 2, reorg: { from: b, to: b } });
    });
    await sse.waitFor((events) => events.some((e) => e.data.reserve_amount === "555"));
    expect(sse.events.map((e) => e.event)).toEqual(["trade", "reorg", "trade"]);
    expect(sse.events[1]?.data).toEqual({ from_block: Number(b), to_block: Number(b), depth: 1 });
  });

  it("behavior: wallets= keeps the trades of those traders only, of any token", async () => {
    const { url } = await startApp();
    const mine = await connect(
      `${url}?wallets=${alice.toUpperCase().replace("0X", "0x")},${carol}&events=trade`,
    );
    const all = await connect(`${url}?events=trade`);
    const b = await nextBlock(async (c, b, ts) => {
      await insertTrade(c, {
        token: tokenA,
        trader: alice,
        block: b,
        logIndex: 0,
        timestamp: ts,
        reserve: 901n,
      });
      await insertTrade(c, {
        token: tokenB,
        trader: bob,
        block: b,
        logIndex: 1,
        timestamp: ts,
        reserve: 902n,
      });
      await insertTrade(c, {
        token: tokenB,
        trader: carol,
        block: b,
        logIndex: 2,
        timestamp: ts,
        reserve: 903n,
      });
    });
    await all.waitFor((events) => events.filter((e) => e.data.block_number === Number(b)).length === 3);
    await mine.waitFor((events) => events.some((e) => e.data.reserve_amount === "903"));
    expect(mine.events.map((e) => [e.data.trader, e.data.reserve_amount])).toEqual([
      [alice, "901"],
      [carol, "903"],
    ]);
  });

  it("behavior: closing the app ends open streams and frees the listener", async () => {
    const { url, app, hub } = await startApp();
    const sse = await connect(url);
    let ended = false;
    sse.onEnd(() => {
      ended = true;
    });
    await app.close();
    await waitFor(() => ended, { intervalMs: 20, message: "stream not ended" });
    expect(hub.size).toBe(0);
  });

  it("behavior: a lost LISTEN connection is re-established and nothing committed meanwhile is missed", async () => {
    const { url } = await startApp({ pollMs: 60_000 }); // no poll: only the reconnect's catch-up can deliver
    const sse = await connect(`${url}?tokens=${tokenA}&events=trade`);
    const killed = await writer.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'query-api-stream-listen'",
    );
    expect(killed.rowCount).toBeGreaterThanOrEqual(1);
    const during = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: carol, block: b, logIndex: 0, timestamp: ts, reserve: 666n }),
    );
    await sse.waitFor((events) => events.some((e) => e.data.block_number === Number(during)), 10_000);
    const after = await nextBlock((c, b, ts) =>
      insertTrade(c, { token: tokenA, trader: carol, block: b, logIndex: 0, timestamp: ts, reserve: 777n }),
    );
    await sse.waitFor((events) => events.some((e) => e.data.block_number === Number(after)), 10_000);
    expect(sse.events.map((e) => e.data.reserve_amount)).toEqual(["666", "777"]);
  });

  it("error: invalid filters", async () => {
    const { app } = await startApp();
    const badInterval = await app.inject({ url: "/api/v1/stream?interval=2m" });
    expect(badInterval.statusCode).toBe(400);
    expect(badInterval.json()).toMatchObject({ error: { code: "invalid_interval" } });
    const badToken = await app.inject({ url: "/api/v1/stream?tokens=0x1234" });
    expect(badToken.statusCode).toBe(400);
    expect(badToken.json()).toMatchObject({ error: { code: "invalid_address" } });
    const badWallet = await app.inject({ url: `/api/v1/stream?wallets=${alice},0x12` });
    expect(badWallet.statusCode).toBe(400);
    expect(badWallet.json()).toMatchObject({
      error: { code: "invalid_address", details: [{ field: "wallets" }] },
    });
    const tooMany = await app.inject({
      url: `/api/v1/stream?wallets=${Array.from({ length: 101 }, (_, i) => testAddress(i + 1, "e")).join(",")}`,
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({
      error: { code: "invalid_request", details: [{ field: "wallets" }] },
    });
    // A filter given but empty is refused, as REST `addresses=,,,` is: it must not open an unfiltered stream.
    for (const url of [
      "/api/v1/stream?wallets=,,,",
      "/api/v1/stream?wallets=",
      "/api/v1/stream?tokens=%20,",
    ]) {
      const empty = await app.inject({ url });
      expect(empty.statusCode, url).toBe(400);
      expect(empty.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
    // The array forms are not parameters of the stream: refused, not ignored.
    for (const key of ["wallets[]", "tokens[0]"]) {
      const arrayForm = await app.inject({ url: `/api/v1/stream?${encodeURIComponent(key)}=${alice}` });
      expect(arrayForm.statusCode, key).toBe(400);
      expect(arrayForm.json()).toMatchObject({
        error: { code: "invalid_request", details: [{ field: key.slice(0, key.indexOf("[")) }] },
      });
    }
    const badEvent = await app.inject({ url: "/api/v1/stream?events=trade,swap" });
    expect(badEvent.statusCode).toBe(400);
    expect(badEvent.json()).toMatchObject({
      error: { code: "invalid_request", details: [{ field: "events" }] },
    });
  });

  it("error: connections over the per-IP cap get 429 rate_limited, and closing frees the slot", async () => {
    const { url, hub } = await startApp({ maxConnectionsPerIp: 2 });
    const a = await connect(url);
    await connect(url);
    const refused = await connect(url);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "rate_limited" } });
    expect(hub.size).toBe(2);
    a.close();
    await waitFor(() => hub.size === 1, { timeoutMs: 3_000, intervalMs: 20, message: "slot not freed" });
    const again = await connect(url);
    expect(again.status).toBe(200);
  });

  it("behavior: the per-IP cap counts the client given by clientIp (e.g. behind the gateway)", async () => {
    const { url } = await startApp({
      maxConnectionsPerIp: 1,
      clientIp: (request) =>
        String(request.headers["x-forwarded-for"] ?? request.ip)
          .split(",")
          .at(-1)!
          .trim(),
    });
    expect((await connect(url, { "x-forwarded-for": "203.0.113.7" })).status).toBe(200);
    expect((await connect(url, { "x-forwarded-for": "203.0.113.8" })).status).toBe(200);
    expect((await connect(url, { "x-forwarded-for": "198.51.100.1, 203.0.113.7" })).status).toBe(429);
  });

  it("error: a burst of first connections from one client gets exactly the cap, also after the stream went idle", async () => {
    const { url, hub } = await startApp({ maxConnectionsPerIp: 3, idleStopMs: 200 });
    const burst = async () => {
      const opened = await Promise.all(Array.from({ length: 12 }, () => connect(url)));
      const ok = opened.filter((c) => c.status === 200);
      const refused = opened.filter((c) => c.status === 429);
      expect(ok).toHaveLength(3);
      expect(refused).toHaveLength(9);
      for (const c of refused) expect(JSON.parse(c.body)).toMatchObject({ error: { code: "rate_limited" } });
      return opened;
    };
    expect(hub.listening).toBe(false);
    for (const c of await burst()) c.close();
    await waitFor(() => hub.size === 0 && !hub.listening, {
      timeoutMs: 10_000,
      intervalMs: 20,
      message: "the hub did not stop when idle",
    });
    await burst();
    expect(hub.size).toBe(3);
  });

  it("error: connections over the process cap get 429 rate_limited, every client together", async () => {
    const { url, hub } = await startApp({
      maxConnections: 2,
      clientIp: (request) => String(request.headers["x-forwarded-for"]),
    });
    const opened = await Promise.all(
      Array.from({ length: 6 }, (_, i) => connect(url, { "x-forwarded-for": `203.0.113.${i + 1}` })),
    );
    expect(opened.filter((c) => c.status === 200)).toHaveLength(2);
    const refused = opened.filter((c) => c.status !== 200);
    expect(refused.map((c) => c.status)).toEqual([429, 429, 429, 429]);
    expect(refused[0]!.headers["retry-after"]).toBe("5");
    expect(JSON.parse(refused[0]!.body)).toMatchObject({ error: { code: "rate_limited" } });
    expect(hub.size).toBe(2);
  });
});
