// A deep cursor of the token list's value sorts reads its page, not the rest of its tie group
// (docs/api.md "Discovery: sorts, phase and batch"; docs/benchmarks.md "Deep cursors inside a tie
// group"). Most tokens share a value (one holder, the launch market cap, no trade, no progress);
// the keys run value descending, then the address ascending as its inverted hex digits descending
// (`ADDRESS_TIE_SQL`: the stored `tokens.address_tie`), one direction, so the cursor is a row
// comparison that bounds the index scan.
// With the address ascending as a second direction, the cursor bounded the index by the value only
// and the rows of the tie group before the cursor were filtered one by one (6,000 here; 450,000
// index entries for a page at 1M tokens). Asserted for the plain, searched and screened statements,
// generic and custom plans, through a cursor decoded as query-api decodes it (the address).
import type { TestDatabase } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkKeyset } from "../src/common/keyset-page.js";
import { TOKEN_ORDERS } from "../src/tokens/token-list-queries.js";
import { listOrderedTokens } from "../src/tokens/token-list-statements.js";
import type { TokenFilters } from "../src/tokens/token-orders.js";
import {
  explainPrepared,
  explainVerbose,
  outputsOf,
  planNodes,
  planSession,
  recordingDb,
  rowsExaminedOn,
  seriesDatabase,
} from "./plans.js";
import { addr } from "./seed.js";

/** Tokens, all in one tie group of every value sort (token i's address is `addr(i)`). */
const COUNT = 12_000;
/** The cursor's place in the tie group: the page starts after this many tokens. */
const DEEP = 6000;

let database: TestDatabase;

beforeAll(async () => {
  database = await seriesDatabase(COUNT, `'0xc' || lpad(to_hex(i % 7), 39, '0')`, [
    "UPDATE tokens SET holder_count = 1, fully_diluted_value = 10^27, latest_trade_timestamp = NULL",
  ]);
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

/** The cursor value of each sort for the tie group (`k0`), as its key column's type reads it. */
const TIE_VALUES = {
  holders: 1,
  market_cap: 10n ** 27n,
  last_trade: -1n,
  progress: 0,
} as const;

describe.each(["force_generic_plan", "force_custom_plan"])("%s", (mode) => {
  test.each(Object.keys(TIE_VALUES) as (keyof typeof TIE_VALUES)[])(
    "behavior: a cursor deep in the %s tie group reads the page",
    async (sort) => {
      const client = await planSession(database.url, mode);
      try {
        const { db, statements } = recordingDb(client);
        const plain: TokenFilters = { search: "", phase: undefined };
        // Searched with a sort other than newest: the bounded search walks the order from the cursor.
        const searched: TokenFilters = { search: "t", phase: undefined };
        const screened: TokenFilters = {
          search: "",
          phase: undefined,
          screener: { bounds: { min_holders: 1n } },
        };
        for (const filters of [plain, searched, screened]) {
          // Past 6,000 of the 12,000 tokens of the tie group (address ascending inside it).
          const after = checkKeyset(TOKEN_ORDERS[sort].key, [TIE_VALUES[sort], addr(DEEP)]);
          const { rows } = await listOrderedTokens(db, {
            order: TOKEN_ORDERS[sort],
            filters,
            after,
            take: 21,
          });
          expect(
            rows.map((row) => JSON.parse(row.item).address),
            `${sort} ${JSON.stringify(filters, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`,
          ).toEqual(Array.from({ length: 21 }, (_, k) => addr(DEEP + 1 + k)));
        }
        expect(statements.length).toBe(3);
        for (const { name, values } of statements) {
          const plan = await explainPrepared(client, name!, values);
          if (process.env.SHOW_PLANS) console.log(JSON.stringify(plan, null, 1));
          // The page (21 rows) once per range of the cursor, and the rows a search reads from the
          // prefix indexes when its window of the order holds less than a page (none here);
          // filtering the tie group before the cursor examines 6,000 rows and more.
          expect(rowsExaminedOn(plan, "tokens"), `rows of tokens examined by ${sort}`).toBeLessThanOrEqual(
            300,
          );
          // The tie is the stored `address_tie`, read from the order's index: no node computes the
          // address's `translate` (PostgreSQL 15 evaluates an ORDER BY expression again for every
          // row an index scan returns: ≈ 7 µs a row at 1M tokens, 2,000 rows per screened walk).
          const verbose = await explainVerbose(client, name!, values);
          expect(
            outputsOf(verbose).filter((column) => column.includes("translate(")),
            sort,
          ).toEqual([]);
          expect(
            planNodes(verbose).map((node) => node["Index Name"]),
            `${sort}'s index`,
          ).toContain(`tokens_${sort}_idx`);
        }
      } finally {
        await client.end();
      }
    },
  );
});
