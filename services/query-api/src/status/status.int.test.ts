import { createCursorCodec } from "@tmi/shared/codec";
import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertToken, testAddress, upsertCheckpoint } from "../../test/fixtures.js";
import { createReadPool } from "../db.js";
import { freshnessPlugin } from "../freshness/freshness-plugin.js";
import { holderRoutes } from "../tokens/holders/holder-routes.js";
import { statusRoutes } from "./status-routes.js";

const NOW = 1_763_700_000;

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;
let app: HttpApp;

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  app = createHttpApp({
    service: "query-api",
    logger: createLogger({ service: "query-api", level: "warn" }),
  });
  const root = app as unknown as FastifyInstance;
  await root.register(freshnessPlugin({ pool: reader, ttlMs: 100 }));
  await root.register(statusRoutes({ db: reader, chainId: 31337, now: () => NOW }));
  await root.register(
    holderRoutes({ db: reader, cursors: createCursorCodec("status-test-secret-0123456789") }),
  );
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

describe("GET /api/v1/status and freshness headers", () => {
  it("behavior: before the first checkpoint, status has nulls and no freshness headers are sent", async () => {
    const response = await app.inject({ url: "/api/v1/status" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      chain_id: 31337,
      head_block: null,
      head_seen_at: null,
      head_stale: false,
      indexed_block: null,
      lag_blocks: null,
      lag_seconds: null,
      indexed_at: null,
      last_reorg: null,
      read_database: {
        replica: false,
        lag_seconds: 0,
        lag_blocks: 0,
        indexed_block: null,
        replay_paused: false,
      },
      skipped_logs: { count: 0, last: null },
    });
    expect(response.headers["x-indexed-block"]).toBeUndefined();
  });

  it("default", async () => {
    await upsertCheckpoint(writer, { block: 500n, timestamp: BigInt(NOW - 30), head: 503n });
    await new Promise((r) => setTimeout(r, 150)); // past the cache lifetime
    const response = await app.inject({ url: "/api/v1/status" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.json()).toEqual({
      chain_id: 31337,
      head_block: 503,
      head_seen_at: expect.any(Number),
      head_stale: false,
      indexed_block: 500,
      lag_blocks: 3,
      lag_seconds: 30,
      indexed_at: NOW - 30,
      last_reorg: null,
      read_database: {
        replica: false,
        lag_seconds: 0,
        lag_blocks: 0,
        indexed_block: 500,
        replay_paused: false,
      },
      skipped_logs: { count: 0, last: null },
    });
    expect(response.headers["x-indexed-block"]).toBe("500");
    expect(response.headers["x-indexed-at"]).toBe(String(NOW - 30));
  });

  it("behavior: the last reorg and a caught-up indexer", async () => {
    await upsertCheckpoint(writer, {
      block: 510n,
      timestamp: BigInt(NOW - 100),
      reorg: { from: 505n, to: 507n },
    });
    const body = (await app.inject({ url: "/api/v1/status" })).json();
    expect(body).toMatchObject({ head_block: 510, indexed_block: 510, lag_blocks: 0, lag_seconds: 0 });
    expect(body.last_reorg).toMatchObject({ from_block: 505, to_block: 507, depth: 3 });
    expect(Math.abs(body.last_reorg.at - Date.now() / 1000)).toBeLessThan(60);
  });

  it("behavior: a head not read for longer than the indexer's HEAD_STALE_MS (hung node) is stale and the lag grows with its age", async () => {
    await upsertCheckpoint(writer, { block: 515n, timestamp: BigInt(NOW - 25), head: 515n });
    const seen = (age: number, staleAfterMs: number) =>
      writer.query(
        "UPDATE indexer_checkpoints SET head_seen_at = to_timestamp($1), head_stale_after_ms = $2",
        [NOW - age, staleAfterMs],
      );
    await seen(20, 5_000);
    expect((await app.inject({ url: "/api/v1/status" })).json()).toMatchObject({
      head_block: 515,
      head_seen_at: NOW - 20,
      head_stale: true,
      indexed_block: 515,
      lag_blocks: 0,
      lag_seconds: 20,
    });
    // Within the threshold: caught up, no lag.
    await seen(2, 5_000);
    expect((await app.inject({ url: "/api/v1/status" })).json()).toMatchObject({
      head_seen_at: NOW - 2,
      head_stale: false,
      lag_blocks: 0,
      lag_seconds: 0,
    });
    // Behind and stale: the larger of the two.
    await writer.query("UPDATE indexer_checkpoints SET head_block_number = 530");
    await seen(60, 5_000);
    expect((await app.inject({ url: "/api/v1/status" })).json()).toMatchObject({
      head_block: 530,
      head_stale: true,
      lag_blocks: 15,
      lag_seconds: 60,
    });
  });

  it("behavior: logs the indexer left out are counted and the latest is shown", async () => {
    const insert = (block: number, logIndex: number, reason: string) =>
      writer.query(
        `INSERT INTO skipped_logs (block_number, log_index, block_hash, transaction_hash, contract_address, topic0, reason)
         VALUES ($1, $2, $3, $4, $5, NULL, $6)`,
        [block, logIndex, `0x${"ab".repeat(32)}`, `0x${"cd".repeat(32)}`, testAddress(0x55), reason],
      );
    await insert(506, 3, "TokenLaunchedV3: 22P05: unsupported Unicode escape sequence");
    await insert(508, 1, "Transfer: 22003: numeric field overflow");
    const body = (await app.inject({ url: "/api/v1/status" })).json();
    expect(body.skipped_logs).toEqual({
      count: 2,
      last: {
        block_number: 508,
        log_index: 1,
        transaction_hash: `0x${"cd".repeat(32)}`,
        contract_address: testAddress(0x55),
        reason: "Transfer: 22003: numeric field overflow",
        recorded_at: expect.any(Number),
      },
    });
    await writer.query("DELETE FROM skipped_logs");
  });

  it("behavior: every /api/v1/ response carries X-Indexed-Block and X-Indexed-At (errors too), cached ≤ ttl", async () => {
    const token = testAddress(0x77);
    await insertToken(writer, { address: token, block: 509n, timestamp: BigInt(NOW - 40) });
    await upsertCheckpoint(writer, { block: 520n, timestamp: BigInt(NOW - 10) });
    await new Promise((r) => setTimeout(r, 150));
    const page = await app.inject({ url: `/api/v1/tokens/${token}/holders` });
    expect(page.statusCode).toBe(200);
    expect(page.headers["x-indexed-block"]).toBe("520");
    expect(page.headers["x-indexed-at"]).toBe(String(NOW - 10));
    const notFound = await app.inject({ url: `/api/v1/tokens/${testAddress(0x78)}/holders` });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers["x-indexed-block"]).toBe("520");

    // Within the cache lifetime the old value may be served; after it, the new one.
    await upsertCheckpoint(writer, { block: 521n, timestamp: BigInt(NOW - 8) });
    await new Promise((r) => setTimeout(r, 150));
    const later = await app.inject({ url: `/api/v1/tokens/${token}/holders` });
    expect(later.headers["x-indexed-block"]).toBe("521");

    // Outside /api/v1/: no headers.
    const health = await app.inject({ url: "/health" });
    expect(health.headers["x-indexed-block"]).toBeUndefined();
  });
});
