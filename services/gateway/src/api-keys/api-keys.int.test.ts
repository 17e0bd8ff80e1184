// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
import { execFile } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseEnv } from "@tmi/shared/env";
import { createLogger } from "@tmi/shared/logger";
import {
  createTestDatabase,
  flushPrefix,
  redisTestPrefix,
  type TestDatabase,
  testRedisUrl,
  waitFor,
} from "@tmi/testkit";
import Fastify, { type FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, createRateLimitRedis } from "../app.js";
import { gatewayEnvSchema } from "../config.js";
import { apiKeyOf, createApiKeyResolver, hashApiKey } from "./api-keys.js";

const run = promisify(execFile);
const logger = createLogger({ service: "gateway-api-keys-test", level: "silent" });
const gatewayDir = fileURLToPath(new URL("../..", import.meta.url));

let database: TestDatabase;
let upstream: FastifyInstance;
let upstreamUrl: string;
const apps: FastifyInstance[] = [];
const redisClients: Redis[] = [];
const pools: pg.Pool[] = [];
const prefix = redisTestPrefix("gateway-api-keys");

/** Runs `pnpm api-keys <args>` (the CLI, as an operator would) on the test database. */
async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run("pnpm", ["--silent", "api-keys", ...args], {
    cwd: gatewayDir,
    env: { ...process.env, DATABASE_URL: database.url },
  });
  return stdout;
}

/** `create` through the CLI: the id and key it prints. */
async function createKey(name: string, tier?: "free" | "pro"): Promise<{ id: string; key: string }> {
  const out = await cli("create", "--name", name, ...(tier ? ["--tier", tier] : []));
  const field = (label: string) => new RegExp(`^${label}\\t(.+)$`, "m").exec(out)?.[1] ?? "";
  return { id: field("id"), key: field("key") };
}

/** One gateway replica: its own app, Redis connection, key database pool and cache. */
async function startReplica(): Promise<string> {
  const config = parseEnv(gatewayEnvSchema, {
    QUERY_API_URL: upstreamUrl,
    METADATA_API_URL: upstreamUrl,
    ORACLE_PRICE_URL: upstreamUrl,
    RATE_LIMIT_PER_MINUTE: "3",
    GATEWAY_RATE_LIMIT_FREE_PER_MIN: "5",
    GATEWAY_RATE_LIMIT_PRO_PER_MIN: "40",
    RATE_LIMIT_REDIS_PREFIX: prefix,
    DATABASE_URL: database.url,
    GATEWAY_MAX_EVENT_LOOP_DELAY_MS: "0",
  });
  const redis = createRateLimitRedis(testRedisUrl());
  redisClients.push(redis);
  await once(redis, "ready");
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pools.push(pool);
  const apiKeys = createApiKeyResolver({ db: pool, cacheMs: config.API_KEY_CACHE_MS });
  const app = buildApp({ logger, config, redis, apiKeys }) as unknown as FastifyInstance;
  apps.push(app);
  return app.listen({ host: "127.0.0.1", port: 0 });
}

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(base + path, { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

beforeAll(async () => {
  database = await createTestDatabase();
  upstream = Fastify();
  upstream.get("/*", async (request) => ({ ok: true, url: request.url }));
  upstreamUrl = await upstream.listen({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await upstream?.close();
  await Promise.all(pools.map((p) => p.end()));
  if (redisClients[0]) await flushPrefix(redisClients[0], prefix);
  for (const r of redisClients) r.disconnect();
  await database?.drop();
});

describe("apiKeyOf", () => {
  it("reads Authorization: Bearer first, then X-API-Key; none is anonymous", () => {
    expect(apiKeyOf({ authorization: "Bearer tmi_abc" })).toBe("tmi_abc");
    expect(apiKeyOf({ authorization: "bearer  tmi_abc ", "x-api-key": "tmi_x" })).toBe("tmi_abc");
    expect(apiKeyOf({ "x-api-key": "tmi_x" })).toBe("tmi_x");
    expect(apiKeyOf({ authorization: "Basic dXNlcg==" })).toBeUndefined();
    expect(apiKeyOf({})).toBeUndefined();
  });
});

describe("api keys", () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([startReplica(), startReplica()]);
  });

  it("the CLI prints a key once and stores only its hash; list shows ids, tiers and state", async () => {
    const created = await createKey("bot one", "pro");
    expect(created.id).toMatch(/^key_[0-9a-f]{16}$/);
    expect(created.key).toMatch(/^tmi_[A-Za-z0-9_-]{43}$/);
    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    try {
      const { rows } = await check.query("SELECT * FROM api_keys WHERE id = $1", [created.id]);
      expect(rows[0]).toMatchObject({ name: "bot one", tier: "pro", key_hash: hashApiKey(created.key) });
      expect(JSON.stringify(rows)).not.toContain(created.key);
    } finally {
      await check.end();
    }
    const listed = await cli("list");
    expect(listed).toContain(`${created.id}\tpro\t`);
    expect(listed).toContain("active\tbot one");
    expect(listed).not.toContain(created.key);
    await expect(cli("create", "--name", "x", "--tier", "gold")).rejects.toThrow(
      /--tier must be free or pro/,
    );
    await expect(cli("revoke", "key_0000000000000000")).rejects.toThrow(/no api key/);
  });

  it("reads stay open without a key; an unknown, malformed or revoked key is 401 invalid_api_key", async () => {
    expect((await get(a, "/api/v1/tokens")).status).toBe(200);
    const unknown = await get(a, "/api/v1/tokens", { authorization: `Bearer tmi_${"A".repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe("invalid_api_key");
    expect(unknown.body.error.request_id).toBe(unknown.headers.get("x-request-id"));
    const malformed = await get(b, "/api/v1/tokens", { "x-api-key": "nope" });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error.code).toBe("invalid_api_key");
    // The liveness probe never looks at keys.
    expect((await get(a, "/health", { "x-api-key": "nope" })).status).toBe(200);
  });

  it("each tier has its limit, counted in Redis across replicas; anonymous keeps the IP limit", async () => {
    const free = await createKey("free bot");
    const pro = await createKey("pro bot", "pro");
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await get(i % 2 ? a : b, "/api/v1/tokens", { "x-api-key": free.key });
      statuses.push(r.status);
      if (r.status === 200) expect(r.headers.get("x-ratelimit-limit")).toBe("5");
      else expect(r.body.error.code).toBe("rate_limited");
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // Another key has its own counter (and the pro limit), though the client IP is the same.
    const proAnswer = await get(a, "/api/v1/tokens", { authorization: `Bearer ${pro.key}` });
    expect(proAnswer.status).toBe(200);
    expect(proAnswer.headers.get("x-ratelimit-limit")).toBe("40");
    const anonymous: number[] = [];
    for (let i = 0; i < 4; i++) anonymous.push((await get(i % 2 ? a : b, "/api/v1/tokens")).status);
    // Limit 3 per IP: the previous test's anonymous read was the first.
    expect(anonymous).toEqual([200, 200, 429, 429]);
    const stored = await redisClients[0]!.get(`${prefix}key:${free.id}`);
    expect(Number(stored)).toBeGreaterThanOrEqual(5);
  });

  it("a revocation through the CLI takes effect on both replicas within 1 s", async () => {
    const key = await createKey("to revoke", "pro");
    const headers = { authorization: `Bearer ${key.key}` };
    // Both replicas have the key cached as valid.
    expect((await get(a, "/api/v1/tokens", headers)).status).toBe(200);
    expect((await get(b, "/api/v1/tokens", headers)).status).toBe(200);
    await cli("revoke", key.id);
    // From the CLI's exit (the revocation is committed), each replica answers 401 within 1 s.
    await waitFor(
      async () =>
        (await get(a, "/api/v1/tokens", headers)).status === 401 &&
        (await get(b, "/api/v1/tokens", headers)).status === 401,
      { timeoutMs: 1000, intervalMs: 50, message: "revoked key still accepted 1 s after the revocation" },
    );
    for (const base of [a, b, a, b]) {
      const r = await get(base, "/api/v1/tokens", headers);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_api_key");
    }
    expect(await cli("revoke", key.id)).toContain("already revoked");
    expect(await cli("list")).toMatch(new RegExp(`${key.id}\\tpro\\t.*\\trevoked `));
  });
});
