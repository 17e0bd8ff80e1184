// Owner: db (prisma/ + testkit database/redis/s3/global-setup).
// Redis isolation for integration tests: one key prefix per test, flushed afterwards.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * Redis URL of the test server (`TMI_TEST_REDIS_URL`, default `redis://127.0.0.1:6379`).
 * Tests share the server and database 0, so every test keeps to its own key prefix.
 */
export function testRedisUrl(): string {
  return process.env.TMI_TEST_REDIS_URL || "redis://127.0.0.1:6379";
}

/**
 * A key prefix unique to this process, vitest worker and call:
 * `tmi-test:<name>:<worker>:<pid>:<random>:` (ends with a colon). Use it as ioredis'
 * `keyPrefix` or BullMQ's `prefix` (BullMQ adds its own colon: pass it without the trailing one,
 * e.g. `prefix.slice(0, -1)`). `name` says whose keys they are (letters, digits, `-`, `_`).
 */
export function redisTestPrefix(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, "-") || "test";
  const worker = process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? "0";
  return `tmi-test:${safe}:${worker}:${process.pid}:${randomBytes(4).toString("hex")}:`;
}

/**
 * Deletes every key that starts with `prefix` (SCAN + UNLINK in batches; never FLUSHDB).
 * `redis` must not have a `keyPrefix` of its own (SCAN patterns ignore it).
 * @returns the number of keys deleted.
 * @throws when `prefix` is shorter than 8 characters (a guard against flushing everything).
 */
export async function flushPrefix(redis: Redis, prefix: string): Promise<number> {
  if (prefix.length < 8)
    throw new Error(`flushPrefix: refusing a prefix this short: ${JSON.stringify(prefix)}`);
  if (redis.options.keyPrefix) throw new Error("flushPrefix: use a connection without keyPrefix");
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== "0");
  return deleted;
}
