import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertToken, testAddress } from "../../test/fixtures.js";
import { createReadPool } from "../db.js";
import { type NewestPosition, prefixRange, tokensSearchSql } from "./token-queries.js";

// 40 tokens, newest = highest block: every 3rd a "pepe", every 7th a "moon", the rest "cat";
// one "pepe" token excluded, and every token of one creator excluded.
const names = Array.from({ length: 40 }, (_, i) =>
  i % 3 === 0 ? `Pepe ${i}` : i % 7 === 0 ? `Moon ${i}` : `Cat ${i}`,
);
const excludedCreator = testAddress(7, "c");

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  for (const [i, name] of names.entries()) {
    await insertToken(writer, {
      address: testAddress(i + 1),
      creator: i === 12 ? excludedCreator : undefined,
      block: BigInt(100 + i),
      logIndex: i % 2,
      timestamp: BigInt(1_763_712_000 + i),
      name,
    });
  }
  await writer.query(
    `INSERT INTO excluded_addresses (kind, address, reason) VALUES ('token', $1, 'test'), ('creator', $2, 'test')`,
    [testAddress(31), excludedCreator],
  );
});

afterAll(async () => {
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

/** Addresses of one search page, through the statement of `listTokens` with a given window. */
async function page(prefix: string, take: number, after: NewestPosition | null, window: number) {
  const [lower, upper] = prefixRange(prefix);
  const values = after === null ? [lower, upper] : [lower, upper, after[0].toString(), after[1]];
  const { rows } = await reader.query<{
    created_block_number: string;
    created_log_index: number;
    item: string;
  }>(tokensSearchSql(take, after !== null, window), values);
  return rows.map((row) => ({
    address: JSON.parse(row.item).address as string,
    position: [BigInt(row.created_block_number), row.created_log_index] as NewestPosition,
  }));
}

/** Every visible token starting with `prefix`, newest first, by `LIKE` (the reference). */
async function reference(prefix: string): Promise<string[]> {
  const { rows } = await reader.query<{ address: string }>(
    `SELECT address FROM tokens t
      WHERE (search_name LIKE $1 || '%' OR search_symbol LIKE $1 || '%' OR address LIKE $1 || '%')
        AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'token' AND x.address = t.address)
        AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'creator' AND x.address = t.creator)
      ORDER BY created_block_number DESC, created_log_index DESC`,
    [prefix],
  );
  return rows.map((row) => row.address);
}

describe("search statement", () => {
  test("default", async () => {
    expect(prefixRange("pepe")).toEqual(["pepe", "pepf"]);
    expect(prefixRange("日本")).toEqual(["日本", "日札"]);
    const rows = await page("pepe", 3, null, 1000);
    expect(rows.map((r) => r.address)).toEqual((await reference("pepe")).slice(0, 3));
  });

  test("behavior: the newest window and the prefix indexes give the same pages", async () => {
    for (const prefix of [
      "pepe",
      "moon",
      "cat",
      "cat 1",
      "pepe 3",
      "0xa",
      "0xa00000000000000000000000000000000000000",
      "x",
    ]) {
      const expected = await reference(prefix);
      for (const window of [1, 4, 1000]) {
        for (const take of [1, 2, 5]) {
          const walked: string[] = [];
          let after: NewestPosition | null = null;
          for (;;) {
            const rows = await page(prefix, take, after, window);
            walked.push(...rows.map((r) => r.address));
            if (rows.length < take) break;
            after = rows[rows.length - 1]!.position;
          }
          expect(walked, `${prefix} window ${window} take ${take}`).toEqual(expected);
        }
      }
    }
  });
});
