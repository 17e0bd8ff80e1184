import { createHash } from "node:crypto";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { parseEnv } from "@tmi/shared/env";
import { createHttpApp } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import { waitFor } from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "./app.js";
import { gatewayEnvSchema } from "./config.js";

const silent = createLogger({ service: "gateway-test", level: "silent" });

/**
 * An upstream built as the services are (the shared HTTP app: 405 `method_not_allowed` for another
 * method on a known path): `GET /api/v1/tokens`, `GET /readyz`, `GET /objects/*`, and
 * `POST /api/v1/token-metadata` reading the whole body. Counts the requests of each method.
 */
async function startServiceUpstream(port = 0) {
  const methods: string[] = [];
  const app = createHttpApp({ service: "upstream", logger: silent, withoutHealthRoutes: true });
  const root = app as unknown as FastifyInstance;
  root.addHook("onRequest", (request, _reply, done) => {
    methods.push(request.method);
    done();
  });
  root.removeAllContentTypeParsers();
  root.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 8 * 1024 * 1024 }, (_r, body, done) =>
    done(null, body),
  );
  root.get("/api/v1/tokens", async () => ({ items: [] }));
  root.get("/readyz", async () => ({ status: "ready" }));
  root.get("/objects/*", async () => ({ object: true }));
  root.post("/api/v1/token-metadata", async (request) => {
    const body = request.body as Buffer;
    return {
      body_bytes: body.length,
      body_sha256: createHash("sha256").update(body).digest("hex"),
      content_length: request.headers["content-length"] ?? null,
    };
  });
  const url = await root.listen({ host: "127.0.0.1", port });
  return { app: root, url, methods };
}

/**
 * A client sending a request body slowly over a real socket: the request head and `first` (one
 * byte) at once, then one byte of the declared `Content-Length` every `everyMs` (none when 0).
 * `answer` resolves with what the server sent once it closed the connection or answered.
 */
function slowBody(base: string, head: string, everyMs: number, first = "x") {
  const { hostname, port } = new URL(base);
  const socket: Socket = connect(Number(port), hostname);
  let received = "";
  let timer: NodeJS.Timeout | undefined;
  const answer = new Promise<string>((resolve) => {
    socket.on("data", (chunk) => {
      received += chunk.toString();
      if (received.includes("\r\n\r\n")) resolve(received);
    });
    socket.on("close", () => resolve(received));
    socket.on("error", () => resolve(received));
  });
  const connected = once(socket, "connect").then(() => {
    socket.write(`${head}\r\n\r\n${first}`);
    if (everyMs > 0) timer = setInterval(() => socket.write("x"), everyMs);
  });
  const closed = once(socket, "close");
  return {
    connected,
    answer,
    closed,
    end: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

type SlowBody = ReturnType<typeof slowBody>;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return port;
}

let upstream: Awaited<ReturnType<typeof startServiceUpstream>>;
const gateways: FastifyInstance[] = [];
const clients: SlowBody[] = [];

async function startGateway(env: Record<string, string> = {}, logger = silent) {
  const config = parseEnv(gatewayEnvSchema, {
    QUERY_API_URL: upstream.url,
    METADATA_API_URL: upstream.url,
    ORACLE_PRICE_URL: upstream.url,
    RATE_LIMIT_PER_MINUTE: "0",
    GATEWAY_MAX_EVENT_LOOP_DELAY_MS: "0",
    ...env,
  });
  const app = buildApp({ logger, config, redis: null }) as unknown as FastifyInstance;
  gateways.push(app);
  return app.listen({ host: "127.0.0.1", port: 0 });
}

/** POSTs `body` to the upload route of the gateway at `url`. */
function upload(url: string, body: string | Buffer) {
  return fetch(`${url}/api/v1/token-metadata`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body,
  });
}

/** Uploads `body` until the gateway answers `status` (the condition the test waits for); returns that answer. */
function uploadUntil(url: string, body: string | Buffer, status: number, message: string): Promise<Response> {
  return waitFor(
    async () => {
      const response = await upload(url, body);
      if (response.status === status) return response;
      await response.arrayBuffer();
      return undefined;
    },
    { message },
  );
}

/** Opens `count` slow bodies (one byte every 2 s) and waits until every head was sent. */
async function openSlowBodies(url: string, count: number, head: (i: number) => string): Promise<SlowBody[]> {
  const opened = Array.from({ length: count }, (_, i) => slowBody(url, head(i), 2000));
  clients.push(...opened);
  await Promise.all(opened.map((c) => c.connected));
  return opened;
}

beforeAll(async () => {
  upstream = await startServiceUpstream();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.end();
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  upstream.methods.length = 0;
});

afterAll(async () => {
  await upstream.app.close();
});

describe("gateway: slow request bodies", () => {
  it("behavior: 130 slow bodies on a read route are answered 405 at the gateway; reads stay answered", async () => {
    const url = await startGateway();
    const slow = await openSlowBodies(
      url,
      130,
      () =>
        "POST /api/v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000",
    );
    // Bounded only so that a starved read fails the test instead of hanging it.
    const read = await fetch(`${url}/api/v1/tokens`, { signal: AbortSignal.timeout(15_000) });
    expect(read.status).toBe(200);
    const answers = await Promise.all(slow.map((c) => c.answer));
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 405 /);
      expect(answer.toLowerCase()).toContain("allow: get, head");
      expect(answer).toContain('"code":"method_not_allowed"');
    }
    // The answer ends the connection (the rest of the body is never read).
    await Promise.all(slow.map((c) => c.closed));
    expect(upstream.methods.filter((m) => m === "POST")).toHaveLength(0);
    // What the upstream answers itself, without the gateway.
    const direct = await fetch(`${upstream.url}/api/v1/tokens`, { method: "POST", body: "{}" });
    expect(direct.status).toBe(405);
    expect(direct.headers.get("allow")).toBe("GET, HEAD");
  });

  it("behavior: 140 slow uploads hold no upstream connection: objects stay answered, a complete upload goes through whole", async () => {
    const url = await startGateway({ GATEWAY_MAX_BODIES_PER_CLIENT: "0" });
    await openSlowBodies(
      url,
      140,
      (i) =>
        `POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b${i}\r\nContent-Length: 100000`,
    );
    const object = await fetch(`${url}/objects/images/a.png`, { signal: AbortSignal.timeout(15_000) });
    expect(object.status).toBe(200);
    expect(upstream.methods.filter((m) => m === "POST")).toHaveLength(0);

    // A chunked upload (no Content-Length) arrives whole, with its length.
    const upload = Buffer.alloc(300_000, 5);
    const chunks = [upload.subarray(0, 100_000), upload.subarray(100_000)];
    const posted = await fetch(`${url}/api/v1/token-metadata`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: new ReadableStream({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      }),
      duplex: "half",
      signal: AbortSignal.timeout(15_000),
    } as RequestInit);
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual({
      body_bytes: upload.length,
      body_sha256: createHash("sha256").update(upload).digest("hex"),
      content_length: String(upload.length),
    });
  });

  it("error: a body slower than the minimum rate is 408 request_timeout and never reaches the upstream", async () => {
    const url = await startGateway({ GATEWAY_BODY_TIMEOUT_MS: "300" });
    const client = slowBody(
      url,
      "POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nX-Request-ID: slow-1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000",
      0,
    );
    clients.push(client);
    const answer = await client.answer;
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head.toLowerCase()).toContain("connection: close");
    expect(JSON.parse(body)).toEqual({
      error: { code: "request_timeout", message: expect.any(String), request_id: "slow-1" },
    });
    await client.closed;
    expect(upstream.methods).toHaveLength(0);
  });

  it("error: more bodies in flight from one client than GATEWAY_MAX_BODIES_PER_CLIENT are 429 rate_limited", async () => {
    const url = await startGateway({ GATEWAY_MAX_BODIES_PER_CLIENT: "2" });
    const slow = await openSlowBodies(
      url,
      2,
      () =>
        "POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000",
    );
    // Once both slow bodies are being received, a third body from the same address is refused.
    const limited = await uploadUntil(url, "complete", 429, "a third body is refused");
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toMatchObject({ error: { code: "rate_limited" } });
    // The slow clients leave: bodies are taken again.
    for (const client of slow) client.end();
    await uploadUntil(url, "complete", 200, "bodies are taken again");
    expect(upstream.methods.filter((m) => m === "POST").length).toBeGreaterThan(0);
  });

  it("error: bodies past GATEWAY_MAX_BUFFERED_BYTES, every client together, are 503 service_unavailable", async () => {
    const url = await startGateway({ GATEWAY_MAX_BUFFERED_BYTES: "1000" });
    const body = Buffer.alloc(500, 1);
    expect((await upload(url, body)).status).toBe(200);
    // A stalled body holds 800 bytes: a body of 500 more is refused once they are received.
    const held = slowBody(
      url,
      "POST /api/v1/token-metadata HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000",
      0,
      "x".repeat(800),
    );
    clients.push(held);
    await held.connected;
    const refused = await uploadUntil(url, body, 503, "a body past the cap is refused");
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ error: { code: "service_unavailable" } });
    held.end();
    await uploadUntil(url, body, 200, "bodies are taken again");
  });

  it("behavior: a client's Connection: close ends the connection after a proxied answer", async () => {
    const url = await startGateway();
    const client = slowBody(url, "GET /api/v1/tokens HTTP/1.1\r\nHost: x\r\nConnection: close", 0, "");
    clients.push(client);
    expect(await client.answer).toMatch(/^HTTP\/1\.1 200 /);
    // Bounded only so that a connection kept open fails the test instead of hanging it.
    await Promise.race([
      client.closed,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the connection stayed open")), 15_000).unref(),
      ),
    ]);
  });

  it("behavior: an upstream not reached yet logs at warn; once reached, losing it logs at error", async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const port = await freePort();
    const url = await startGateway({ QUERY_API_URL: `http://127.0.0.1:${port}` }, logger);
    const starting = await fetch(`${url}/readyz`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toMatchObject({
      error: { code: "service_unavailable", message: "query-api is unreachable" },
    });
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.level === 40 && l.msg.includes("not reachable yet"))).toBe(true);

    const late = await startServiceUpstream(port);
    try {
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      await late.app.close();
    }
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 503, {
      message: "query-api is gone",
    });
    expect(lines.some((l) => l.level === 50 && l.msg === "request failed")).toBe(true);
  });
});
