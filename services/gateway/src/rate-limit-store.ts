import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { Redis } from "ioredis";

/**
 * Adds each key's delta to its counter and starts the key's window (PEXPIRE) when the counter
 * is new; returns `[count₁, pttl₁, count₂, pttl₂, …]`. KEYS: the counters; ARGV[1]: window (ms),
 * ARGV[2…]: the deltas.
 */
const INCREMENT_LUA = `
local window = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local delta = tonumber(ARGV[i + 1])
  local count = redis.call('INCRBY', key, delta)
  local ttl
  if count == delta then
    redis.call('PEXPIRE', key, window)
    ttl = window
  else
    ttl = redis.call('PTTL', key)
    if ttl < 0 then
      redis.call('PEXPIRE', key, window)
      ttl = window
    end
  end
  out[#out + 1] = count
  out[#out + 1] = ttl
end
return out
`;

/** How often counts held locally are added to Redis (ms). */
export const RATE_LIMIT_SYNC_INTERVAL_MS = 250;
/** Share of the limit a replica may admit without asking Redis (see {@link createBatchedRedisStore}). */
export const RATE_LIMIT_LOCAL_SHARE = 0.05;
/** Most keys per Redis call of one sync. */
const KEYS_PER_CALL = 500;

interface Entry {
  /** Count of the key's window in Redis when this replica last heard it (includes other replicas' counts). */
  synced: number;
  /** Requests admitted here and not yet added to Redis. */
  pending: number;
  /** Epoch ms at which the window last heard of ends (0: no window known). */
  resetAt: number;
}

type IncrCallback = Parameters<FastifyRateLimitStore["incr"]>[1];

type IncrementCommand = (...args: (string | number)[]) => Promise<number[]>;

/** Options of {@link createBatchedRedisStore}. */
export interface BatchedRedisStoreOptions {
  redis: Redis;
  /** Key prefix of the counters (replicas with the same prefix share counts). */
  prefix: string;
  /** How often local counts are added to Redis (ms; default {@link RATE_LIMIT_SYNC_INTERVAL_MS}). */
  syncIntervalMs?: number;
  /** Share of the limit admitted locally between syncs (default {@link RATE_LIMIT_LOCAL_SHARE}). */
  localShare?: number;
}

/**
 * A `@fastify/rate-limit` store: fixed windows counted in Redis (one counter per key and window,
 * shared by every replica using the same prefix), without a Redis round trip per request.
 *
 * - A key's first request of a window on this replica, and every request once the key's count
 *   as last heard from Redis plus what this replica holds exceeds half the limit, is counted in
 *   Redis at once (`INCRBY` with what this replica holds): decisions near the limit are exact.
 * - Otherwise the request is admitted and counted locally; local counts are added to Redis every
 *   `syncIntervalMs` (one script call for all keys), and the answer updates each key's count.
 *   A replica holds at most `max(1, ⌊localShare × limit⌋)` unsynced requests per key (then the
 *   next request is counted in Redis at once).
 *
 * Bounded error: per key and window, at most (replicas × `max(1, ⌊localShare × limit⌋)`) requests
 * more than the limit are admitted (5% of the limit per replica by default), and only when a
 * client's requests come faster than the sync interval; counts are never lost while Redis answers.
 * `X-RateLimit-Remaining` reflects the count as last heard. Redis errors are passed to the
 * callback (the plugin's `skipOnError` lets the request through); counts of a failed sync are dropped.
 */
export function createBatchedRedisStore(options: BatchedRedisStoreOptions): FastifyRateLimitStoreCtor {
  const { redis } = options;
  const syncIntervalMs = options.syncIntervalMs ?? RATE_LIMIT_SYNC_INTERVAL_MS;
  const localShare = options.localShare ?? RATE_LIMIT_LOCAL_SHARE;
  if (!(redis as unknown as { tmiRateLimitIncrement?: unknown }).tmiRateLimitIncrement) {
    redis.defineCommand("tmiRateLimitIncrement", { lua: INCREMENT_LUA });
  }
  const increment = (
    redis as unknown as { tmiRateLimitIncrement: IncrementCommand }
  ).tmiRateLimitIncrement.bind(redis);

  const entries = new Map<string, Entry>();
  /** Keys with pending counts, with the window each was counted for. */
  const dirty = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let lastSweep = Date.now();

  const apply = (key: string, count: number, ttl: number, now: number) => {
    const entry = entries.get(key);
    if (!entry) return;
    entry.synced = count;
    entry.resetAt = now + Math.max(0, ttl);
  };

  /** Forgets keys whose window has ended and that hold nothing, at most once per 10 s. */
  const sweep = (now: number) => {
    if (now - lastSweep < 10_000) return;
    lastSweep = now;
    for (const [key, entry] of entries) {
      if (entry.pending === 0 && entry.resetAt <= now) entries.delete(key);
    }
  };

  const sync = () => {
    timer = null;
    const now = Date.now();
    // Group the dirty keys by window (one window for the global limit).
    const byWindow = new Map<number, { keys: string[]; deltas: number[] }>();
    for (const [key, window] of dirty) {
      const entry = entries.get(key);
      if (!entry || entry.pending === 0) continue;
      let group = byWindow.get(window);
      if (!group) {
        group = { keys: [], deltas: [] };
        byWindow.set(window, group);
      }
      group.keys.push(key);
      group.deltas.push(entry.pending);
      entry.pending = 0;
    }
    dirty.clear();
    for (const [window, { keys, deltas }] of byWindow) {
      for (let start = 0; start < keys.length; start += KEYS_PER_CALL) {
        const part = keys.slice(start, start + KEYS_PER_CALL);
        increment(part.length, ...part, window, ...deltas.slice(start, start + KEYS_PER_CALL)).then(
          (result) => {
            const at = Date.now();
            for (let i = 0; i < part.length; i++) apply(part[i]!, result[2 * i]!, result[2 * i + 1]!, at);
          },
          () => undefined, // Redis unreachable: these counts are dropped (requests went through).
        );
      }
    }
    sweep(now);
  };

  class BatchedRedisStore implements FastifyRateLimitStore {
    private readonly prefix: string;

    /** `@fastify/rate-limit` calls `new Store(globalParams)`; `child` passes a route's own prefix. */
    constructor(_params?: unknown, prefix: string = options.prefix) {
      this.prefix = prefix;
    }

    incr(key: string, callback: IncrCallback, timeWindow: number, max: number): void {
      const redisKey = this.prefix + key;
      const now = Date.now();
      sweep(now);
      let entry = entries.get(redisKey);
      if (!entry) {
        entry = { synced: 0, pending: 0, resetAt: 0 };
        entries.set(redisKey, entry);
      } else if (entry.resetAt !== 0 && now >= entry.resetAt) {
        entry.synced = 0;
        entry.resetAt = 0;
      }
      const estimate = entry.synced + entry.pending + 1;
      const slack = Math.max(1, Math.floor(max * localShare));
      if (entry.resetAt !== 0 && estimate * 2 <= max && entry.pending < slack) {
        entry.pending++;
        if (!dirty.has(redisKey)) dirty.set(redisKey, timeWindow);
        if (!timer) {
          timer = setTimeout(sync, syncIntervalMs);
          timer.unref();
        }
        callback(null, { current: estimate, ttl: entry.resetAt - now });
        return;
      }
      // Exact: this request and what this replica holds, counted in Redis now.
      const delta = entry.pending + 1;
      entry.pending = 0;
      increment(1, redisKey, timeWindow, delta).then(
        (result) => {
          const count = result[0]!;
          const ttl = result[1]!;
          apply(redisKey, count, ttl, Date.now());
          callback(null, { current: count, ttl });
        },
        (error: Error) => callback(error),
      );
    }

    /** A store for a route with its own limit: its own counters (`<prefix><method><url>-<key>`). */
    child(routeOptions: object): FastifyRateLimitStore {
      // At run time the plugin passes the route's merged limit settings, with `routeInfo`.
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: string } }).routeInfo;
      return new BatchedRedisStore(
        undefined,
        `${this.prefix}${String(route?.method ?? "")}${route?.url ?? ""}-`,
      );
    }
  }
  return BatchedRedisStore as unknown as FastifyRateLimitStoreCtor;
}
