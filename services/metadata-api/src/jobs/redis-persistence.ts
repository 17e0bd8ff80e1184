import type { Redis } from "ioredis";
import type { Logger } from "pino";

/** What {@link checkRedisPersistence} found: Redis's `appendonly` setting, or why it is unknown. */
export type RedisPersistence = { appendonly: "yes" | "no" } | { appendonly: "unknown"; reason: string };

/**
 * Reads whether Redis writes an append-only file (`CONFIG GET appendonly`). Without it, a Redis
 * restart loses queued finalize jobs (the worker's sweep re-queues them, but only for drafts
 * already marked `pending`). Managed Redis services often refuse `CONFIG`: `unknown`.
 */
export async function readRedisPersistence(redis: Redis): Promise<RedisPersistence> {
  try {
    const reply = (await redis.call("CONFIG", "GET", "appendonly")) as string[];
    const value = reply[1];
    if (value === "yes" || value === "no") return { appendonly: value };
    return { appendonly: "unknown", reason: `unexpected CONFIG GET reply ${JSON.stringify(reply)}` };
  } catch (error) {
    return { appendonly: "unknown", reason: (error as Error).message };
  }
}

/**
 * The start-up rule of metadata-api and its worker: in production (`NODE_ENV=production`) with
 * `REDIS_REQUIRE_AOF=true` (default) they REFUSE to start unless Redis reports `appendonly yes`
 * (throws; the entry logs it as fatal and exits 1). With `REDIS_REQUIRE_AOF=false` (persistence
 * made otherwise, e.g. RDB snapshots or a managed service that hides `CONFIG`), or outside
 * production, a Redis without AOF is logged as a warning and the process starts.
 * @throws Error naming the setting, in production when AOF is off or cannot be read.
 */
export async function checkRedisPersistence(
  redis: Redis,
  options: { production: boolean; requireAof: boolean; logger: Logger; service: string },
): Promise<RedisPersistence> {
  const found = await readRedisPersistence(redis);
  if (found.appendonly === "yes") return found;
  const what =
    "reason" in found
      ? `Redis persistence cannot be read (${found.reason})`
      : "Redis has no persistence (appendonly no): queued finalize jobs are lost when it restarts";
  if (options.production && options.requireAof) {
    throw new Error(
      `${what}; ${options.service} refuses to start in production. Enable AOF (appendonly yes, see deploy/), or set REDIS_REQUIRE_AOF=false if Redis persists otherwise`,
    );
  }
  options.logger.warn(
    { action: "check_redis_persistence", appendonly: found.appendonly },
    `${what}; pending drafts are re-queued by the worker's sweep`,
  );
  return found;
}
