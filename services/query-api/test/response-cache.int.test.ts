// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// The response cache over a seeded database: identical concurrent GETs run the route's SQL once,
// a moved checkpoint (a new block, or the same number re-indexed under another hash after a
// reorg) and a changed exclusion give a fresh answer, and uncached routes stay uncached.
import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import { createReadPool, type SqlReader } from "../src/db.js";
import { createReadDatabase } from "../src/read-database/read-database.js";
import { CACHE_POSITION_SQL } from "../src/response-cache/cache-position.js";
import { TEST_CURSOR_SECRET } from "./harness.js";
import { addr, insertToken, insertTrade, setCheckpoint, txHash } from "./seed.js";

let database: TestDatabase;
let admin: pg.Pool;
let pool: pg.Pool;
/** Statements the apps sent, but the response cache's own position reads and the freshness checkpoint. */
let routeStatements: string[] = [];
let counted: SqlReader;
/** Runs (once) before the next route statement is sent: a commit "while the answer is computed". */
let beforeRouteStatement: (() => Promise<void>) | undefined;
const apps: Awaited<ReturnType<typeof buildApp>>[] = [];

const T = 1_764_000_000;
const TOKENS = [1, 2, 3].map((n) => addr(n, "a"));

/** Commits a trade of `token` in block `block` with the checkpoint moved to it, in one transaction (as the indexer does). */
async function commitTrade(token: string, block: number, trader: string): Promise<void> {
  const writer = await admin.connect();
  try {
    await writer.query("BEGIN");
    await insertTrade(writer as unknown as pg.Pool, {
      token,
      block,
      logIndex: 1,
      timestamp: T + block,
      trader,
      side: "buy",
      tokenAmount: 10n ** 21n,
      reserveAmount: 10n ** 16n,
    });
    await writer.query(
      "UPDATE indexer_checkpoints SET block_number = $1, block_hash = $2, block_timestamp = $3",
      [block, txHash(block), T + block],
    );
    await writer.query("COMMIT");
  } finally {
    writer.release();
  }
}

async function makeApp(enabled: boolean, readDatabase = false) {
  const app = await buildApp({
    pool: counted as pg.Pool,
    ...(readDatabase
      ? {
          readDatabase: createReadDatabase({ readPool: pool, primaryPool: null, fallbackToPrimary: false }),
          minBlockWaitMs: 60_000,
        }
      : {}),
    config: {
      cursorSecret: TEST_CURSOR_SECRET,
      corsOrigins: "*",
      responseCache: { enabled, maxBytes: 8 * 1024 * 1024, maxAgeMs: 60_000 },
    },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Pool({ connectionString: database.url, max: 3 });
  admin.on("error", () => {});
  pool = createReadPool({ url: database.url, max: 5 });
  counted = {
    query: ((arg: any, values?: unknown[]) => {
      const text: string = typeof arg === "string" ? arg : arg.text;
      if (text === CACHE_POSITION_SQL || text.includes("FROM indexer_checkpoints ORDER BY chain_id LIMIT 1"))
        return (pool.query as any)(arg, values);
      routeStatements.push(text);
      const before = beforeRouteStatement;
      beforeRouteStatement = undefined;
      return (before ?? (async () => {}))().then(() => (pool.query as any)(arg, values));
    }) as SqlReader["query"],
  };
  for (const [i, token] of TOKENS.entries())
    await insertToken(admin, {
      address: token,
      creator: addr(100 + i, "b"),
      name: `Cache ${i}`,
      symbol: `CCH${i}`,
      block: 10 + i,
      createdAt: T + i,
    });
  await setCheckpoint(admin, 20, T + 20);
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  await pool?.end();
  await admin?.end();
  await database?.drop();
});

describe("response cache", () => {
  test("default: concurrent identical GETs run the route's statements once and get one answer", async () => {
    const uncached = await makeApp(false);
    routeStatements = [];
    const alone = await uncached.inject({ url: "/api/v1/tokens?sort=newest&limit=3" });
    expect(alone.statusCode).toBe(200);
    const perRequest = routeStatements.length;
    expect(perRequest).toBeGreaterThan(0);

    const app = await makeApp(true);
    routeStatements = [];
    // The same page asked 20 times at once, half with the parameters in another order.
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        app.inject({
          url: i % 2 ? "/api/v1/tokens?limit=3&sort=newest" : "/api/v1/tokens?sort=newest&limit=3",
        }),
      ),
    );
    expect(routeStatements).toHaveLength(perRequest);
    for (const res of responses) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(alone.body);
      expect(res.headers["x-indexed-block"]).toBe("20");
      expect(res.headers["x-indexed-hash"]).toBe(txHash(20));
      expect(res.headers["cache-control"]).toBe(alone.headers["cache-control"]);
      expect(res.headers["content-type"]).toBe(alone.headers["content-type"]);
      expect(res.headers.etag).toBe(alone.headers.etag);
    }
    expect(responses.filter((res) => res.headers["x-cache"] === "miss")).toHaveLength(1);
    expect(responses.filter((res) => res.headers["x-cache"] === "hit")).toHaveLength(19);

    // A hit revalidates against the kept ETag: 304 without a body when it matches, the kept bytes otherwise.
    const conditional = await app.inject({
      url: "/api/v1/tokens?sort=newest&limit=3",
      headers: { "if-none-match": String(alone.headers.etag) },
    });
    expect(conditional.headers["x-cache"]).toBe("hit");
    expect(conditional.statusCode).toBe(304);
    expect(conditional.body).toBe("");
    const stale = await app.inject({
      url: "/api/v1/tokens?sort=newest&limit=3",
      headers: { "if-none-match": '"another"' },
    });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(alone.rawPayload)).toBe(true);
  });

  test("behavior: a new indexed block, a reorg of the same block number and an exclusion each give a fresh answer", async () => {
    const app = await makeApp(true);
    const url = `/api/v1/tokens/${TOKENS[0]}/trades`;
    const first = await app.inject({ url });
    expect(first.headers["x-cache"]).toBe("miss");
    expect(first.json().items).toHaveLength(0);
    expect((await app.inject({ url })).headers["x-cache"]).toBe("hit");

    // Block 21 carries a trade: the checkpoint moves in the same transaction.
    await commitTrade(TOKENS[0]!, 21, addr(7, "c"));
    const moved = await app.inject({ url });
    expect(moved.headers["x-cache"]).toBe("miss");
    expect(moved.headers["x-indexed-block"]).toBe("21");
    expect(moved.json().items).toHaveLength(1);
    expect((await app.inject({ url })).headers["x-cache"]).toBe("hit");

    // A reorg re-indexes block 21 without the trade: same number, another hash.
    await admin.query(
      `BEGIN; DELETE FROM trades WHERE block_number = 21; UPDATE indexer_checkpoints SET block_hash = '0x${"ee".repeat(32)}'; COMMIT`,
    );
    const reorged = await app.inject({ url });
    expect(reorged.headers["x-cache"]).toBe("miss");
    expect(reorged.headers["x-indexed-hash"]).toBe(`0x${"ee".repeat(32)}`);
    expect(reorged.json().items).toHaveLength(0);

    // An operator exclusion (no new block) hides a token from the list at once.
    const list = "/api/v1/tokens?sort=newest";
    expect((await app.inject({ url: list })).json().items).toHaveLength(3);
    expect((await app.inject({ url: list })).headers["x-cache"]).toBe("hit");
    await admin.query("INSERT INTO excluded_addresses (address, kind, reason) VALUES ($1, 'token', 'test')", [
      TOKENS[1],
    ]);
    const excluded = await app.inject({ url: list });
    expect(excluded.headers["x-cache"]).toBe("miss");
    expect(excluded.json().items.map((t: any) => t.address)).not.toContain(TOKENS[1]);
  });

  test("behavior: a min_block request is answered at its block, never from an answer kept at an older one; hits and misses on /metrics", async () => {
    const app = await makeApp(true, true);
    const url = "/api/v1/tokens?sort=newest";
    const before = await app.inject({ url });
    const block = Number(before.headers["x-indexed-block"]);
    expect((await app.inject({ url })).headers["x-cache"]).toBe("hit");
    const waiting = app.inject({ url: `${url}&min_block=${block + 1}` });
    const token = addr(4, "a");
    const writer = await admin.connect();
    try {
      await writer.query("BEGIN");
      await insertToken(writer as unknown as pg.Pool, {
        address: token,
        creator: addr(104, "b"),
        name: "Cache late",
        symbol: "CCHL",
        block: block + 1,
        createdAt: T + block + 1,
      });
      await writer.query(
        "UPDATE indexer_checkpoints SET block_number = $1, block_hash = $2, block_timestamp = $3",
        [block + 1, txHash(block + 1), T + block + 1],
      );
      await writer.query("COMMIT");
    } finally {
      writer.release();
    }
    const answered = await waiting;
    expect(answered.statusCode).toBe(200);
    expect(answered.headers["x-indexed-block"]).toBe(String(block + 1));
    expect(answered.json().items.map((t: any) => t.address)).toContain(token);
    // The answer computed for min_block serves the plain URL at that block.
    const plain = await app.inject({ url });
    expect(plain.headers["x-cache"]).toBe("hit");
    expect(plain.body).toBe(answered.body);
    const metrics = (await app.inject({ url: "/metrics" })).body;
    expect(metrics).toMatch(/query_api_response_cache_requests_total\{result="hit"\} [1-9]/);
    expect(metrics).toMatch(/query_api_response_cache_requests_total\{result="miss"\} [1-9]/);
    expect(metrics).toMatch(/query_api_response_cache_bytes [1-9]/);
    expect(metrics).toContain("query_api_read_database_lag_seconds");
  });

  test("behavior: an answer whose block moved while it was computed is not kept (a rollback to that block gets a fresh answer)", async () => {
    const app = await makeApp(true);
    const url = `/api/v1/tokens/${TOKENS[2]}/trades`;
    const { rows } = await admin.query<{ n: string; h: string; t: string }>(
      "SELECT block_number::text AS n, block_hash AS h, block_timestamp::text AS t FROM indexer_checkpoints",
    );
    const at = rows[0]!;
    const next = Number(at.n) + 1;
    // The indexer commits block n + 1 (a trade) after the request read its position, before its statement.
    beforeRouteStatement = () => commitTrade(TOKENS[2]!, next, addr(8, "c"));
    const during = await app.inject({ url });
    expect(beforeRouteStatement).toBeUndefined();
    expect(during.headers["x-indexed-block"]).toBe(at.n);
    expect(during.json().items).toHaveLength(1);
    // A reorg rolls block n + 1 back: the checkpoint is block n again, with its hash.
    await admin.query(
      `BEGIN; DELETE FROM trades WHERE block_number = ${next};
       UPDATE indexer_checkpoints SET block_number = ${at.n}, block_hash = '${at.h}', block_timestamp = ${at.t}; COMMIT`,
    );
    const after = await app.inject({ url });
    expect(after.headers["x-cache"]).toBe("miss");
    expect(after.json().items).toHaveLength(0);
  });

  test("behavior: the status, errors and the OpenAPI document are never served from the cache", async () => {
    const app = await makeApp(true);
    for (let i = 0; i < 2; i++) {
      expect((await app.inject({ url: "/api/v1/status" })).headers["x-cache"]).toBeUndefined();
      expect((await app.inject({ url: "/api/v1/openapi.json" })).headers["x-cache"]).toBeUndefined();
      const missing = await app.inject({ url: `/api/v1/tokens/${addr(999, "f")}` });
      expect(missing.statusCode).toBe(404);
      expect(missing.headers["x-cache"]).toBe("miss");
    }
  });

  test("behavior: a body with non-ASCII text is answered byte for byte from the cache", async () => {
    await insertToken(admin, {
      address: addr(9, "a"),
      creator: addr(109, "b"),
      name: "Crème brûlée 🚀",
      symbol: "CRÈME",
      block: 19,
      createdAt: T + 9,
    });
    const uncached = await makeApp(false);
    const url = `/api/v1/tokens/${addr(9, "a")}`;
    const alone = await uncached.inject({ url });
    expect(alone.json().name).toBe("Crème brûlée 🚀");
    const app = await makeApp(true);
    expect((await app.inject({ url })).headers["x-cache"]).toBe("miss");
    const hit = await app.inject({ url });
    expect(hit.headers["x-cache"]).toBe("hit");
    expect(hit.rawPayload.equals(alone.rawPayload)).toBe(true);
    expect(hit.headers["content-length"]).toBe(String(alone.rawPayload.length));
    expect(hit.headers.etag).toBe(alone.headers.etag);
  });
});
