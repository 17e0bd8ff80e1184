// Step 2 of `pnpm start`: PostgreSQL and Redis answer, with a message that says how to start them
// when they do not. Clients: pg and ioredis.
import { Redis } from "ioredis";
import pg from "pg";
import { fail, warn } from "./output.mjs";
import { withDatabase } from "./postgres-url.mjs";

/**
 * Exits with a message unless the PostgreSQL server of `databaseUrl` accepts a connection to its
 * `postgres` database (the database itself may not exist yet: it is created later).
 * @param {string} databaseUrl
 */
export async function checkPostgres(databaseUrl) {
  const url = new URL(databaseUrl);
  const where = `${url.hostname || "127.0.0.1"}:${url.port || 5432}`;
  const admin = new pg.Client({
    connectionString: withDatabase(databaseUrl, "postgres"),
    connectionTimeoutMillis: 3000,
  });
  try {
    await admin.connect();
    await admin.query("SELECT 1");
  } catch (error) {
    const refused =
      ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT"].includes(error.code) ||
      /timeout/i.test(error.message);
    fail(
      refused
        ? `PostgreSQL is not reachable at ${where} (DATABASE_URL).\n` +
            "  Start it (e.g. `sudo service postgresql start`, or `docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16`)\n" +
            "  or point DATABASE_URL at a running server, then run `pnpm start` again."
        : `PostgreSQL at ${where} refused the connection: ${error.message}\n  Check the user/password in DATABASE_URL (default user postgres, trust authentication).`,
    );
  } finally {
    await admin.end().catch(() => {});
  }
}

/** A Redis client that fails at once instead of retrying (for one-off commands of the start). */
export function oneShotRedis(redisUrl) {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Connection errors reach the caller through connect(); without a listener ioredis prints them.
  redis.on("error", () => {});
  return redis;
}

/**
 * Exits with a message unless Redis at `redisUrl` answers PING; warns when its maxmemory-policy is
 * not `noeviction` (BullMQ jobs could be evicted).
 * @param {string} redisUrl
 */
export async function checkRedis(redisUrl) {
  const url = new URL(redisUrl);
  const where = `${url.hostname || "127.0.0.1"}:${url.port || 6379}`;
  const redis = oneShotRedis(redisUrl);
  try {
    await redis.connect();
    const reply = await redis.ping();
    if (reply !== "PONG") fail(`Redis at ${where} answered PING with ${JSON.stringify(reply)}`);
  } catch (error) {
    fail(
      `Redis is not reachable at ${where} (REDIS_URL): ${error.message}.\n` +
        "  Start it (e.g. `sudo service redis-server start`, or `docker run -d -p 6379:6379 redis:7 --maxmemory-policy noeviction`)\n" +
        "  or point REDIS_URL at a running server, then run `pnpm start` again.",
    );
  }
  try {
    const [, policy] = await redis.config("GET", "maxmemory-policy");
    if (policy && policy !== "noeviction")
      warn(
        `Redis maxmemory-policy is not noeviction (${policy}): BullMQ jobs can be evicted under memory pressure`,
      );
  } catch {
    // CONFIG may be disabled on a managed Redis: nothing to check then.
  } finally {
    redis.disconnect();
  }
}
