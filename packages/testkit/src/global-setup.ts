// Owner: db (prisma/ + testkit database/redis/s3/global-setup).
// vitest global setup of the `integration` project (root vitest.config.ts): runs once per run,
// in the main vitest process, before any test file.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import {
  cleanupTestDatabases,
  ensureTemplateDatabase,
  templateDatabaseName,
  testPostgresUrl,
} from "./database.js";
import { WORKSPACE_ROOT } from "./process.js";
import { testRedisUrl } from "./redis.js";

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

async function checkPostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: testPostgresUrl(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    throw new Error(
      `integration tests need PostgreSQL at ${redact(testPostgresUrl())} (user postgres, trust auth; set TMI_TEST_PG_URL to use another): ${(error as Error).message}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

async function checkRedis(): Promise<void> {
  const redis = new Redis(testRedisUrl(), {
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `integration tests need Redis at ${redact(testRedisUrl())} (set TMI_TEST_REDIS_URL to use another): ${(error as Error).message}`,
    );
  } finally {
    redis.disconnect();
  }
}

/**
 * Runs the contracts build (it skips in about 70 ms when the Solidity sources are unchanged, by its
 * hash stamp), so changed contracts are always rebuilt before integration tests.
 */
function buildContractsIfMissing(): void {
  const script = join(WORKSPACE_ROOT, "packages/contracts/scripts/build.mjs");
  const started = performance.now();
  const result = spawnSync(process.execPath, [script], { cwd: WORKSPACE_ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    throw new Error(
      `node packages/contracts/scripts/build.mjs failed (exit ${result.status ?? result.signal})`,
    );
  }
  console.log(`[testkit] built contracts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Checks that PostgreSQL and Redis answer (failing the run with a clear message if not), builds
 * the contract artifacts if missing, drops test databases left by crashed runs and builds the
 * migrated template database (idempotent, serialized across processes by an advisory lock).
 */
export default async function setup(): Promise<void> {
  await Promise.all([checkPostgres(), checkRedis()]);
  buildContractsIfMissing();
  const dropped = await cleanupTestDatabases();
  if (dropped.length > 0) console.log(`[testkit] dropped ${dropped.length} stale test database(s)`);
  const started = performance.now();
  const existed = await isTemplateReady();
  await ensureTemplateDatabase();
  if (!existed) {
    console.log(
      `[testkit] built template database ${templateDatabaseName()} in ${(performance.now() - started).toFixed(0)} ms`,
    );
  }
}

async function isTemplateReady(): Promise<boolean> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [
      templateDatabaseName(),
    ]);
    return (rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}
