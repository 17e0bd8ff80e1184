// query-api behind PgBouncer (the Debian package, 1.18) on a cluster of the test's own: in session
// mode its session settings hold and its named prepared statements survive pooling; in transaction
// mode the prepared statements break (why the docs recommend session mode only).
import { createLogger } from "@tmi/shared/logger";
import {
  createClusterDatabase,
  type PgBouncer,
  type PostgresCluster,
  startPgBouncer,
  startPostgresCluster,
  type TestDatabase,
} from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../app.js";
import { createReadPool, prepared } from "../db.js";

const logger = createLogger({ service: "pgbouncer-test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
let cluster: PostgresCluster;
let database: TestDatabase;
const bouncers: PgBouncer[] = [];
const pools: pg.Pool[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createClusterDatabase(cluster, "tmi_pgbouncer");
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  for (const bouncer of bouncers) await bouncer.destroy();
  await cluster?.destroy();
});

async function poolThrough(poolMode: "session" | "transaction"): Promise<pg.Pool> {
  // Fewer server connections than client connections: pooling really shares them.
  const bouncer = await startPgBouncer(cluster, {
    settings: { pool_mode: poolMode, default_pool_size: "4" },
  });
  bouncers.push(bouncer);
  const pool = createReadPool({ url: bouncer.url(database.name), max: 4 });
  pools.push(pool);
  return pool;
}

/** Runs `n` prepared statements (8 distinct names) over `pool`, 16 at a time; returns the errors. */
async function preparedLoad(pool: pg.Pool, n: number): Promise<string[]> {
  const errors: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await prepared(pool, `load_${i % 8}`, `SELECT $1::int + ${i % 8} AS v`, [i]).catch((error: Error) =>
        errors.push(error.message),
      );
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return errors;
}

describe("query-api behind PgBouncer", () => {
  it("default: session mode keeps the read-only and timeout settings and the prepared statements", async () => {
    const pool = await poolThrough("session");
    const settings = await pool.query<{ ro: string; timeout: string }>(
      "SELECT current_setting('default_transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout",
    );
    expect(settings.rows[0]).toEqual({ ro: "on", timeout: "5s" });
    await expect(pool.query("CREATE TABLE nope (n int)")).rejects.toMatchObject({ code: "25006" });
    expect(await preparedLoad(pool, 400)).toEqual([]);

    const app = (await buildApp({
      pool,
      config: { cursorSecret: "pgbouncer-test-cursor-secret", corsOrigins: "*" },
      logger,
    })) as unknown as FastifyInstance;
    try {
      const urls = [
        "/api/v1/tokens?limit=5",
        "/api/v1/trending",
        "/api/v1/status",
        "/api/v1/tokens/0x00000000000000000000000000000000000000aa",
      ];
      const responses = await Promise.all(
        Array.from({ length: 120 }, (_, i) => app.inject({ url: urls[i % urls.length] as string })),
      );
      expect(
        responses.flatMap((r, i) => (r.statusCode >= 500 ? [`${urls[i % urls.length]}: ${r.body}`] : [])),
      ).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it("error: transaction mode breaks named prepared statements (PgBouncer 1.18)", async () => {
    const pool = await poolThrough("transaction");
    const errors = await preparedLoad(pool, 400);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.some((m) => /prepared statement .* (already exists|does not exist)/.test(m))).toBe(true);
  });
});
