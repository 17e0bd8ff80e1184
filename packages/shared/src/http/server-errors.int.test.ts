// biome-ignore-all lint/suspicious/noExplicitAny: parsed JSON response bodies in tests
import net from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLogger } from "../logger/index.js";
import { createHttpApp, type HttpApp } from "./app.js";
import { answerClientError } from "./client-error.js";

// The HTTP server's own errors, on a real listening server: raw requests over TCP, since
// `inject` never reaches Node's parser.

const logger = createLogger({ service: "test", level: "silent" });
let app: HttpApp;
let port: number;

/** Sends `raw` and resolves with the whole response text once the server closes or answers. */
function rawRequest(raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("error", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("connect", () => {
      socket.end(raw);
    });
    socket.setTimeout(10_000, () => reject(new Error("no answer")));
  });
}

/**
 * Sends `head` (request line and headers, ending with the blank line) and, once the server answers
 * `100 Continue`, `body`; resolves with everything the server sent until it closed the connection.
 */
function expectContinue(head: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let data = "";
    let sent = false;
    socket.on("data", (chunk) => {
      data += chunk.toString();
      if (!sent && data.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
        sent = true;
        socket.write(body);
      }
    });
    socket.on("error", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("connect", () => socket.write(head));
    socket.setTimeout(10_000, () => reject(new Error(`no answer; got ${JSON.stringify(data)}`)));
  });
}

/** Status, headers (lowercase names) and parsed JSON body of a raw HTTP/1.1 response. */
function parse(response: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = "", body = ""] = response.split("\r\n\r\n");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(":");
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: body ? JSON.parse(body) : null };
}

function expectEnvelope(res: ReturnType<typeof parse>, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toContain("application/json");
  expect(res.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.request_id).toBe(res.headers["x-request-id"]);
}

beforeAll(async () => {
  app = createHttpApp({ service: "test-svc", logger });
  app.get("/tokens/:address", async (request) => ({
    address: (request.params as { address: string }).address,
  }));
  // A plugin answering by itself with a bare body (what @fastify/cors does for a preflight
  // without Origin under strictPreflight).
  app.options("/bare", async (_request, reply) =>
    reply.code(400).type("text/plain").send("Invalid Preflight Request"),
  );
  app.get("/db-timeout", async () => {
    throw Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
  });
  app.post("/echo", async (request) => ({ bytes: JSON.stringify(request.body).length }));
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await app?.close();
});

describe("errors of the HTTP server itself", () => {
  test("default: a bad percent-encoding is 400 invalid_request in the envelope", async () => {
    const res = parse(
      await rawRequest("GET /tokens/%E0%A4%A HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc-1\r\n\r\n"),
    );
    expectEnvelope(res, 400, "invalid_request");
    expect(res.headers["x-request-id"]).toBe("abc-1");
  });

  test("behavior: an over-long path parameter is 414 uri_too_long", async () => {
    const res = parse(await rawRequest(`GET /tokens/${"a".repeat(300)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expectEnvelope(res, 414, "uri_too_long");
  });

  test("behavior: headers or URL over the size limit are 431 headers_too_large", async () => {
    const longUrl = parse(
      await rawRequest(`GET /tokens/x?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expectEnvelope(longUrl, 431, "headers_too_large");
    const longHeader = parse(
      await rawRequest(`GET /tokens/x HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`),
    );
    expectEnvelope(longHeader, 431, "headers_too_large");
  });

  test("behavior: CONNECT is 405 method_not_allowed in the envelope, not a closed connection", async () => {
    for (const target of ["/tokens/0xabc", "/nowhere", "127.0.0.1:443"]) {
      const res = parse(
        await rawRequest(`CONNECT ${target} HTTP/1.1\r\nHost: x\r\nX-Request-ID: conn-1\r\n\r\n`),
      );
      expectEnvelope(res, 405, "method_not_allowed");
      expect(res.headers["x-request-id"]).toBe("conn-1");
      expect(res.headers.connection).toBe("close");
      if (target === "/tokens/0xabc") expect(res.headers.allow).toContain("GET");
    }
  });

  test("behavior: Expect: 100-continue gets 100 Continue, then the answer to the body", async () => {
    const body = JSON.stringify({ a: "x".repeat(2000) });
    const response = await expectContinue(
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      body,
    );
    expect(response.startsWith("HTTP/1.1 100 Continue\r\n\r\n")).toBe(true);
    const res = parse(response.slice("HTTP/1.1 100 Continue\r\n\r\n".length));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ bytes: body.length });
  });

  test("error: Expect: 100-continue with a declared body over the limit is 413 at once, without 100 Continue", async () => {
    const response = await expectContinue(
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${4 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`,
      "",
    );
    const res = parse(response);
    expectEnvelope(res, 413, "payload_too_large");
    expect(res.headers.connection).toBe("close");
  });

  test("behavior: an Expect value other than 100-continue is ignored: the request is served", async () => {
    const res = parse(
      await rawRequest(
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: something-else\r\n\r\n{}",
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ bytes: 2 });
  });

  test("behavior: a request that cannot be parsed is 400 invalid_request", async () => {
    const res = parse(await rawRequest("GARBAGE\r\n\r\n"));
    expectEnvelope(res, 400, "invalid_request");
  });

  test("behavior: a bare error body of a plugin is rewritten into the envelope, status kept", async () => {
    const res = await app.inject({ method: "OPTIONS", url: "/bare", headers: { "x-request-id": "pre-1" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { code: "invalid_request", message: "Invalid Preflight Request", request_id: "pre-1" },
    });
    expect(res.headers["x-request-id"]).toBe("pre-1");
  });

  test("behavior: a database statement timeout is 503 timeout", async () => {
    const res = await app.inject({ url: "/db-timeout" });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe("timeout");
  });

  test("behavior: a request not received in time is 408 request_timeout", async () => {
    // Node reports it as ERR_HTTP_REQUEST_TIMEOUT on the connection (checked every 30 s by
    // default): answer it on a real socket pair.
    const server = net.createServer((socket) => {
      socket.on("error", () => {}); // answerClientError destroys the socket with the error
      answerClientError(
        Object.assign(new Error("request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }),
        socket,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const saved = port;
    port = (server.address() as net.AddressInfo).port;
    try {
      const res = parse(await rawRequest("GET / HTTP/1.1\r\n"));
      expectEnvelope(res, 408, "request_timeout");
      expect(res.headers.connection).toBe("close");
    } finally {
      port = saved;
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
