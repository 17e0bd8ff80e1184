import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { flushPrefix, redisTestPrefix, testRedisUrl } from "./redis.js";

const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
afterAll(() => redis.quit());

describe("redisTestPrefix / flushPrefix", () => {
  it("default", async () => {
    const prefix = redisTestPrefix("testkit");
    const other = redisTestPrefix("testkit");
    expect(prefix).not.toBe(other);
    expect(prefix).toMatch(/^tmi-test:testkit:.+:$/);
    await redis.mset(`${prefix}a`, "1", `${prefix}b`, "2", `${other}a`, "3");
    const scoped = new Redis(testRedisUrl(), { keyPrefix: prefix });
    await scoped.set("c", "4");
    await scoped.quit();
    expect(await flushPrefix(redis, prefix)).toBe(3);
    expect(await redis.exists(`${prefix}a`, `${prefix}b`, `${prefix}c`)).toBe(0);
    expect(await redis.get(`${other}a`)).toBe("3");
    await flushPrefix(redis, other);
  });

  it("behavior: glob characters in the prefix are matched literally", async () => {
    const prefix = redisTestPrefix("glob");
    const starred = `${prefix}*`;
    await redis.set(`${prefix}x`, "1");
    expect(await flushPrefix(redis, starred)).toBe(0);
    expect(await flushPrefix(redis, prefix)).toBe(1);
  });

  it("error: refuses a short prefix", async () => {
    await expect(flushPrefix(redis, "tmi")).rejects.toThrow(/too short|short/);
  });
});
