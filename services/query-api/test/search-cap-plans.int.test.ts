// A search page past the cap reads a bounded part of the order, not every match (docs/api.md
// "Search, bounded"; issue 31). "pepe" matches 15,000 of 30,000 names (past the cap of 1,000 of
// the name index) and only 1 token in 300 at the top of the `market_cap` order: the order's first
// 250 tokens hold less than a page, the name index's reads stop at their cap, and the page is a
// screened walk of `SCREENER_WINDOW` tokens of the order from the cursor (the matches among them,
// a cursor at the last one examined). Asserted for the first page and the page after a cursor,
// generic and custom plans: the page is the brute-force matches of that window, and the rows of
// `tokens` examined stay within the budget's reads (reading every match examines 15,000 rows).
import type { TestDatabase } from "@tmi/testkit";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkKeyset, keysetPositionOf } from "../src/common/keyset-page.js";
import { SCREENER_WINDOW, SEARCH_BUDGET, TOKEN_ORDERS } from "../src/tokens/token-list-queries.js";
import { listOrderedTokens } from "../src/tokens/token-list-statements.js";
import type { TokenFilters } from "../src/tokens/token-orders.js";
import {
  explainPrepared,
  explainVerbose,
  outputsOf,
  type PlanNode,
  planNodes,
  planSession,
  recordingDb,
  rowsExaminedOn,
  seriesDatabase,
} from "./plans.js";

/** Tokens; every 2nd a "pepe" (15,000 matches). */
const COUNT = 30_000;

let database: TestDatabase;

beforeAll(async () => {
  // Pepes have small market caps but every 600th token (a pepe), which is among the largest.
  database = await seriesDatabase(COUNT, `'0xc' || lpad(to_hex(i % 7), 39, '0')`, [
    `UPDATE tokens SET
       name = CASE WHEN created_block_number % 2 = 0 THEN 'Pepe ' ELSE 'T ' END || created_block_number,
       search_name = CASE WHEN created_block_number % 2 = 0 THEN 'pepe ' ELSE 't ' END || created_block_number,
       fully_diluted_value = CASE WHEN created_block_number % 2 = 1 OR created_block_number % 600 = 0
         THEN 10^27 + created_block_number ELSE created_block_number END`,
  ]);
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

/** The subplans of `plan` (EXPLAIN JSON) whose `Subplan Name` matches `name`. */
function cteNodes(plan: PlanNode, name: RegExp): PlanNode[] {
  return planNodes(plan).filter(
    (node) => node["Subplan Name"] !== undefined && name.test(node["Subplan Name"]),
  );
}

/** Every token in the `market_cap` order (brute force): address, market cap, name. */
async function marketCapOrder(client: pg.ClientBase) {
  const { rows } = await client.query<{ address: string; fdv: string; name: string }>(
    `SELECT address, coalesce(fully_diluted_value, -1)::text AS fdv, search_name AS name FROM tokens
     ORDER BY coalesce(fully_diluted_value, -1) DESC, address`,
  );
  return rows;
}

describe.each(["force_generic_plan", "force_custom_plan"])("%s", (mode) => {
  test("behavior: a page past the cap walks a window of the order, not the matches", async () => {
    const client = await planSession(database.url, mode);
    try {
      const { db, statements } = recordingDb(client);
      const order = TOKEN_ORDERS.market_cap;
      const filters: TokenFilters = { search: "pepe", phase: undefined };
      const all = await marketCapOrder(client);
      // The first page, then the page after the first one's cursor (the window's last token).
      for (const start of [0, SCREENER_WINDOW]) {
        const window = all.slice(start, start + SCREENER_WINDOW);
        const before = all[start - 1];
        const { rows, stop } = await listOrderedTokens(db, {
          order,
          filters,
          after: before === undefined ? null : checkKeyset(order.key, [BigInt(before.fdv), before.address]),
          take: 21,
        });
        const pepes = window.filter((t) => t.name.startsWith("pepe")).map((t) => t.address);
        expect(pepes.length).toBeGreaterThan(0);
        expect(pepes.length).toBeLessThan(21);
        expect(rows.map((row) => JSON.parse(row.item).address)).toEqual(pepes);
        // The next page resumes after the window's last token.
        const last = window[window.length - 1]!;
        expect(stop && keysetPositionOf(order, stop)).toEqual([BigInt(last.fdv), last.address]);
      }
      expect(statements.length).toBe(2);
      for (const { name, values } of statements) {
        const plan = await explainPrepared(client, name!, values);
        if (process.env.SHOW_PLANS) console.log(JSON.stringify(plan, null, 1));
        // The order's 250, at most 33 + 201 + 1,001 entries of each prefix index, the window's
        // 2,000 and the page's rows; every match of the name index would be 15,000.
        const budget = SEARCH_BUDGET.window + 3 * (33 + 201 + SEARCH_BUDGET.cap + 1) + SCREENER_WINDOW + 21;
        expect(rowsExaminedOn(plan, "tokens"), "rows of tokens examined").toBeLessThanOrEqual(budget);
        // Past the cap the prefix reads are only counted: they carry the key's columns, and the key
        // (its value expression) is not computed for them.
        const verbose = await explainVerbose(client, name!, values);
        const reads = cteNodes(verbose, /^CTE read/);
        expect(reads.length).toBe(9);
        for (const read of reads)
          expect(outputsOf(read).filter((column) => column.startsWith("coalesce("))).toEqual([]);
        // The walk of 2,000 tokens of the order reads the stored tie (`address_tie`): no node
        // computes the address's `translate` (≈ 7 µs a row at 1M tokens, evaluated again for every
        // row an index scan returns), and the walk still takes the order's index.
        expect(outputsOf(verbose).filter((column) => column.includes("translate("))).toEqual([]);
        const [walk] = cteNodes(verbose, /^CTE walk$/);
        expect(
          planNodes(walk!).map((node) => node["Index Name"]),
          "the walk's index",
        ).toContain("tokens_market_cap_idx");
      }
    } finally {
      await client.end();
    }
  }, 60_000);
});
