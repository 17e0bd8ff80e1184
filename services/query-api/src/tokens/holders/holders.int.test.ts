import { createCursorCodec } from "@tmi/shared/codec";
import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertToken, TEST_FACTORY, testAddress } from "../../../test/fixtures.js";
import { createReadPool } from "../../db.js";
import { holderRoutes } from "./holder-routes.js";

const token = testAddress(0xaa);
const pool = testAddress(0xbb, "d");
const SUPPLY = 10n ** 27n;

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;
let app: HttpApp;

/** Holders of `token` (balance): ranked, with ties broken by address. */
const holders: [string, bigint][] = [
  [testAddress(5, "e"), 3n * 10n ** 26n], // 30%
  [testAddress(3, "e"), 10n ** 26n], // 10% (tie, lower address first)
  [testAddress(4, "e"), 10n ** 26n],
  [testAddress(1, "e"), 12_345n], // share floors to 0
  [testAddress(2, "e"), 10n ** 23n + 99_999n], // 1.0000…%: 1 bps... floored
];

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  await insertToken(writer, { address: token, block: 10n, timestamp: 1_700_000_000n });
  await writer.query(
    "UPDATE tokens SET pool_address = $2, lifecycle = 'graduated', creator = $3 WHERE address = $1",
    [token, pool, testAddress(5, "e")],
  );
  // Cohorts (docs/api.md "Risk and all-time high"); the creator's tag comes from `tokens.creator`.
  for (const [wallet, sniper, launch, insider] of [
    [testAddress(3, "e"), true, true, false],
    [testAddress(4, "e"), false, false, true],
    [testAddress(1, "e"), true, false, false],
    [testAddress(6, "e"), true, false, true], // no balance: in no page
  ] as const)
    await writer.query(
      "INSERT INTO token_cohorts (token_address, wallet, sniper, launch_block_buyer, insider) VALUES ($1, $2, $3, $4, $5)",
      [token, wallet, sniper, launch, insider],
    );
  const rows: [string, bigint][] = [
    ...holders,
    ["0x0000000000000000000000000000000000000000", 5n * 10n ** 26n], // not holders:
    [TEST_FACTORY, 4n * 10n ** 26n],
    [token, 10n ** 20n],
    [pool, 2n * 10n ** 26n],
    [testAddress(6, "e"), 0n], // sold everything
  ];
  for (const [holder, balance] of rows) {
    await writer.query("INSERT INTO token_balances (token_address, holder, balance) VALUES ($1, $2, $3)", [
      token,
      holder,
      balance.toString(),
    ]);
  }
  app = createHttpApp({
    service: "query-api",
    logger: createLogger({ service: "query-api", level: "warn" }),
  });
  await (app as unknown as FastifyInstance).register(
    holderRoutes({ db: reader, cursors: createCursorCodec("holders-test-secret-0123456789") }),
  );
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

describe("GET /api/v1/tokens/:address/holders", () => {
  it("default", async () => {
    const response = await app.inject({
      url: `/api/v1/tokens/${token.toUpperCase().replace("0X", "0x")}/holders`,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("public, max-age=2");
    expect(response.json()).toEqual({
      items: [
        {
          address: testAddress(5, "e"),
          balance: (3n * 10n ** 26n).toString(),
          share_bps: 3000,
          tags: ["creator"],
        },
        {
          address: testAddress(3, "e"),
          balance: (10n ** 26n).toString(),
          share_bps: 1000,
          tags: ["launch_block_buyer", "sniper"],
        },
        {
          address: testAddress(4, "e"),
          balance: (10n ** 26n).toString(),
          share_bps: 1000,
          tags: ["insider"],
        },
        { address: testAddress(2, "e"), balance: (10n ** 23n + 99_999n).toString(), share_bps: 1, tags: [] },
        { address: testAddress(1, "e"), balance: "12345", share_bps: 0, tags: ["sniper"] },
      ],
    });
    expect(SUPPLY).toBe(10n ** 27n);
  });

  it("behavior: ?tag= lists one cohort in the same order, pages bound to the tag", async () => {
    const walk = async (tag: string) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const response = await app.inject({
          url: `/api/v1/tokens/${token}/holders?tag=${tag}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        });
        expect(response.statusCode).toBe(200);
        const body = response.json() as {
          items: { address: string; tags: string[] }[];
          next_cursor?: string;
        };
        for (const item of body.items) expect(item.tags).toContain(tag);
        seen.push(...body.items.map((i) => i.address));
        cursor = body.next_cursor;
      } while (cursor);
      return seen;
    };
    expect(await walk("sniper")).toEqual([testAddress(3, "e"), testAddress(1, "e")]);
    expect(await walk("launch_block_buyer")).toEqual([testAddress(3, "e")]);
    expect(await walk("insider")).toEqual([testAddress(4, "e")]);
    expect(await walk("creator")).toEqual([testAddress(5, "e")]);
    // A cursor of the sniper pages is refused without the tag and with another tag, and the reverse.
    const first = await app.inject({ url: `/api/v1/tokens/${token}/holders?tag=sniper&limit=1` });
    const cursor = encodeURIComponent(first.json().next_cursor);
    const untagged = await app.inject({ url: `/api/v1/tokens/${token}/holders?limit=1` });
    for (const url of [
      `/api/v1/tokens/${token}/holders?cursor=${cursor}`,
      `/api/v1/tokens/${token}/holders?tag=insider&cursor=${cursor}`,
      `/api/v1/tokens/${token}/holders?tag=sniper&cursor=${encodeURIComponent(untagged.json().next_cursor)}`,
    ]) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
  });

  it("behavior: pages with limit and cursor, ties ordered by address", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await app.inject({
        url: `/api/v1/tokens/${token}/holders?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json() as { items: { address: string }[]; next_cursor?: string };
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((i) => i.address));
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([
      testAddress(5, "e"),
      testAddress(3, "e"),
      testAddress(4, "e"),
      testAddress(2, "e"),
      testAddress(1, "e"),
    ]);
  });

  it("error: malformed address, bad limit or cursor, unknown token", async () => {
    const bad = await app.inject({ url: "/api/v1/tokens/0x123/holders" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: "invalid_address" } });
    for (const query of [
      "limit=0",
      "limit=101",
      "limit=abc",
      "cursor=nope",
      "tag=whale",
      "tag=",
      "tag=Sniper",
    ]) {
      const response = await app.inject({ url: `/api/v1/tokens/${token}/holders?${query}` });
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
    // A cursor of another token's holders is refused too (route-bound).
    const other = testAddress(0xcc);
    await insertToken(writer, { address: other, block: 11n, timestamp: 1_700_000_100n });
    const page = await app.inject({ url: `/api/v1/tokens/${token}/holders?limit=1` });
    const foreign = await app.inject({
      url: `/api/v1/tokens/${other}/holders?cursor=${encodeURIComponent(page.json().next_cursor)}`,
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ error: { code: "invalid_request" } });
    const empty = await app.inject({ url: `/api/v1/tokens/${other}/holders` });
    expect(empty.json()).toEqual({ items: [] });

    const unknown = await app.inject({ url: `/api/v1/tokens/${testAddress(0xdd)}/holders` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: "not_found" } });
  });
});
