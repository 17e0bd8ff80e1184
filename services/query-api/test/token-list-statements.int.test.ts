// The token list prepares a fixed set of statements (docs/operations.md "Prepared statements"):
// every combination of page size, sort, phase, search and cursor runs on one pooled connection,
// and the statements that connection holds (`pg_prepared_statements`) stay within the bound,
// however many page sizes were asked for.
import { afterAll, beforeAll, expect, test } from "vitest";
import { TOKEN_LIST_STATEMENT_BOUND, TOKEN_PHASES, TOKEN_SORTS } from "../src/tokens/token-list-queries.js";
import { insertToken, testAddress } from "./fixtures.js";
import { createHarness, type Harness } from "./harness.js";

const COUNT = 24;
let h: Harness;

beforeAll(async () => {
  // One connection: every statement the app prepares is on the backend the test inspects.
  h = await createHarness({}, { poolMax: 1 });
  for (let i = 0; i < COUNT; i++) {
    const address = testAddress(i + 1);
    await insertToken(h.admin, {
      address,
      block: BigInt(100 + i),
      timestamp: BigInt(1_763_712_000 + i),
      name: i % 2 === 0 ? `Pepe ${i}` : `Cat ${i}`,
    });
    await h.admin.query(
      "UPDATE tokens SET fully_diluted_value = $2, holder_count = $3, lifecycle = $4 WHERE address = $1",
      [address, String((i * 7) % 11), i % 5, i % 3 === 0 ? "graduated" : "active"],
    );
  }
  await h.admin.query(
    "INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 86400, 400, 1763712100)",
  );
  for (let rank = 1; rank <= 4; rank++)
    await h.admin.query("INSERT INTO trending_entries VALUES (1, $1, $2, $3, 1, 1)", [
      rank,
      testAddress(rank * 3),
      String(100 - rank),
    ]);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** Statements prepared on the app's one connection. */
async function preparedCount(): Promise<number> {
  const { rows } = await h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements");
  return rows[0]?.n ?? 0;
}

/**
 * Every sort × phase × search at page size `limit` (with the screener filters `screener`), each
 * walked up to 3 pages (first page and cursors).
 */
async function walkEveryShape(limit: number, screener: Record<string, string> = {}): Promise<void> {
  for (const sort of [undefined, ...TOKEN_SORTS])
    for (const phase of [undefined, ...TOKEN_PHASES])
      for (const search of [undefined, "pe"]) {
        const query = new URLSearchParams({ limit: String(limit), ...screener });
        if (sort) query.set("sort", sort);
        if (phase) query.set("phase", phase);
        if (search) query.set("search", search);
        let cursor: string | undefined;
        for (let page = 0; page < 3; page++) {
          if (cursor) query.set("cursor", cursor);
          const response = await h.get(`/api/v1/tokens?${query}`);
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          cursor = response.body.next_cursor;
          if (!cursor) break;
        }
      }
}

test("behavior: any mix of page sizes, sorts, phases, searches, screener filters and cursors prepares at most the documented statements", async () => {
  for (const limit of [1, 2, 3, 5, 8, 13, 20, 50, 100]) await walkEveryShape(limit);
  // Whichever screener filters are set, one statement per shape.
  for (const screener of [
    { min_holders: "1" },
    { max_top10_share_bps: "5000", creator_has_sold: "false" },
    { min_volume_24h: "0", max_age_seconds: "99999999", min_progress_bps: "1" },
  ] as Record<string, string>[])
    for (const limit of [2, 7]) await walkEveryShape(limit, screener);
  const prepared = await preparedCount();
  expect(prepared).toBeGreaterThan(0);
  // The page size and every value are bind parameters: only the shapes are statements.
  expect(prepared).toBeLessThanOrEqual(TOKEN_LIST_STATEMENT_BOUND);
}, 300_000);

test("behavior: the read pool's sessions run without JIT (a generic plan's estimate would compile every execution)", async () => {
  const { rows } = await h.pool.query<{ jit: string }>("SHOW jit");
  expect(rows[0]?.jit).toBe("off");
});
