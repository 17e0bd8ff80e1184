import { createHash } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import { connect, createServer, type Server } from "node:net";
import { parseEnv } from "@tmi/shared/env";
import { createLogger } from "@tmi/shared/logger";
import { flushPrefix, redisTestPrefix, testRedisUrl, waitFor } from "@tmi/testkit";
import Fastify, { type FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp, createRateLimitRedis } from "./app.js";
import { gatewayEnvSchema } from "./config.js";

const logger = createLogger({ service: "gateway-test", level: "silent" });

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  bodyBytes: number;
  bodySha256: string;
}

/** A small upstream that records every request it sees and answers with what it saw. */
async function startUpstream(name: string, port = 0) {
  const seen: Seen[] = [];
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_req, payload, done) => done(null, payload));
  app.route({
    method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url: "/*",
    handler: async (request, reply) => {
      const hash = createHash("sha256");
      let bodyBytes = 0;
      const body = request.body as NodeJS.ReadableStream | undefined;
      if (body && typeof (body as AsyncIterable<Buffer>)[Symbol.asyncIterator] === "function") {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          hash.update(chunk);
          bodyBytes += chunk.length;
        }
      }
      const entry = {
        method: request.method,
        url: request.url,
        headers: request.headers,
        bodyBytes,
        bodySha256: hash.digest("hex"),
      };
      seen.push(entry);
      const path = request.url.split("?")[0];
      // Never answers: only the gateway's timeout can end the request.
      if (path === "/api/v1/slow") await new Promise((resolve) => request.raw.socket.once("close", resolve));
      if (path === "/api/v1/unavailable") {
        reply.code(503);
        return {
          error: {
            code: "not_ready",
            message: "upstream says no",
            request_id: request.headers["x-request-id"],
          },
        };
      }
      if (path === "/api/v1/stream") {
        // A live stream: open until the client leaves.
        reply.raw.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
        reply.raw.write(": connected\n\n");
        await new Promise((resolve) => request.raw.socket.once("close", resolve));
        return reply;
      }
      if (path === "/api/v1/stream/events") {
        reply.raw.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
        for (let i = 1; i <= 3; i++) {
          reply.raw.write(`data: ${i}\n\n`);
          await new Promise((r) => setTimeout(r, 400));
        }
        reply.raw.end();
        return reply;
      }
      return {
        upstream: name,
        method: entry.method,
        url: entry.url,
        body_bytes: bodyBytes,
        body_sha256: entry.bodySha256,
      };
    },
  });
  const address = await app.listen({ host: "127.0.0.1", port });
  return { app, url: address, seen };
}

/** A port nothing listens on (bound then released). */
async function freePort(): Promise<number> {
  const server: Server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return port;
}

/**
 * A request with `Expect: 100-continue` by node:http (as curl sends for bodies over 1 MB): the
 * body goes only after `100 Continue`. Resolves with whether 100 came, the status and the body.
 */
function requestWithExpect(
  url: string,
  method: string,
  body: Buffer | null,
  headers: Record<string, string> = {},
): Promise<{ continued: boolean; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const request = http.request(url, {
      method,
      agent: false,
      headers: {
        ...headers,
        expect: "100-continue",
        ...(body ? { "content-length": String(body.length) } : {}),
      },
    });
    request.on("continue", () => {
      continued = true;
      request.end(body ?? undefined);
    });
    request.on("response", async (response) => {
      let text = "";
      for await (const chunk of response) text += chunk;
      resolve({ continued, status: response.statusCode ?? 0, body: text });
    });
    request.on("error", reject);
    if (!body) request.end();
    else request.flushHeaders();
  });
}

/** Sends `raw` on a TCP connection and resolves with everything answered until the server closes. */
function rawExchange(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("error", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("connect", () => socket.write(raw));
    socket.setTimeout(10_000, () => reject(new Error(`no answer; got ${JSON.stringify(data)}`)));
  });
}

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let query: Upstream;
let metadata: Upstream;
let oracle: Upstream;
let query2: Upstream;
const apps: FastifyInstance[] = [];
const redisClients: Redis[] = [];
const prefixes: string[] = [];

async function startGateway(env: Record<string, string> = {}, redis?: Redis) {
  const config = parseEnv(gatewayEnvSchema, {
    QUERY_API_URL: query.url,
    METADATA_API_URL: metadata.url,
    ORACLE_PRICE_URL: oracle.url,
    RATE_LIMIT_PER_MINUTE: "0",
    // A busy shared test machine must not make the gateway shed load, except where a test asks for it.
    GATEWAY_MAX_EVENT_LOOP_DELAY_MS: "0",
    ...env,
  });
  const app = buildApp({ logger, config, redis: redis ?? null }) as unknown as FastifyInstance;
  apps.push(app);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url };
}

function newRedis(url = testRedisUrl()): Redis {
  const redis = createRateLimitRedis(url);
  redisClients.push(redis);
  return redis;
}

beforeAll(async () => {
  [query, metadata, oracle, query2] = await Promise.all([
    startUpstream("query-api"),
    startUpstream("metadata-api"),
    startUpstream("oracle-price"),
    startUpstream("query-api-2"),
  ]);
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  for (const s of [query, metadata, oracle, query2]) s.seen.length = 0;
});

afterAll(async () => {
  const cleaner = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  redisClients.push(cleaner);
  for (const prefix of prefixes) await flushPrefix(cleaner, prefix);
  for (const r of redisClients) r.disconnect();
  await Promise.all([query, metadata, oracle, query2].map((s) => s.app.close()));
});

describe("gateway", () => {
  it("default", async () => {
    const { url } = await startGateway();
    const cases: [string, string][] = [
      ["/api/v1/prices/eth-usd", "oracle-price"],
      ["/api/v1/token-metadata", "metadata-api"],
      ["/api/v1/token-metadata/abc/finalize", "metadata-api"],
      ["/api/v1/webhooks", "metadata-api"],
      ["/api/v1/webhooks/wh_0123456789abcdef/deliveries?limit=2", "metadata-api"],
      ["/objects/images/abc.png", "metadata-api"],
      ["/api/v1/tokens?limit=5&search=a%20b", "query-api"],
      ["/api/v1/trending", "query-api"],
      ["/api/v1/openapi.json", "query-api"],
      ["/docs", "query-api"],
      ["/docs/static/index.html", "query-api"],
      ["/readyz", "query-api"],
    ];
    for (const [path, upstream] of cases) {
      const response = await fetch(url + path);
      expect(response.status, path).toBe(200);
      const body = (await response.json()) as { upstream: string; url: string };
      expect(body.upstream, path).toBe(upstream);
      expect(body.url, path).toBe(path);
    }
    // Webhook writes reach metadata-api with their JSON body and the client's X-API-Key (metadata-api
    // resolves the key itself; a gateway without key resolution passes it through).
    const hookBody = JSON.stringify({ url: "https://example.com/hook", events: ["trade"] });
    const posted = await fetch(`${url}/api/v1/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "tmi_webhooks_key" },
      body: hookBody,
    });
    expect(posted.status).toBe(200);
    const postSeen = metadata.seen.find((s) => s.method === "POST" && s.url === "/api/v1/webhooks")!;
    expect(postSeen.bodyBytes).toBe(Buffer.byteLength(hookBody));
    expect(postSeen.headers["x-api-key"]).toBe("tmi_webhooks_key");
    // HEAD keeps the upstream's Content-Length (no body); GET bodies match their length.
    const head = await fetch(`${url}/api/v1/tokens`, { method: "HEAD" });
    const headDirect = await fetch(`${query.url}/api/v1/tokens`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(headDirect.headers.get("content-length"));
    const get = await fetch(`${url}/api/v1/tokens`);
    expect(Number(get.headers.get("content-length"))).toBe((await get.arrayBuffer()).byteLength);
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toMatchObject({ status: "ok", service: "gateway" });
    expect(query.seen.some((s) => s.url === "/health")).toBe(false);
  });

  it("behavior: keeps a valid X-Request-ID, makes one otherwise, forwards it and returns it", async () => {
    const { url } = await startGateway();
    const kept = await fetch(`${url}/api/v1/tokens`, { headers: { "x-request-id": "client-id_1.2:3" } });
    expect(kept.headers.get("x-request-id")).toBe("client-id_1.2:3");
    expect(query.seen.at(-1)?.headers["x-request-id"]).toBe("client-id_1.2:3");

    const replaced = await fetch(`${url}/api/v1/prices/eth-usd`, {
      headers: { "x-request-id": "bad id with spaces" },
    });
    const made = replaced.headers.get("x-request-id");
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(oracle.seen.at(-1)?.headers["x-request-id"]).toBe(made);

    const missing = await fetch(`${url}/objects/x.json`);
    expect(missing.headers.get("x-request-id")).toBe(metadata.seen.at(-1)?.headers["x-request-id"]);
    expect(metadata.seen.at(-1)?.headers["x-forwarded-for"]).toBe("127.0.0.1");
    // Not trusted (default): a client's X-Forwarded-For is replaced by its address.
    await fetch(`${url}/api/v1/tokens`, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(query.seen.at(-1)?.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(query.seen.at(-1)?.headers["x-forwarded-proto"]).toBe("http");
    // Trusted: the socket address is appended.
    const trusting = await startGateway({ TRUST_PROXY: "true" });
    await fetch(`${trusting.url}/api/v1/tokens`, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(query.seen.at(-1)?.headers["x-forwarded-for"]).toBe("203.0.113.7, 127.0.0.1");

    const notFound = await fetch(`${url}/nope`, { headers: { "x-request-id": "r-404" } });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({
      error: {
        code: "not_found",
        message: expect.any(String),
        request_id: "r-404",
      },
    });
  });

  it("behavior: CORS for the configured origins, preflights answered at the gateway", async () => {
    const { url } = await startGateway({ CORS_ORIGINS: "https://app.example, https://admin.example" });
    const preflight = await fetch(`${url}/api/v1/token-metadata`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(metadata.seen).toHaveLength(0);

    const simple = await fetch(`${url}/api/v1/tokens`, { headers: { origin: "https://admin.example" } });
    expect(simple.headers.get("access-control-allow-origin")).toBe("https://admin.example");
    expect(simple.headers.get("access-control-expose-headers")).toContain("X-Request-ID");

    const foreign = await fetch(`${url}/api/v1/tokens`, { headers: { origin: "https://evil.example" } });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();

    // A preflight without Origin is refused in the error envelope, with the request id.
    const noOrigin = await fetch(`${url}/api/v1/token-metadata`, {
      method: "OPTIONS",
      headers: { "access-control-request-method": "POST", "x-request-id": "pre-1" },
    });
    expect(noOrigin.status).toBe(400);
    expect(noOrigin.headers.get("x-request-id")).toBe("pre-1");
    expect(await noOrigin.json()).toEqual({
      error: { code: "invalid_request", message: expect.any(String), request_id: "pre-1" },
    });
  });

  it("error: 429 rate_limited with Retry-After, counts shared by two gateways on one Redis prefix", async () => {
    const prefix = redisTestPrefix("gateway-rate-limit");
    prefixes.push(prefix);
    const env = { RATE_LIMIT_PER_MINUTE: "5", RATE_LIMIT_REDIS_PREFIX: prefix };
    const [redisA, redisB] = [newRedis(), newRedis()];
    await Promise.all([once(redisA, "ready"), once(redisB, "ready")]);
    const a = await startGateway(env, redisA);
    const b = await startGateway(env, redisB);
    const statuses: number[] = [];
    for (const base of [a.url, b.url, a.url, b.url, a.url]) {
      statuses.push((await fetch(`${base}/api/v1/tokens`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const limited = await fetch(`${b.url}/api/v1/tokens`, { headers: { "x-request-id": "limited-1" } });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited.json()).toEqual({
      error: {
        code: "rate_limited",
        message: expect.any(String),
        request_id: "limited-1",
      },
    });
    expect(query.seen).toHaveLength(5);
    // The gateway's own liveness probe is never limited.
    expect((await fetch(`${a.url}/health`)).status).toBe(200);
  });

  it("behavior: while Redis is unreachable, requests go through (not limited)", async () => {
    const redis = newRedis(`redis://127.0.0.1:${await freePort()}`);
    redis.on("error", () => {});
    const { url } = await startGateway({ RATE_LIMIT_PER_MINUTE: "1" }, redis);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${url}/api/v1/tokens`)).status);
    expect(statuses).toEqual([200, 200, 200]);
  });

  it("error: an unreachable upstream answers 503 service_unavailable, not a hang", async () => {
    const port = await freePort();
    const { url } = await startGateway({ QUERY_API_URL: `http://127.0.0.1:${port}` });
    const response = await fetch(`${url}/api/v1/tokens`, { headers: { "x-request-id": "down-1" } });
    expect(response.status).toBe(503);
    expect(response.headers.get("x-request-id")).toBe("down-1");
    expect(await response.json()).toEqual({
      error: {
        code: "service_unavailable",
        message: "query-api is unreachable",
        request_id: "down-1",
      },
    });
    // Other upstreams are unaffected.
    expect((await fetch(`${url}/api/v1/prices/eth-usd`)).status).toBe(200);
  });

  it("error: an upstream slower than UPSTREAM_TIMEOUT_MS answers 504 upstream_timeout", async () => {
    const { url } = await startGateway({ UPSTREAM_TIMEOUT_MS: "300" });
    const response = await fetch(`${url}/api/v1/slow`);
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: { code: "upstream_timeout" } });
  });

  it("behavior: upstream errors pass through unchanged and are not retried", async () => {
    const { url } = await startGateway();
    const response = await fetch(`${url}/api/v1/unavailable`, { headers: { "x-request-id": "pass-1" } });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: {
        code: "not_ready",
        message: "upstream says no",
        request_id: "pass-1",
      },
    });
    expect(query.seen.filter((s) => s.url === "/api/v1/unavailable")).toHaveLength(1);
  });

  it("error: under pressure the gateway sheds load with 503 service_unavailable, /health still answers", async () => {
    const { url } = await startGateway({
      GATEWAY_MAX_HEAP_USED_BYTES: "1",
      GATEWAY_PRESSURE_SAMPLE_INTERVAL_MS: "10",
    });
    // Wait for the first pressure sample on a route the gateway answers itself (nothing reaches
    // the upstream meanwhile).
    await waitFor(async () => (await fetch(`${url}/no-such-route`)).status === 503, {
      message: "the gateway sheds load",
    });
    const response = await fetch(`${url}/api/v1/tokens`, { headers: { "x-request-id": "shed-1" } });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toEqual({
      error: {
        code: "service_unavailable",
        message: expect.any(String),
        request_id: "shed-1",
      },
    });
    expect(query.seen).toHaveLength(0);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it("behavior: multipart uploads of 5 MB stream through unchanged; larger declared bodies are refused", async () => {
    const { url } = await startGateway();
    const image = Buffer.alloc(5 * 1024 * 1024, 7);
    image.write("\x89PNG\r\n\x1a\n", 0, "latin1");
    const form = new FormData();
    form.set("name", "Token");
    form.set("image", new Blob([image], { type: "image/png" }), "token.png");
    const request = new Request(`${url}/api/v1/token-metadata`, { method: "POST", body: form });
    const raw = Buffer.from(await request.clone().arrayBuffer());
    const response = await fetch(request);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { body_bytes: number; body_sha256: string };
    expect(body.body_bytes).toBe(raw.length);
    expect(body.body_sha256).toBe(createHash("sha256").update(raw).digest("hex"));
    expect(metadata.seen.at(-1)?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);

    const tooLarge = await fetch(`${url}/api/v1/token-metadata`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.alloc(6 * 1024 * 1024 + 1),
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: "payload_too_large" } });
  });

  it("behavior: Expect: 100-continue is answered on every route and not forwarded; uploads stream through", async () => {
    const { url } = await startGateway();
    for (const path of [
      "/api/v1/tokens?limit=1",
      "/api/v1/prices/eth-usd",
      "/api/v1/token-metadata",
      "/objects/images/abc.png",
      "/api/v1/stream/events",
      "/readyz",
      "/docs",
    ]) {
      const answer = await requestWithExpect(url + path, "GET", null);
      expect(answer.status, `${path} ${answer.body}`).toBe(200);
    }
    const health = await requestWithExpect(`${url}/health`, "GET", null);
    expect(health.status).toBe(200);
    const upload = Buffer.alloc(1_500_000, 9);
    const posted = await requestWithExpect(`${url}/api/v1/token-metadata`, "POST", upload, {
      "content-type": "application/octet-stream",
    });
    expect(posted.continued).toBe(true);
    expect(posted.status).toBe(200);
    expect(JSON.parse(posted.body)).toMatchObject({
      body_bytes: upload.length,
      body_sha256: createHash("sha256").update(upload).digest("hex"),
    });
    for (const upstream of [query, metadata, oracle])
      for (const seen of upstream.seen) expect(seen.headers.expect, seen.url).toBeUndefined();
    expect(metadata.seen.length).toBeGreaterThan(0);
  });

  it("error: Expect: 100-continue with a declared body over the limit is 413 payload_too_large without 100 Continue", async () => {
    const { url } = await startGateway();
    const answer = await requestWithExpect(
      `${url}/api/v1/token-metadata`,
      "POST",
      Buffer.alloc(6 * 1024 * 1024 + 1),
      {
        "content-type": "application/octet-stream",
      },
    );
    expect(answer.continued).toBe(false);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "payload_too_large" } });
    expect(metadata.seen).toHaveLength(0);
  });

  it("error: CONNECT is 405 method_not_allowed in the envelope, not a closed connection", async () => {
    const { url } = await startGateway();
    for (const target of [
      "/api/v1/tokens",
      "/api/v1/stream",
      "/objects/images/abc.png",
      "/health",
      "example.com:443",
    ]) {
      const response = await rawExchange(
        url,
        `CONNECT ${target} HTTP/1.1\r\nHost: x\r\nX-Request-ID: tunnel-1\r\n\r\n`,
      );
      const [head = "", body = ""] = response.split("\r\n\r\n");
      expect(head, target).toMatch(/^HTTP\/1\.1 405 /);
      expect(head.toLowerCase()).toContain("x-request-id: tunnel-1");
      expect(JSON.parse(body)).toMatchObject({
        error: { code: "method_not_allowed", request_id: "tunnel-1" },
      });
    }
    expect(query.seen).toHaveLength(0);
  });

  it("behavior: Server-Sent Events stream through unbuffered, with pauses longer than the upstream timeout", async () => {
    const { url } = await startGateway({ UPSTREAM_TIMEOUT_MS: "250" });
    const started = Date.now();
    const response = await fetch(`${url}/api/v1/stream/events`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const arrivals: [string, number][] = [];
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const line of decoder.decode(value).split("\n")) {
        if (line.startsWith("data: ")) arrivals.push([line.slice(6), Date.now() - started]);
      }
    }
    expect(arrivals.map(([data]) => data)).toEqual(["1", "2", "3"]);
    // The first event arrived long before the stream ended (no buffering).
    expect(arrivals[2]![1] - arrivals[0]![1]).toBeGreaterThan(600);
  });

  it("behavior: open streams, more than a REST pool holds, never delay a REST read", async () => {
    const { url } = await startGateway({ TRUST_PROXY: "loopback" });
    const streams: http.ClientRequest[] = [];
    try {
      // 200 streams from 20 client addresses (10 each, the per-client cap of query-api).
      const opened = await Promise.all(
        Array.from(
          { length: 200 },
          (_, i) =>
            new Promise<number>((resolve, reject) => {
              const request = http.get(`${url}/api/v1/stream`, {
                agent: false,
                headers: { accept: "text/event-stream", "x-forwarded-for": `198.51.100.${i % 20}` },
              });
              streams.push(request);
              request.on("response", (response) => {
                response.once("data", () => resolve(response.statusCode ?? 0));
              });
              request.on("error", reject);
            }),
        ),
      );
      expect(opened.every((status) => status === 200)).toBe(true);
      expect(query.seen.filter((s) => s.url === "/api/v1/stream")).toHaveLength(200);
      // Bounded waits only so that a starved read fails the test instead of hanging it.
      const tokens = await fetch(`${url}/api/v1/tokens?limit=2`, { signal: AbortSignal.timeout(15_000) });
      expect(tokens.status).toBe(200);
      expect(((await tokens.json()) as { url: string }).url).toBe("/api/v1/tokens?limit=2");
      const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(15_000) });
      expect(ready.status).toBe(200);
    } finally {
      for (const request of streams) request.destroy();
    }
  });

  it("behavior: several upstream URLs are balanced across replicas", async () => {
    const { url } = await startGateway({ QUERY_API_URL: `${query.url},${query2.url}` });
    const served = new Set<string>();
    for (let i = 0; i < 20; i++) {
      served.add(((await (await fetch(`${url}/api/v1/tokens`)).json()) as { upstream: string }).upstream);
    }
    expect([...served].sort()).toEqual(["query-api", "query-api-2"]);
  });

  it("behavior: a replica that refuses connections is ejected without a failed GET and returns after a /readyz probe", async () => {
    const port = await freePort();
    const { url } = await startGateway({
      QUERY_API_URL: `${query.url},http://127.0.0.1:${port}`,
      UPSTREAM_EJECT_MS: "200",
    });
    for (let i = 0; i < 30; i++) {
      const response = await fetch(`${url}/api/v1/tokens`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { upstream: string }).upstream).toBe("query-api");
    }
    const revived = await startUpstream("query-api-revived", port);
    try {
      await waitFor(
        async () =>
          ((await (await fetch(`${url}/api/v1/tokens`)).json()) as { upstream: string }).upstream ===
          "query-api-revived",
        { message: "the revived replica takes requests again" },
      );
      expect(revived.seen[0]?.url).toBe("/readyz");
    } finally {
      await revived.app.close();
    }
  });
});
