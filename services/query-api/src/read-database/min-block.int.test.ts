import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertToken, testAddress, upsertCheckpoint } from "../../test/fixtures.js";
import { buildApp } from "../app.js";
import { createReadPool } from "../db.js";
import { createReadDatabase } from "./read-database.js";

// `min_block` waits only for requests that would be answered: an unknown route or a bad parameter
// is answered at once. The "patient" app waits far longer than any test may take, so a request
// that waited before routing or validation would never answer (the test fails by its timeout).

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;
const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
const INDEXED = 42n;
const AHEAD = 1_000_000n;

async function appWaiting(minBlockWaitMs: number) {
  const app = await buildApp({
    pool: reader,
    readDatabase: createReadDatabase({ readPool: reader, primaryPool: null, fallbackToPrimary: false }),
    minBlockWaitMs,
    logger: createLogger({ service: "query-api", level: "warn" }),
    config: { cursorSecret: "min-block-test-secret-0123456789", corsOrigins: "*" },
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  await insertToken(writer, { address: testAddress(0x42), block: 40n, timestamp: 1_763_700_000n });
  await upsertCheckpoint(writer, { block: INDEXED, timestamp: 1_763_700_010n });
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

describe("min_block", () => {
  it("default: a block already shown answers at once, one ahead answers 503 not_ready after the wait", async () => {
    const app = await appWaiting(50);
    const shown = await app.inject({ url: `/api/v1/tokens?limit=1&min_block=${INDEXED}` });
    expect(shown.statusCode).toBe(200);
    const ahead = await app.inject({ url: `/api/v1/tokens?limit=1&min_block=${AHEAD}` });
    expect(ahead.statusCode).toBe(503);
    expect(ahead.json()).toMatchObject({ error: { code: "not_ready" } });
    expect(ahead.headers["retry-after"]).toBe("1");
  });

  it("behavior: an unknown route is 404 and a bad parameter 400 without waiting for the block", async () => {
    const app = await appWaiting(3_600_000);
    const missing = await app.inject({ url: `/api/v1/nonexistent?min_block=${AHEAD}` });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: "not_found" } });
    const badLimit = await app.inject({ url: `/api/v1/tokens?limit=abc&min_block=${AHEAD}` });
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json()).toMatchObject({ error: { code: "invalid_request" } });
    const badBlock = await app.inject({ url: "/api/v1/tokens?min_block=-1" });
    expect(badBlock.statusCode).toBe(400);
    expect(badBlock.json()).toMatchObject({
      error: { code: "invalid_request", details: [{ field: "min_block" }] },
    });
  });
});
