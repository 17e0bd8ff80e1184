import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startPgBouncer } from "./pgbouncer.js";
import { type PostgresCluster, startPostgresCluster, startStandby } from "./postgres-cluster.js";
import { pauseReplay, resumeReplay, waitForReplay } from "./postgres-replay.js";

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("own PostgreSQL clusters", () => {
  let primary: PostgresCluster;
  let standby: PostgresCluster;

  it("default: a primary and a streaming standby replaying its writes", async () => {
    primary = await startPostgresCluster();
    cleanup.push(() => primary.destroy());
    await query(primary.url(), "CREATE TABLE t (n int); INSERT INTO t VALUES (1)");
    standby = await startStandby(primary);
    cleanup.push(() => standby.destroy());
    const [row] = await query<{ recovery: boolean }>(standby.url(), "SELECT pg_is_in_recovery() AS recovery");
    expect(row?.recovery).toBe(true);
    await query(primary.url(), "INSERT INTO t VALUES (2)");
    await waitForReplay(primary, standby);
    expect(await query(standby.url(), "SELECT n FROM t ORDER BY n")).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("behavior: paused replay keeps old data until resumed; a stopped cluster starts again", async () => {
    await pauseReplay(standby);
    await query(primary.url(), "INSERT INTO t VALUES (3)");
    expect(await query(standby.url(), "SELECT count(*)::int AS c FROM t")).toEqual([{ c: 2 }]);
    await resumeReplay(standby);
    await waitForReplay(primary, standby);
    expect(await query(standby.url(), "SELECT count(*)::int AS c FROM t")).toEqual([{ c: 3 }]);
    await standby.stop();
    await expect(query(standby.url(), "SELECT 1")).rejects.toThrow();
    await standby.start();
    expect(await query(standby.url(), "SELECT count(*)::int AS c FROM t")).toEqual([{ c: 3 }]);
  });

  it("behavior: PgBouncer forwards to the cluster", async () => {
    const bouncer = await startPgBouncer(primary, { settings: { pool_mode: "session" } });
    cleanup.push(() => bouncer.destroy());
    expect(await query(bouncer.url(), "SELECT count(*)::int AS c FROM t")).toEqual([{ c: 3 }]);
  });
});
