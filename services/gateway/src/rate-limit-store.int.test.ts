import { once } from "node:events";
import type { FastifyRateLimitOptions, FastifyRateLimitStore } from "@fastify/rate-limit";
import { flushPrefix, redisTestPrefix, testRedisUrl } from "@tmi/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimitRedis } from "./app.js";
import { createBatchedRedisStore } from "./rate-limit-store.js";

const prefixes: string[] = [];
const clients: Redis[] = [];
let admin: Redis;

beforeAll(async () => {
  admin = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  clients.push(admin);
});

afterAll(async () => {
  for (const prefix of prefixes) await flushPrefix(admin, prefix);
  for (const c of clients) c.disconnect();
});

async function newStore(prefix: string, syncIntervalMs = 50): Promise<FastifyRateLimitStore> {
  const redis = createRateLimitRedis(testRedisUrl());
  clients.push(redis);
  await once(redis, "ready");
  const Store = createBatchedRedisStore({ redis, prefix, syncIntervalMs });
  return new Store({} as FastifyRateLimitOptions);
}

function incr(store: FastifyRateLimitStore, key: string, max: number, windowMs = 60_000) {
  return new Promise<{ current: number; ttl: number }>((resolve, reject) =>
    store.incr(key, (error, result) => (error || !result ? reject(error) : resolve(result)), windowMs, max),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("createBatchedRedisStore", () => {
  it("default", async () => {
    const prefix = redisTestPrefix("gateway-rl-store");
    prefixes.push(prefix);
    const store = await newStore(prefix);
    const counts: number[] = [];
    for (let i = 0; i < 20; i++) counts.push((await incr(store, "1.2.3.4", 1000)).current);
    expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Counted locally after the first request; every count reaches Redis within a sync interval.
    await sleep(200);
    expect(await admin.get(`${prefix}1.2.3.4`)).toBe("20");
    const ttl = await admin.pttl(`${prefix}1.2.3.4`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("behavior: near the limit two replicas on one prefix decide exactly", async () => {
    const prefix = redisTestPrefix("gateway-rl-store");
    prefixes.push(prefix);
    // Long sync interval: only the exact path can make the counts meet.
    const [a, b] = await Promise.all([newStore(prefix, 60_000), newStore(prefix, 60_000)]);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) seen.push((await incr(i % 2 === 0 ? a : b, "client", 10)).current);
    expect(Math.max(...seen)).toBeLessThanOrEqual(10);
    const over = await incr(a, "client", 10);
    expect(over.current).toBe(11);
    expect(await admin.get(`${prefix}client`)).toBe("11");
  });

  it("behavior: a replica holds at most 5% of the limit unsynced", async () => {
    const prefix = redisTestPrefix("gateway-rl-store");
    prefixes.push(prefix);
    const store = await newStore(prefix, 60_000);
    await incr(store, "burst", 1000);
    for (let i = 0; i < 200; i++) await incr(store, "burst", 1000);
    const inRedis = Number(await admin.get(`${prefix}burst`));
    expect(inRedis).toBeGreaterThanOrEqual(201 - 50);
    expect(inRedis).toBeLessThanOrEqual(201);
  });

  it("behavior: a new window starts from zero", async () => {
    const prefix = redisTestPrefix("gateway-rl-store");
    prefixes.push(prefix);
    const store = await newStore(prefix, 20);
    for (let i = 0; i < 3; i++) await incr(store, "short", 100, 300);
    await sleep(450);
    expect((await incr(store, "short", 100, 300)).current).toBe(1);
  });

  it("error: Redis unreachable passes the error to the plugin (which lets the request through)", async () => {
    const redis = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    redis.on("error", () => {});
    clients.push(redis);
    const Store = createBatchedRedisStore({ redis, prefix: "tmi-test:unreachable:" });
    await expect(incr(new Store({} as FastifyRateLimitOptions), "x", 10)).rejects.toThrow();
  });
});
