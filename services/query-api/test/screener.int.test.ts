// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Screener filters of GET /api/v1/tokens (docs/api.md "Screener filters"): every filter, inclusive
// bounds, combined with every sort, phase and search, walked page by page with cursors and
// compared with a brute-force filter of every token; the bounded walk (a small window: short
// pages that go on); cursors bound to the filters; each bad value.
import { createCursorCodec } from "@tmi/shared/codec";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  orderedPage,
  parseScreener,
  TOKEN_ORDERS,
  TOKEN_SORTS,
  TWO_PART_SORTS,
  twoPartPage,
} from "../src/tokens/token-list-queries.js";
import { createHarness, type Harness, TEST_CURSOR_SECRET } from "./harness.js";
import { addr, CURVE_ALLOCATION, insertToken, setCheckpoint } from "./seed.js";

const T0 = 1_700_000_000;
const NOW = T0 + 10_000;
const SUPPLY = 10n ** 27n; // the seeded tokens' initial_supply
const COUNT = 48;

interface Row {
  i: number;
  address: string;
  name: string;
  block: number;
  graduated: boolean;
  market_cap: bigint | null;
  last_trade: number | null;
  holders: number;
  age_seconds: number;
  progress_bps: number;
  volume_24h: bigint;
  /** Rank in the trending snapshot (null: not in it). */
  rank: number | null;
  top10_share_bps: number;
  creator_share_bps: number;
  sniper_share_bps: number;
  insider_share_bps: number;
  creator_has_sold: boolean;
  excluded: boolean;
}

const rows: Row[] = Array.from({ length: COUNT }, (_, i) => {
  const graduated = i % 4 === 0;
  const hasRisk = i % 5 !== 4; // no token_risk row: zeros
  const inSnapshot = i % 3 === 1;
  return {
    i,
    address: addr(0x300 + ((i * 29) % COUNT)),
    name: i % 3 === 0 ? `Pepe ${i}` : `Cat ${i}`,
    block: 100 + i,
    graduated,
    market_cap: i % 9 === 0 ? null : BigInt((i * 37) % 20) * 10n ** 15n,
    last_trade: i % 6 === 0 ? null : T0 + ((i * 7) % 40),
    holders: (i * 13) % 7,
    age_seconds: NOW - (T0 + i * 100),
    progress_bps: graduated ? 10_000 : ((i * 29) % 101) * 100,
    volume_24h: inSnapshot ? BigInt((i * 17) % 10) * 10n ** 18n : 0n,
    rank: inSnapshot ? ((i * 5) % COUNT) + 1 : null,
    top10_share_bps: hasRisk ? ((i * 11) % 50) * 100 : 0,
    creator_share_bps: hasRisk ? ((i * 7) % 30) * 10 : 0,
    sniper_share_bps: hasRisk ? ((i * 3) % 20) * 50 : 0,
    insider_share_bps: hasRisk ? (i % 7) * 25 : 0,
    creator_has_sold: hasRisk && i % 2 === 1,
    excluded: i === 5 || i === 7,
  };
});
const hasRisk = (r: Row) => r.i % 5 !== 4;
/** A balance whose share is `bps` (floored: one base unit above the exact amount). */
const balanceOf = (bps: number) => ((BigInt(bps) * SUPPLY) / 10_000n + 1n).toString();

// Reference orders over the seeded rows (docs/api.md "Discovery: sorts, phase and batch").
const byAddress = (a: Row, b: Row) => (a.address < b.address ? -1 : 1);
const desc =
  (value: (r: Row) => number | bigint) =>
  (a: Row, b: Row): number => {
    const [x, y] = [value(a), value(b)];
    return x === y ? byAddress(a, b) : x > y ? -1 : 1;
  };
const newest = (a: Row, b: Row) => b.block - a.block;
const inSnap = (r: Row) => r.rank !== null;

/** Every visible token of `sort` (undefined: newest), brute force. */
function ordered(sort: string | undefined): Row[] {
  const visible = rows.filter((r) => !r.excluded);
  switch (sort) {
    case undefined:
    case "newest":
      return [...visible].sort(newest);
    case "market_cap":
      return [...visible].sort(desc((r) => r.market_cap ?? -1n));
    case "last_trade":
      return [...visible].sort(desc((r) => r.last_trade ?? -1));
    case "holders":
      return [...visible].sort(desc((r) => r.holders));
    case "progress":
      return visible.filter((r) => !r.graduated).sort(desc((r) => r.progress_bps));
    case "trending":
      return [
        ...visible.filter(inSnap).sort((a, b) => (a.rank as number) - (b.rank as number)),
        ...visible.filter((r) => !inSnap(r)).sort(newest),
      ];
    case "volume_24h":
      return [
        ...visible.filter(inSnap).sort(desc((r) => r.volume_24h)),
        ...visible.filter((r) => !inSnap(r)).sort(byAddress),
      ];
  }
  throw new Error(`no sort ${sort}`);
}

type Filters = Record<string, string>;
const RANGES = ["market_cap", "volume_24h", "holders", "age_seconds", "progress_bps"] as const;
const MAXIMA = ["top10_share_bps", "creator_share_bps", "sniper_share_bps", "insider_share_bps"] as const;

/** Whether `r` passes `filters` (bounds inclusive; a market cap bound leaves out tokens without one). */
function passes(r: Row, filters: Filters): boolean {
  for (const field of RANGES) {
    const value = r[field];
    const [min, max] = [filters[`min_${field}`], filters[`max_${field}`]];
    if (min === undefined && max === undefined) continue;
    if (value === null) return false;
    if (min !== undefined && BigInt(value) < BigInt(min)) return false;
    if (max !== undefined && BigInt(value) > BigInt(max)) return false;
  }
  for (const field of MAXIMA) {
    const max = filters[`max_${field}`];
    if (max !== undefined && BigInt(r[field]) > BigInt(max)) return false;
  }
  const sold = filters.creator_has_sold;
  return sold === undefined || String(r.creator_has_sold) === sold;
}

/** The expected addresses of a walk. */
function expected(sort: string | undefined, phase: string | undefined, search: string, filters: Filters) {
  return ordered(sort)
    .filter((r) => phase === undefined || r.graduated === (phase === "graduated"))
    .filter((r) => search === "" || r.name.toLowerCase().startsWith(search))
    .filter((r) => passes(r, filters))
    .map((r) => r.address);
}

// Filter sets: each filter alone with bounds equal to seeded values (inclusive edges), and
// combinations.
const FILTER_SETS: Filters[] = [
  { min_market_cap: "3000000000000000", max_market_cap: "11000000000000000" },
  { max_market_cap: "0" },
  { min_volume_24h: "2000000000000000000" },
  { max_volume_24h: "3000000000000000000" },
  { min_holders: "2", max_holders: "4" },
  { min_age_seconds: "5300", max_age_seconds: "8000" },
  { min_progress_bps: "2900", max_progress_bps: "10000" },
  { max_top10_share_bps: "1100" },
  { max_creator_share_bps: "70" },
  { max_sniper_share_bps: "150" },
  { max_insider_share_bps: "50" },
  { creator_has_sold: "true" },
  { creator_has_sold: "false" },
  {
    min_holders: "1",
    max_top10_share_bps: "3000",
    creator_has_sold: "false",
    min_market_cap: "0",
    max_age_seconds: "9000",
  },
];

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  const db = h.admin;
  for (const r of rows) {
    await insertToken(db, {
      address: r.address,
      creator: addr(0xc1),
      name: r.name,
      symbol: r.name.slice(0, 3).toUpperCase(),
      block: r.block,
      createdAt: T0 + r.i * 100,
      lifecycle: r.graduated ? "graduated" : "active",
    });
    await db.query(
      `UPDATE tokens SET fully_diluted_value = $2, latest_trade_timestamp = $3, holder_count = $4, sold_supply = $5
        WHERE address = $1`,
      [
        r.address,
        r.market_cap?.toString() ?? null,
        r.last_trade,
        r.holders,
        ((BigInt(r.progress_bps) * CURVE_ALLOCATION) / 10_000n).toString(),
      ],
    );
    if (hasRisk(r))
      await db.query(
        `INSERT INTO token_risk (token_address, top10_balance, creator_balance, sniper_balance, insider_balance, creator_sold)
          VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          r.address,
          balanceOf(r.top10_share_bps),
          balanceOf(r.creator_share_bps),
          balanceOf(r.sniper_share_bps),
          balanceOf(r.insider_share_bps),
          r.creator_has_sold ? "1000" : "0",
        ],
      );
    if (r.excluded)
      await db.query("INSERT INTO excluded_addresses (address, kind, reason) VALUES ($1, 'token', 'test')", [
        r.address,
      ]);
  }
  await setCheckpoint(db, 1000, NOW);
  await db.query(
    "INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 86400, 1000, $1)",
    [NOW],
  );
  for (const r of rows.filter(inSnap))
    await db.query("INSERT INTO trending_entries VALUES (1, $1, $2, $3, 1, 1)", [
      r.rank,
      r.address,
      r.volume_24h.toString(),
    ]);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** Every page of `GET /api/v1/tokens?<query>` by its cursors: the addresses of each page. */
async function walk(query: Filters, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 100; n++) {
    const params = new URLSearchParams({ ...query, limit: String(limit) });
    if (cursor) params.set("cursor", cursor);
    const res = await h.get(`/api/v1/tokens?${params}`);
    expect(res.status, `${params}: ${JSON.stringify(res.body)}`).toBe(200);
    pages.push(res.body.items.map((t: any) => t.address));
    cursor = res.body.next_cursor;
    if (cursor === undefined) return pages;
  }
  throw new Error(`${JSON.stringify(query)}: no last page`);
}

const SORTS = [undefined, ...TOKEN_SORTS];

describe("screener filters", () => {
  test("default: each filter alone with every sort, walked by cursors, is the brute-force filter (bounds inclusive)", async () => {
    for (const filters of FILTER_SETS) {
      const matched = expected(undefined, undefined, "", filters);
      // Every set keeps some tokens and leaves out some: the filter is applied.
      expect(matched.length, JSON.stringify(filters)).toBeGreaterThan(0);
      expect(matched.length, JSON.stringify(filters)).toBeLessThan(COUNT - 2);
      for (const sort of SORTS) {
        const query = { ...filters, ...(sort ? { sort } : {}) };
        const pages = await walk(query, 4);
        expect(pages.flat(), JSON.stringify(query)).toEqual(expected(sort, undefined, "", filters));
        for (const page of pages.slice(0, -1)) expect(page).toHaveLength(4);
      }
    }
  }, 120_000);

  test("behavior: a bound equal to a token's value keeps it (min and max inclusive)", async () => {
    const r = rows.find((x) => x.i === 13) as Row;
    const exact = {
      min_market_cap: String(r.market_cap),
      max_market_cap: String(r.market_cap),
      min_volume_24h: String(r.volume_24h),
      max_volume_24h: String(r.volume_24h),
      min_holders: String(r.holders),
      max_holders: String(r.holders),
      min_age_seconds: String(r.age_seconds),
      max_age_seconds: String(r.age_seconds),
      min_progress_bps: String(r.progress_bps),
      max_progress_bps: String(r.progress_bps),
      max_top10_share_bps: String(r.top10_share_bps),
      max_creator_share_bps: String(r.creator_share_bps),
      max_sniper_share_bps: String(r.sniper_share_bps),
      max_insider_share_bps: String(r.insider_share_bps),
      creator_has_sold: String(r.creator_has_sold),
    };
    const res = await h.get(`/api/v1/tokens?${new URLSearchParams(exact)}`);
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens", 200, res.body);
    expect(res.body.items.map((t: any) => t.address)).toContain(r.address);
    const item = res.body.items.find((t: any) => t.address === r.address);
    expect(item.risk.top10_share_bps).toBe(r.top10_share_bps);
    expect(res.body.items.map((t: any) => t.address)).toEqual(expected(undefined, undefined, "", exact));
  });

  test("behavior: combined with every sort, phase and search", async () => {
    for (const filters of [FILTER_SETS[4], FILTER_SETS[7], FILTER_SETS[13]] as Filters[])
      for (const sort of SORTS)
        for (const phase of [undefined, "curve", "graduated"])
          for (const search of ["", "pe"]) {
            const query = {
              ...filters,
              ...(sort ? { sort } : {}),
              ...(phase ? { phase } : {}),
              ...(search ? { search } : {}),
            };
            const pages = await walk(query, 3);
            expect(pages.flat(), JSON.stringify(query)).toEqual(expected(sort, phase, search, filters));
          }
  }, 120_000);

  test("behavior: past the window a page stops short with a cursor; the walk still serves every match in order", async () => {
    const cursors = createCursorCodec(TEST_CURSOR_SECRET);
    let shortPages = 0;
    for (const filters of [FILTER_SETS[2], FILTER_SETS[10], FILTER_SETS[13]] as Filters[])
      for (const sort of TOKEN_SORTS)
        for (const window of [1, 3]) {
          const screener = parseScreener(filters);
          const label = `${sort} ${JSON.stringify(filters)} window ${window}`;
          const pages: string[][] = [];
          let cursor: string | undefined;
          for (let n = 0; n < 200; n++) {
            const options = {
              filters: { search: "", phase: undefined, screener },
              limit: 2,
              cursor,
              cursors,
              route: `screener-test:${sort}`,
              window,
            };
            const page =
              sort === "trending" || sort === "volume_24h"
                ? await twoPartPage(h.pool, { sort: TWO_PART_SORTS[sort], ...options })
                : await orderedPage(h.pool, { order: TOKEN_ORDERS[sort], ...options });
            const items = page.items.map((item) => JSON.parse(item).address as string);
            expect(items.length, label).toBeLessThanOrEqual(2);
            if (items.length < 2 && page.nextCursor !== undefined) shortPages++;
            pages.push(items);
            cursor = page.nextCursor;
            if (cursor === undefined) break;
          }
          expect(cursor, label).toBeUndefined();
          expect(pages.flat(), label).toEqual(expected(sort, undefined, "", filters));
        }
    expect(shortPages).toBeGreaterThan(0);
  }, 120_000);

  test("error: a cursor reused with other filters", async () => {
    const query = { sort: "holders", min_holders: "1" };
    const first = await h.get(`/api/v1/tokens?${new URLSearchParams({ ...query, limit: "2" })}`);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toBeDefined();
    const same = await h.get(`/api/v1/tokens?${new URLSearchParams({ ...query, limit: "2", cursor })}`);
    expect(same.status).toBe(200);
    for (const other of [
      { sort: "holders", min_holders: "2" },
      { sort: "holders" },
      { sort: "holders", min_holders: "1", max_holders: "9" },
      { sort: "holders", min_holders: "1", creator_has_sold: "false" },
    ] as Filters[]) {
      const res = await h.get(`/api/v1/tokens?${new URLSearchParams({ ...other, limit: "2", cursor })}`);
      expect(res.status, JSON.stringify(other)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    // A plain list's cursor is no screener's either.
    const plain = await h.get("/api/v1/tokens?limit=2");
    const res = await h.get(
      `/api/v1/tokens?limit=2&min_holders=0&cursor=${encodeURIComponent(plain.body.next_cursor)}`,
    );
    expect(res.status).toBe(400);
  });

  test("error: each bad value is 400 invalid_request", async () => {
    const bad: string[] = [];
    for (const bound of [
      ...RANGES.flatMap((f) => [`min_${f}`, `max_${f}`]),
      ...MAXIMA.map((f) => `max_${f}`),
    ])
      for (const value of ["-1", "1.5", "abc", "1e3", "", " 1", "0x10", "1".repeat(79)])
        bad.push(`${bound}=${encodeURIComponent(value)}`);
    for (const field of RANGES) bad.push(`min_${field}=5&max_${field}=4`);
    for (const value of ["yes", "1", "TRUE", ""]) bad.push(`creator_has_sold=${value}`);
    bad.push(
      "min_holders=1&min_holders=2",
      "addresses=0x0000000000000000000000000000000000000001&min_holders=1",
    );
    for (const query of bad) {
      const res = await h.get(`/api/v1/tokens?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe("invalid_request");
    }
  });
});
