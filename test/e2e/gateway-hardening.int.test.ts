// Findings of a hardening pass, checked through the gateway of the whole system (real query-api,
// metadata-api and its storage, the gateway, PostgreSQL): open live streams do not starve REST
// reads; the per-client stream cap holds for a burst on an idle stream; `Expect: 100-continue`
// uploads by curl; `CONNECT`; object keys with a trailing slash.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { crc32, deflateSync } from "node:zlib";
import { waitFor } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOTAL_SUPPLY } from "../src/api-scenario.js";
import { tokenPageSchema } from "../src/platform-schemas.js";
import { type System, startSystem } from "../src/system.js";

const run = promisify(execFile);
const PER_CLIENT = 10;

let system: System;
let scratch: string;
let probe: pg.Client;
const streams: http.ClientRequest[] = [];

/** A valid PNG of `side`×`side` random RGB pixels (incompressible: about 3 × side² bytes). */
function noisePng(side: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < side; y++) rows.push(Buffer.from([0]), randomBytes(side * 3));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(rows), { level: 0 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Opens a stream through the gateway as client `ip`; resolves with its status once headers arrive. */
function openStream(ip: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${system.baseUrl}/api/v1/stream`, {
      agent: false,
      headers: { accept: "text/event-stream", "x-forwarded-for": ip },
    });
    streams.push(request);
    request.on("response", (response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    request.on("error", reject);
  });
}

/** How many times each status occurs. */
function countOf(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

function closeStreams(): void {
  for (const request of streams.splice(0)) request.destroy();
}

/** Connections of query-api's stream listener on the system's database (0 once the stream is idle-stopped). */
async function listeners(): Promise<number> {
  const result = await probe.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'query-api-stream-listen'",
  );
  return result.rows[0]!.n;
}

/** `curl -F` of a metadata draft with `image` (curl adds `Expect: 100-continue` itself for bodies over 1 MB). */
async function curlUpload(
  image: Buffer,
  name: string,
): Promise<{ status: number; body: Record<string, unknown>; trace: string }> {
  const file = join(scratch, name);
  writeFileSync(file, image);
  const { stdout, stderr } = await run(
    "curl",
    [
      "-sS",
      "-v",
      "--max-time",
      "60",
      "-w",
      "\n%{http_code}",
      "-F",
      "name=Expect Test",
      "-F",
      "symbol=EXPT",
      "-F",
      `initial_supply=${TOTAL_SUPPLY}`,
      "-F",
      `image=@${file};type=image/png`,
      `${system.baseUrl}/api/v1/token-metadata`,
    ],
    { maxBuffer: 1024 * 1024 },
  );
  const cut = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)), trace: stderr };
}

/** Sends `raw` on a TCP connection to the gateway; resolves with what came back until it closed. */
function rawExchange(raw: string): Promise<string> {
  const { port } = new URL(system.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("error", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("connect", () => socket.write(raw));
    socket.setTimeout(15_000, () => reject(new Error(`no answer; got ${JSON.stringify(data)}`)));
  });
}

describe("gateway hardening, through the whole system", () => {
  beforeAll(async () => {
    system = await startSystem({
      echo: process.env.E2E_ECHO === "1",
      env: {
        // The test's client addresses come in X-Forwarded-For from 127.0.0.1: trusted by both.
        // No load shedding: a busy shared test machine must not turn streams into 503s.
        gateway: { TRUST_PROXY: "loopback", GATEWAY_MAX_EVENT_LOOP_DELAY_MS: "0" },
        "query-api": {
          TRUST_PROXY: "loopback",
          STREAM_MAX_PER_CLIENT: String(PER_CLIENT),
          STREAM_IDLE_STOP_MS: "300",
        },
      },
    });
    scratch = mkdtempSync(join(tmpdir(), "tmi-e2e-upload-"));
    probe = new pg.Client({ connectionString: system.database.url });
    await probe.connect();
  }, 300_000);

  afterAll(async () => {
    closeStreams();
    await probe?.end().catch(() => {});
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    await system?.stop();
  }, 60_000);

  it("error: a burst of first streams from one client gets exactly the per-client cap, also once the stream went idle", async () => {
    for (let round = 1; round <= 2; round++) {
      await waitFor(async () => (await listeners()) === 0, {
        timeoutMs: 30_000,
        intervalMs: 50,
        message: "the stream did not stop listening when idle",
      });
      const statuses = await Promise.all(Array.from({ length: 14 }, () => openStream("203.0.113.50")));
      expect(
        statuses.filter((s) => s === 200),
        `round ${round}`,
      ).toHaveLength(PER_CLIENT);
      expect(
        statuses.filter((s) => s === 429),
        `round ${round}`,
      ).toHaveLength(14 - PER_CLIENT);
      closeStreams();
    }
  });

  it("behavior: 140 open streams from 14 clients (more than a REST pool of 128) never delay REST reads or /readyz", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 140 }, (_, i) => openStream(`198.51.100.${Math.floor(i / PER_CLIENT) + 1}`)),
    );
    expect(countOf(statuses)).toEqual({ 200: 140 });
    // Bounded waits only so that a starved read fails the test instead of hanging it.
    const tokens = await fetch(`${system.baseUrl}/api/v1/tokens?limit=2`, {
      signal: AbortSignal.timeout(20_000),
    });
    expect(tokens.status).toBe(200);
    expect(tokenPageSchema.safeParse(await tokens.json()).success).toBe(true);
    const ready = await fetch(`${system.baseUrl}/readyz`, { signal: AbortSignal.timeout(20_000) });
    expect(ready.status).toBe(200);
    // The caps still answer while the streams are open.
    expect(await openStream("198.51.100.1")).toBe(429);
    closeStreams();
  });

  it("behavior: a 1.5 MB PNG uploaded by plain curl -F (Expect: 100-continue) is 201; its object is served only under its exact key", async () => {
    const upload = await curlUpload(noisePng(708), "valid.png");
    expect(upload.trace).toMatch(/Expect: 100-continue/i);
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const imageUrl = upload.body.image_url as string;
    expect(imageUrl).toMatch(/^\/objects\/images\/[0-9a-f]{64}\.png$/);
    const object = await fetch(system.baseUrl + imageUrl);
    expect(object.status).toBe(200);
    expect(object.headers.get("content-type")).toBe("image/png");
    await object.arrayBuffer();
    for (const variant of [`${imageUrl}/`, `${imageUrl}//`, imageUrl.replace("/objects/", "/objects//")]) {
      const response = await fetch(system.baseUrl + variant);
      expect(response.status, variant).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("error: a 6 MB PNG uploaded by plain curl -F is 413 payload_too_large, below and above the gateway's limit", async () => {
    // 6,000,000-byte image (under the gateway's 6 MiB: metadata-api refuses it while streaming) and
    // a 6.5 MB one (refused by the gateway on the declared length, before 100 Continue).
    for (const side of [1414, 1472]) {
      const upload = await curlUpload(noisePng(side), `large-${side}.png`);
      expect(upload.status, JSON.stringify(upload.body)).toBe(413);
      expect(upload.body).toMatchObject({ error: { code: "payload_too_large" } });
    }
  });

  it("error: CONNECT is 405 method_not_allowed in the envelope, not a closed connection", async () => {
    for (const target of [
      "/api/v1/tokens",
      "/api/v1/stream",
      "/objects/images/x.png",
      "/readyz",
      "example.com:443",
    ]) {
      const response = await rawExchange(
        `CONNECT ${target} HTTP/1.1\r\nHost: x\r\nX-Request-ID: tunnel-2\r\n\r\n`,
      );
      const [head = "", body = ""] = response.split("\r\n\r\n");
      expect(head, target).toMatch(/^HTTP\/1\.1 405 /);
      expect(JSON.parse(body)).toMatchObject({
        error: { code: "method_not_allowed", request_id: "tunnel-2" },
      });
    }
  });
});
