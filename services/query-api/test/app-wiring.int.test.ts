import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { createReadPool } from "../src/db.js";
import { streamRoutes } from "../src/stream/stream-routes.js";
import {
  insertToken,
  insertTrade,
  openSse,
  rebuildCandles,
  testAddress,
  upsertCheckpoint,
} from "./fixtures.js";

// The additions inside the real app (buildApp): routes, OpenAPI entries, freshness headers.

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;
let app: Awaited<ReturnType<typeof buildApp>>;
const token = testAddress(0x99);

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  await insertToken(writer, { address: token, block: 40n, timestamp: 1_763_700_000n });
  await upsertCheckpoint(writer, { block: 42n, timestamp: 1_763_700_010n });
  app = await buildApp({
    pool: reader,
    logger: createLogger({ service: "query-api", level: "warn" }),
    config: { cursorSecret: "wiring-test-secret-0123456789", corsOrigins: "*" },
    plugins: [streamRoutes({ listenerUrl: db.url })],
  });
});

afterAll(async () => {
  await app?.close();
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

describe("issue-8 additions in buildApp", () => {
  it("default", async () => {
    const status = await app.inject({ url: "/api/v1/status" });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ chain_id: 31337, indexed_block: 42, indexed_at: 1_763_700_010 });

    // Spec routes get the freshness headers too.
    const detail = await app.inject({ url: `/api/v1/tokens/${token}` });
    expect(detail.statusCode).toBe(200);
    expect(detail.headers["x-indexed-block"]).toBe("42");
    expect(detail.headers["x-indexed-at"]).toBe("1763700010");
    const holders = await app.inject({ url: `/api/v1/tokens/${token}/holders` });
    expect(holders.json()).toEqual({ items: [] });
    expect(holders.headers.etag).toBeTruthy();

    const openapi = (await app.inject({ url: "/api/v1/openapi.json" })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(["/api/v1/tokens/{address}/holders", "/api/v1/status", "/api/v1/stream"]),
    );
  });

  it("behavior: the stream is served by the app when passed in plugins", async () => {
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    const sse = await openSse(`${address}/api/v1/stream?tokens=${token}`);
    expect(sse.status).toBe(200);
    expect(sse.headers["access-control-allow-origin"]).toBe("*");
    expect(sse.headers["x-indexed-block"]).toBe("42");
    sse.close();
  });

  it("behavior: detail stats follow the checkpoint (cached per block number and hash)", async () => {
    const stats = async () => (await app.inject({ url: `/api/v1/tokens/${token}` })).json().stats;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 300)); // the checkpoint cache lives 250 ms
    expect((await stats())["5m"]).toMatchObject({ trade_count: 0, volume: "0", price_change_bps: null });

    // A committed trade (rows and checkpoint) shows in the stats of the next block.
    const trader = testAddress(7, "e");
    await insertTrade(writer, { token, trader, block: 43n, logIndex: 0, timestamp: 1_763_700_020n });
    await upsertCheckpoint(writer, { block: 43n, timestamp: 1_763_700_020n });
    await pause();
    expect((await stats())["5m"]).toMatchObject({ trade_count: 1, buy_count: 1, unique_buyers: 1 });
    expect((await stats())["5m"].trade_count).toBe(1); // served from the cache, the same

    // A reorg replaces block 43 without the trade: same number, another hash: recomputed.
    await writer.query("DELETE FROM trades WHERE token_address = $1 AND block_number = 43", [token]);
    await rebuildCandles(writer, token, 1_763_700_020n);
    await upsertCheckpoint(writer, { block: 43n, timestamp: 1_763_700_020n, branch: 1 });
    await pause();
    expect((await stats())["5m"]).toMatchObject({ trade_count: 0, unique_buyers: 0 });
  });
});
