// A search page's prepared statement keeps its generic plan (docs/benchmarks.md "Search at 1M
// tokens"): PostgreSQL plans a prepared statement custom for its first 5 executions, then runs
// the generic plan unless that is estimated dearer than the custom ones. A bare `LIMIT $n` is
// estimated as 10 % of its input, which made the search statement's generic plan dearer once
// the prefix reads' estimates reach their caps (≥ 10,000 tokens): every request then re-planned
// the statement (its eleven reads and the Token object, about 1.1 ms at 1M tokens).
import { afterAll, beforeAll, expect, test } from "vitest";
import { TOKEN_SORTS } from "../src/tokens/token-list-queries.js";
import { createHarness, type Harness } from "./harness.js";

const COUNT = 20_000;
let h: Harness;

beforeAll(async () => {
  // One connection: the statements the app prepares are on the backend the test inspects.
  h = await createHarness({}, { poolMax: 1 });
  // Every 10th token a "Pepe" (2,000 matches: past the prefix reads' caps), newest = highest block.
  await h.admin.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
       created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at,
       curve_address, pool_address, pool_token_is_token0, virtual_token_reserve, virtual_eth_reserve,
       graduation_threshold, updated_block_number, fully_diluted_value, holder_count)
     SELECT '0x' || lpad(to_hex(i), 40, '0'), 31337, '0xc' || lpad(to_hex(i % 97), 39, '0'), nm, 'TST', lower(nm), 'tst',
       1000000000000000000000000000, 100 + i, 0, '0xab' || lpad(to_hex(i), 62, '0'), 0, 1763712000 + i,
       '0xd' || lpad(to_hex(i), 39, '0'), '0xe' || lpad(to_hex(i), 39, '0'), true, 1066666666666666666666666667,
       1000000000000000000, 800000000000000000000000000, 100 + i, (i * 7919) % 100000, i % 50
     FROM (SELECT i, CASE WHEN i % 10 = 0 THEN 'Pepe ' ELSE 'Cat ' END || i AS nm
           FROM generate_series(1, ${COUNT}) AS i) s`,
  );
  // 100,000 trades over the tokens (curve and pool), for the market-wide feed.
  await h.admin.query(
    `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address,
       trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
     SELECT 1000 + n / 4, n % 4, 0, '0xf' || lpad(to_hex(n), 63, '0'), 1763800000 + n,
       '0x' || lpad(to_hex(1 + n % ${COUNT}), 40, '0'), '0xa' || lpad(to_hex(n % 5000), 39, '0'),
       CASE WHEN n % 3 = 0 THEN 'sell' ELSE 'buy' END, CASE WHEN n % 5 = 0 THEN 'uniswap_v3' ELSE 'curve' END,
       10^21, 10^15, 10^15, 0, 0, 10^12
     FROM generate_series(1, 100000) n`,
  );
  await h.admin.query("ANALYZE tokens; ANALYZE trades");
}, 120_000);

afterAll(async () => {
  await h?.close();
});

test("behavior: a search page's statement settles on its generic plan (no re-planning per request)", async () => {
  for (const sort of TOKEN_SORTS)
    for (let i = 0; i < 8; i++) {
      const response = await h.get(
        `/api/v1/tokens?${new URLSearchParams({ sort, search: "pepe", limit: "20" })}`,
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      // Past the cap (2,000 matches) a page may be short, even empty (`holders`: no "Pepe" among
      // the 2,000 tokens with the most holders), and goes on.
      const { items, next_cursor } = response.body;
      expect(items.length, `${sort} #${i}`).toBeLessThanOrEqual(20);
      for (const item of items) expect(item.name, `${sort} #${i}`).toMatch(/^Pepe /);
      expect(next_cursor, `${sort} #${i}`).toBeDefined();
    }
  // The one-part sorts' search statements (the two-part sorts' rest is one when their
  // snapshot part, absent here, leaves the page short).
  expect(await expectGenericPlans("statement LIKE '%recent AS MATERIALIZED%'")).toBeGreaterThanOrEqual(5);
}, 120_000);

test("behavior: the market-wide trades feed's statements settle on their generic plans", async () => {
  for (let i = 0; i < 8; i++)
    for (const query of ["limit=20", "source=curve&limit=20"]) {
      const first = await h.get(`/api/v1/trades?${query}`);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.items.length).toBe(20);
      const next = await h.get(
        `/api/v1/trades?${query}&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      );
      expect(next.status, JSON.stringify(next.body)).toBe(200);
    }
  expect(await expectGenericPlans("name LIKE 'qapi_market_trades%'")).toBe(4);
}, 120_000);

/**
 * Asserts that every statement prepared on the app's one connection matching `where` (SQL over
 * `pg_prepared_statements`) ran its generic plan after its 5 custom ones; returns how many matched.
 */
async function expectGenericPlans(where: string): Promise<number> {
  const { rows } = await h.pool.query<{ name: string; generic_plans: string; custom_plans: string }>(
    `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE ${where}`,
  );
  for (const row of rows) {
    expect(Number(row.custom_plans), row.name).toBeLessThanOrEqual(5);
    expect(Number(row.generic_plans), row.name).toBeGreaterThan(0);
  }
  return rows.length;
}
