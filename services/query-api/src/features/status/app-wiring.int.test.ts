import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../app.js";
import { createReadPool } from "../../db.js";
import { streamRoutes } from "../stream/stream-routes.js";
import { insertToken, openSse, testAddress, upsertCheckpoint } from "../stream/stream-testing.js";

// The additions inside the real app (buildApp): routes, OpenAPI entries, freshness headers.

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;
let app: Awaited<ReturnType<typeof buildApp>>;
const token = testAddress(0x99);

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  await insertToken(writer, { address: token, block: 40n, timestamp: 1_763_700_000n });
  await upsertCheckpoint(writer, { block: 42n, timestamp: 1_763_700_010n });
  app = await buildApp({
    pool: reader,
    logger: createLogger({ service: "query-api", level: "warn" }),
    config: { cursorSecret: "wiring-test-secret-0123456789", corsOrigins: "*" },
    plugins: [streamRoutes({ listenerUrl: db.url })],
  });
});

afterAll(async () => {
  await app?.close();
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

describe("issue-8 additions in buildApp", () => {
  it("default", async () => {
    const status = await app.inject({ url: "/api/v1/status" });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ chain_id: 31337, indexed_block: 42, indexed_at: 1_763_700_010 });

    // Spec routes get the freshness headers too.
    const detail = await app.inject({ url: `/api/v1/tokens/${token}` });
    expect(detail.statusCode).toBe(200);
    expect(detail.headers["x-indexed-block"]).toBe("42");
    expect(detail.headers["x-indexed-at"]).toBe("1763700010");
    const holders = await app.inject({ url: `/api/v1/tokens/${token}/holders` });
    expect(holders.json()).toEqual({ items: [] });
    expect(holders.headers.etag).toBeTruthy();

    const openapi = (await app.inject({ url: "/api/v1/openapi.json" })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(["/api/v1/tokens/{address}/holders", "/api/v1/status", "/api/v1/stream"]),
    );
  });

  it("behavior: the stream is served by the app when passed in plugins", async () => {
    const address = await app.listen({ host: "127.0.0.1", port: 0 });
    const sse = await openSse(`${address}/api/v1/stream?tokens=${token}`);
    expect(sse.status).toBe(200);
    expect(sse.headers["access-control-allow-origin"]).toBe("*");
    expect(sse.headers["x-indexed-block"]).toBe("42");
    sse.close();
  });
});
