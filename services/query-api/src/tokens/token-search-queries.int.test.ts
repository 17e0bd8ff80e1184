import { createCursorCodec } from "@tmi/shared/codec";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertToken, testAddress } from "../../test/fixtures.js";
import { createReadPool } from "../db.js";
import {
  orderedPage,
  SEARCH_BUDGET,
  type SearchBudget,
  TOKEN_ORDERS,
  type TokenPhase,
  TWO_PART_SORTS,
  twoPartPage,
} from "./token-list-queries.js";
import { PROGRESS_BPS_SQL } from "./token-orders.js";
import { prefixRange, VISIBLE_TOKEN } from "./token-queries.js";

// 120 tokens, newest = highest block: every 3rd a "Pepe" (40: more than a prefix index's probe),
// every 7th a "Moon", the rest "Cat"; symbols "P<n>" on every 5th token (a second prefix index);
// market caps, holders and last trades with ties and nulls; every 4th token graduated; one "Pepe"
// excluded, and every token of one creator excluded.
const COUNT = 120;
const names = Array.from({ length: COUNT }, (_, i) =>
  i % 3 === 0 ? `Pepe ${i}` : i % 7 === 0 ? `Moon ${i}` : `Cat ${i}`,
);
const excludedCreator = testAddress(7, "c");
const codec = createCursorCodec("search-test-secret-0123456789abcdef");

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  for (const [i, name] of names.entries()) {
    const address = testAddress(i + 1);
    await insertToken(writer, {
      address,
      creator: i % 17 === 12 ? excludedCreator : undefined,
      block: BigInt(100 + i),
      logIndex: i % 2,
      timestamp: BigInt(1_763_712_000 + i),
      name,
    });
    await writer.query(
      `UPDATE tokens SET symbol = $2, search_symbol = lower($2), fully_diluted_value = $3, holder_count = $4,
         latest_trade_timestamp = $5, sold_supply = $6, lifecycle = $7 WHERE address = $1`,
      [
        address,
        i % 5 === 0 ? `P${i}` : "TST",
        i % 11 === 0 ? null : String(((i * 37) % 50) * 1_000_000_000),
        (i * 13) % 9,
        i % 6 === 0 ? null : String(1_763_712_000 + ((i * 7) % 40)),
        String(((i * 29) % 100) * 1e24),
        i % 4 === 0 ? "graduated" : "active",
      ],
    );
  }
  await writer.query(
    `INSERT INTO excluded_addresses (kind, address, reason) VALUES ('token', $1, 'test'), ('creator', $2, 'test')`,
    [testAddress(31), excludedCreator],
  );
  // A trending snapshot (the first part of `trending` and `volume_24h`): token i + 1 at each rank,
  // window volumes with a tie; 31 is excluded, 13 (i = 12) is the excluded creator's.
  await writer.query(
    "INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 86400, 400, 1763800000)",
  );
  for (const [rank, i] of SNAPSHOT.entries())
    await writer.query("INSERT INTO trending_entries VALUES (1, $1, $2, $3, 1, 1)", [
      rank + 1,
      testAddress(i + 1),
      String(((rank * 5) % 4) * 10 ** 18),
    ]);
});

/** The snapshot's tokens (index i: `testAddress(i + 1)`), by rank. */
const SNAPSHOT = [3, 9, 30, 60, 12, 5, 90, 99, 0, 119, 64];

afterAll(async () => {
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

type Sort = keyof typeof TOKEN_ORDERS;

/** The documented order of each sort, written apart from the keys (value sorts: the address ascending in a tie). */
const REFERENCE_ORDER_BY: Record<Sort, string> = {
  newest: "t.created_block_number DESC, t.created_log_index DESC",
  market_cap: "coalesce(t.fully_diluted_value, -1) DESC, t.address",
  last_trade: "coalesce(t.latest_trade_timestamp, -1) DESC, t.address",
  holders: "t.holder_count DESC, t.address",
  progress: `${PROGRESS_BPS_SQL} DESC, t.address`,
};

/** Every visible token of `sort` and `phase` starting with `prefix`, in the sort's order, by `LIKE` (the reference). */
async function reference(sort: Sort, prefix: string, phase?: TokenPhase): Promise<string[]> {
  const order = TOKEN_ORDERS[sort];
  const where = [
    "(t.search_name LIKE $1 || '%' OR t.search_symbol LIKE $1 || '%' OR t.address LIKE $1 || '%')",
    VISIBLE_TOKEN,
    ...(order.where ? [order.where] : []),
    ...(phase ? [`t.lifecycle = '${phase === "graduated" ? "graduated" : "active"}'`] : []),
  ];
  const { rows } = await reader.query<{ address: string }>(
    `SELECT t.address FROM tokens t WHERE ${where.join(" AND ")} ORDER BY ${REFERENCE_ORDER_BY[sort]}`,
    [prefix],
  );
  return rows.map((row) => row.address);
}

/**
 * Every visible token of two-part `sort` and `phase` starting with `prefix` (the reference): the
 * snapshot's by rank (`trending`) or window volume, then address (`volume_24h`), then the others
 * newest first (`trending`) or by address (`volume_24h`).
 */
async function twoPartReference(sort: keyof typeof TWO_PART_SORTS, prefix: string, phase?: TokenPhase) {
  const ranked = sort === "trending" ? "e.rank" : "e.window_volume DESC, e.token_address";
  const { rows } = await reader.query<{ address: string }>(
    `SELECT e.token_address AS address FROM trending_entries e JOIN tokens t ON t.address = e.token_address
     WHERE e.snapshot_id = 1 AND (t.search_name LIKE $1 || '%' OR t.search_symbol LIKE $1 || '%' OR t.address LIKE $1 || '%')
       AND ${VISIBLE_TOKEN} ${phase ? `AND t.lifecycle = '${phase === "graduated" ? "graduated" : "active"}'` : ""}
     ORDER BY ${ranked}`,
    [prefix],
  );
  const snapshot = rows.map((row) => row.address);
  const rest = (await reference("newest", prefix, phase)).filter((a) => !snapshot.includes(a));
  if (sort === "volume_24h") rest.sort();
  return [...snapshot, ...rest];
}

/** Every page of a search in `sort`, followed by its cursors: the addresses of each page. */
async function walk(
  sort: Sort | keyof typeof TWO_PART_SORTS,
  prefix: string,
  limit: number,
  budget: SearchBudget,
  phase?: TokenPhase,
  window?: number,
) {
  const route = `t:${sort}:${prefix}:${phase ?? ""}`;
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const options = {
      filters: { search: prefix, phase },
      limit,
      cursor,
      cursors: codec,
      route,
      budget,
      ...(window !== undefined ? { window } : {}),
    };
    const page =
      sort === "trending" || sort === "volume_24h"
        ? await twoPartPage(reader, { ...options, sort: TWO_PART_SORTS[sort] })
        : await orderedPage(reader, { ...options, order: TOKEN_ORDERS[sort] });
    pages.push(page.items.map((item) => JSON.parse(item).address as string));
    cursor = page.nextCursor;
    if (pages.length > COUNT) throw new Error("no end");
  } while (cursor !== undefined);
  return pages;
}

/**
 * Walks the search of `prefix` in `sort` past a cap of 2 (a window of 2 of the order), once per
 * `[limit, window]` (`window`: the tokens of the order a page examines; undefined: the default),
 * and expects every walk to give `expected` with no page above its limit.
 */
async function expectWalksPastCap(
  sort: Sort | keyof typeof TWO_PART_SORTS,
  prefix: string,
  phase: TokenPhase | undefined,
  expected: string[],
  cases: [limit: number, window: number | undefined][],
) {
  for (const [limit, window] of cases) {
    const label = `${sort} ${prefix} ${phase} limit ${limit} window ${window}`;
    const pages = await walk(sort, prefix, limit, { window: 2, cap: 2 }, phase, window);
    expect(pages.flat(), label).toEqual(expected);
    for (const page of pages) expect(page.length, label).toBeLessThanOrEqual(limit);
  }
}

const SORTS = Object.keys(TOKEN_ORDERS) as Sort[];
// Few matches ("moon 1", "p10"), many ("pepe": 40 by name, "p": names and symbols, "0xa": every
// address), none ("x").
const PREFIXES = [
  "pepe",
  "moon",
  "moon 1",
  "cat 1",
  "p",
  "p10",
  "0xa",
  "0xa00000000000000000000000000000000000000",
  "x",
];

describe("search pages", () => {
  test("default", async () => {
    expect(prefixRange("pepe")).toEqual(["pepe", "pepf"]);
    expect(prefixRange("日本")).toEqual(["日本", "日札"]);
    const pages = await walk("newest", "pepe", 3, SEARCH_BUDGET);
    expect(pages[0]).toEqual((await reference("newest", "pepe")).slice(0, 3));
  });

  test("behavior: within the budget, every sort's pages are the brute-force order, full pages but the last", async () => {
    // `cap` at least the matches of every prefix index: exact whatever the window (1: the
    // prefix indexes answer nearly every page; 1000: the order's window does).
    for (const sort of SORTS) {
      for (const prefix of PREFIXES) {
        for (const phase of [undefined, "graduated"] as const) {
          const expected = await reference(sort, prefix, phase);
          for (const budget of [
            { window: 1, cap: COUNT },
            { window: 7, cap: COUNT },
            { window: 1000, cap: 1 },
          ]) {
            for (const limit of [3, 20]) {
              const label = `${sort} ${prefix} ${phase} ${JSON.stringify(budget)} limit ${limit}`;
              const pages = await walk(sort, prefix, limit, budget, phase);
              expect(pages.flat(), label).toEqual(expected);
              for (const page of pages.slice(0, -1)) expect(page.length, label).toBe(limit);
            }
          }
        }
      }
    }
  });

  test("behavior: newest first, a term of up to 8 characters is exact past the cap (the prefix table)", async () => {
    // A window and cap of 2 leave the bounded reads of `tokens` approximate for these prefixes
    // (40 names, 120 addresses); newest first without phase, the prefix table answers exactly.
    for (const prefix of ["pepe", "0xa", "p", "p10", "moon 1", "cat 1", "x"]) {
      const expected = await reference("newest", prefix);
      for (const limit of [1, 3, 20]) {
        const pages = await walk("newest", prefix, limit, { window: 2, cap: 2 });
        expect(pages.flat(), `${prefix} limit ${limit}`).toEqual(expected);
        for (const page of pages.slice(0, -1)) expect(page.length, `${prefix} limit ${limit}`).toBe(limit);
      }
    }
  });

  test("behavior: newest first with a phase, the prefix table's walk is exact in bounded windows (pages may be short)", async () => {
    // A window of 3 of the term's entries per page: pages hold the matches of the phase among
    // them (possibly none) and a cursor to go on; followed to the end, every match in order.
    for (const prefix of ["pepe", "0xa", "p", "moon 1", "x"]) {
      for (const phase of ["graduated", "curve"] as const) {
        const expected = await reference("newest", prefix, phase);
        for (const [limit, window] of [
          [1, 3],
          [3, 3],
          [20, 3],
          [3, 50],
        ] as const) {
          const label = `${prefix} ${phase} limit ${limit} window ${window}`;
          const pages = await walk("newest", prefix, limit, { window: 2, cap: 2 }, phase, window);
          expect(pages.flat(), label).toEqual(expected);
          for (const page of pages) expect(page.length, label).toBeLessThanOrEqual(limit);
        }
      }
    }
  });

  test("behavior: the prefix table follows a launch, a rewritten name and a removed token", async () => {
    const address = testAddress(900);
    const search = async (prefix: string) => (await walk("newest", prefix, 20, SEARCH_BUDGET)).flat();
    await insertToken(writer, {
      address,
      block: 5_000n,
      logIndex: 0,
      timestamp: 1_763_800_000n,
      name: "Quokka",
    });
    try {
      expect(await search("quo")).toEqual([address]);
      await writer.query("UPDATE tokens SET name = 'Wombat', search_name = 'wombat' WHERE address = $1", [
        address,
      ]);
      expect(await search("quo")).toEqual([]);
      expect(await search("wom")).toEqual([address]);
      expect(await search("0xa000000000000000000000000000000000000384")).toEqual([address]);
    } finally {
      await writer.query("DELETE FROM tokens WHERE address = $1", [address]);
    }
    expect(await search("wom")).toEqual([]);
    const { rows } = await reader.query(
      "SELECT count(*)::int AS n FROM token_search_prefixes WHERE address = $1",
      [address],
    );
    expect(rows[0].n).toBe(0);
  });

  test("behavior: past the cap, every sort's walk is exact: every match in order, none twice (pages may be short)", async () => {
    // "pepe" has 40 name matches, "p" 40 names and 24 symbols, "0xa" 120 addresses, "moon" 12: more than a
    // `cap` of 2 (a window of 2 of the order holds less than a page), so each page examines at
    // most `window` tokens of the order from the cursor and returns the matches among them
    // (possibly none) with a cursor at the last token examined; followed to the end, the cursors
    // give the brute-force order of every match, with and without a phase.
    for (const sort of SORTS) {
      // "0xa000000000": every address, longer than the prefix table's terms (newest first too).
      for (const prefix of ["pepe", "0xa", "p", "moon", "0xa000000000"]) {
        for (const phase of [undefined, "graduated", "curve"] as const) {
          const expected = await reference(sort, prefix, phase);
          await expectWalksPastCap(sort, prefix, phase, expected, [
            [1, 3],
            [3, 7],
            [20, 7],
            [5, undefined],
          ]);
        }
      }
    }
  });

  test("behavior: past the cap, the two-part sorts' walks are exact too (the snapshot's matches, then the rest's)", async () => {
    // The rest of `volume_24h` (by address) and of `trending` with a term longer than 8
    // characters (newest first) are searched past a cap of 2 as the one-part sorts are.
    for (const sort of ["trending", "volume_24h"] as const) {
      for (const prefix of ["pepe", "0xa", "0xa000000000"]) {
        for (const phase of [undefined, "graduated"] as const) {
          const expected = await twoPartReference(sort, prefix, phase);
          await expectWalksPastCap(sort, prefix, phase, expected, [
            [1, 3],
            [3, 7],
            [20, undefined],
          ]);
        }
      }
    }
  });
});
