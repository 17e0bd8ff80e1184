// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// `GET /api/v1/tokens/{address}/traders?sort=pnl` answered from the per-process pnl rankings
// (src/tokens/traders/pnl-ranking.ts) equals, page by page and byte for byte, the same route reading
// every page with the keyset statement (rankings off), and its order equals a brute-force
// computation of pnl = realized_pnl + floor(open_quantity × price / 10^18) − cost_basis sorted by
// pnl descending then trader: on a token with closed positions, negative pnl and ties, then after
// the price changes, after a new trade, after a reorg that replaces the latest trade by another at
// the same block number and log index (another block hash) with the same price, and after a reorg
// back to an earlier state. Old cursors keep their meaning (the page after a position).
import { createCursorCodec } from "@tmi/shared/codec";
import { createLogger } from "@tmi/shared/logger";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import type { SqlReader } from "../src/db.js";
import { createPnlRankings, type PnlRankings } from "../src/tokens/traders/pnl-ranking.js";
import { readTokenTraders } from "../src/tokens/traders/trader-queries.js";
import { createHarness, type Harness, TEST_CURSOR_SECRET } from "./harness.js";
import { addr, insertEvent, insertToken, insertTrade, txHash } from "./seed.js";

const WAD = 10n ** 18n;
const T0 = 1_700_000_000;
const TOKEN = addr(0x7001);
const EMPTY = addr(0x7002);
const UNKNOWN = addr(0x7404);
const COUNT = 240;

let h: Harness;
type App = Awaited<ReturnType<typeof buildApp>>;
/** Rankings on (the default), off (every page read by the keyset statement), and too small for TOKEN. */
let cached: App;
let direct: App;
let small: App;
let rankings: PnlRankings;
let smallRankings: PnlRankings;

/** Trader i: addresses whose order differs from i's. */
const trader = (i: number) => addr(BigInt(i * 7919 + 13) * 0x1000193n, "9");

async function setPosition(i: number, q: bigint, cost: bigint, realized: bigint): Promise<void> {
  await h.admin.query(
    `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
       buy_count, sell_count, open_quantity, cost_basis, realized_pnl, first_block_number, first_transaction_hash,
       first_log_index, first_timestamp, last_block_number, last_transaction_hash, last_log_index, last_timestamp)
     VALUES ($1, $2, $3, $4, 0, 0, $4, 1, 0, $3, $5, $6, 10, $7, 1, $8, 10, $7, 1, $8)
     ON CONFLICT (token_address, trader) DO UPDATE SET open_quantity = $3, cost_basis = $5, realized_pnl = $6`,
    [
      TOKEN,
      trader(i),
      q.toString(),
      (cost + 1n).toString(),
      cost.toString(),
      realized.toString(),
      txHash(i),
      T0,
    ],
  );
}

/** The token's latest trade at (block, log 1) with its chain event, whose block hash is `blockHash`. */
async function setLatestTrade(block: number, who: number, blockHash = txHash(block)): Promise<void> {
  await h.admin.query("DELETE FROM trades WHERE token_address = $1 AND block_number >= $2", [TOKEN, block]);
  await h.admin.query("DELETE FROM chain_events WHERE token_address = $1 AND block_number >= $2", [
    TOKEN,
    block,
  ]);
  await insertTrade(h.admin, {
    token: TOKEN,
    block,
    logIndex: 1,
    timestamp: T0 + block * 2,
    trader: trader(who),
    side: "buy",
    tokenAmount: 10n ** 21n,
    reserveAmount: 10n ** 16n,
  });
  await insertEvent(h.admin, {
    token: TOKEN,
    block,
    logIndex: 1,
    name: "TokensBought",
    decoded: {},
    timestamp: T0 + block * 2,
  });
  await h.admin.query("UPDATE chain_events SET block_hash = $1 WHERE block_number = $2 AND log_index = 1", [
    blockHash,
    block,
  ]);
}

const setPrice = (price: bigint) =>
  h.admin.query("UPDATE tokens SET current_price = $2 WHERE address = $1", [TOKEN, price.toString()]);

/** The order of TOKEN's traders recomputed in JS from its position rows and current price. */
async function bruteForce(): Promise<{ trader: string; pnl: string }[]> {
  const price = BigInt(
    (await h.admin.query("SELECT current_price::text AS p FROM tokens WHERE address = $1", [TOKEN])).rows[0]
      .p,
  );
  const rows = (
    await h.admin.query(
      `SELECT trader, open_quantity::text AS q, cost_basis::text AS c, realized_pnl::text AS r
       FROM positions WHERE token_address = $1`,
      [TOKEN],
    )
  ).rows;
  return rows
    .map((r) => ({ trader: r.trader, pnl: BigInt(r.r) + (BigInt(r.q) * price) / WAD - BigInt(r.c) }))
    .sort((a, b) => (a.pnl !== b.pnl ? (b.pnl > a.pnl ? 1 : -1) : a.trader < b.trader ? -1 : 1))
    .map((x) => ({ trader: x.trader, pnl: x.pnl.toString() }));
}

const url = (token: string, limit: number, cursor?: string) =>
  `/api/v1/tokens/${token}/traders?sort=pnl&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;

/** One page from each app: status and body text, which must be identical. */
async function samePage(path: string): Promise<{ status: number; body: string }> {
  const [a, b, c] = await Promise.all([cached, direct, small].map((app) => app.inject({ url: path })));
  // Error bodies carry each request's id.
  const text = (r: { body: string }) => r.body.replace(/"request_id":"[^"]*"/, "");
  expect(text(a!), path).toBe(text(b!));
  expect(text(c!), path).toBe(text(b!));
  expect(a!.statusCode).toBe(b!.statusCode);
  return { status: a!.statusCode, body: a!.body };
}

/** Walks every page of TOKEN by pnl (pages of `limit`), asserting the three apps agree on each. */
async function walk(limit: number): Promise<{ items: any[]; cursors: string[] }> {
  const items: any[] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await samePage(url(TOKEN, limit, cursor));
    expect(page.status).toBe(200);
    const body = JSON.parse(page.body);
    items.push(...body.items);
    cursor = body.next_cursor;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  return { items, cursors };
}

/** Every walk equals the brute force; every old cursor gives the same page from each app. */
async function expectExact(oldCursors: string[] = []): Promise<string[]> {
  const expected = await bruteForce();
  let cursors: string[] = [];
  for (const limit of [7, 64]) {
    const { items, cursors: made } = await walk(limit);
    expect(items.map((x) => ({ trader: x.trader, pnl: x.pnl }))).toEqual(expected);
    if (limit === 7) cursors = made;
  }
  for (const cursor of oldCursors) await samePage(url(TOKEN, 7, cursor));
  return cursors;
}

beforeAll(async () => {
  h = await createHarness();
  const logger = createLogger({ service: "query-api-test", level: "silent" });
  const config = { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: "*" as const };
  rankings = createPnlRankings({ maxPositions: 10_000 });
  smallRankings = createPnlRankings({ maxPositions: 50 });
  cached = await buildApp({ pool: h.pool, config, logger, pnlRankings: rankings });
  direct = await buildApp({ pool: h.pool, config: { ...config, tradersPnlCachePositions: 0 }, logger });
  small = await buildApp({ pool: h.pool, config, logger, pnlRankings: smallRankings });
  for (const [address, block] of [
    [TOKEN, 100],
    [EMPTY, 101],
  ] as const) {
    await insertToken(h.admin, {
      address,
      creator: addr(0xc1),
      name: "Pnl",
      symbol: "PNL",
      block,
      createdAt: T0 + block * 2,
      currentPrice: "28000000001",
    });
  }
  // Closed positions (pnl = realized), open ones in profit and at a loss, groups of exact ties.
  for (let i = 0; i < COUNT; i += 1) {
    const tie = i % 10 === 3;
    const q = i % 4 === 0 ? 0n : tie ? 5n * 10n ** 21n : BigInt(i % 7) * 10n ** 21n + BigInt(i) * 977n;
    const cost = q === 0n ? 0n : tie ? 10n ** 14n : BigInt(i % 5) * 3n * 10n ** 13n + BigInt(i);
    const realized = tie ? -(10n ** 13n) : BigInt((i % 11) - 5) * 10n ** 13n + BigInt(i % 3);
    await setPosition(i, q, cost, realized);
    if (q > 0n && i % 3 !== 0)
      await h.admin.query("INSERT INTO token_balances (token_address, holder, balance) VALUES ($1, $2, $3)", [
        TOKEN,
        trader(i),
        q.toString(),
      ]);
  }
  await setLatestTrade(200, 1);
});

afterAll(async () => {
  await Promise.all([cached, direct, small].map((app) => app?.close()));
  await h?.close();
});

describe("traders by pnl from the per-process ranking", () => {
  test("pages, cursors, price changes, new trades and reorgs: equal to the keyset statement and to a brute force", async () => {
    const first = await expectExact();
    expect(rankings.size).toBe(COUNT); // the ranking answered (and is kept)
    expect(smallRankings.size).toBe(0); // more positions than it holds: read directly
    const tops = await bruteForce();
    expect(new Set(tops.map((x) => x.pnl)).size).toBeLessThan(COUNT); // ties by trader address exercised

    // The price changes (no trade): a new version.
    await setPrice(31_000_000_007n);
    const second = await expectExact(first);

    // A new trade: one position moves to the top, and the price with it.
    await setPosition(5, 10n ** 22n, 10n ** 15n, 10n ** 16n);
    await setLatestTrade(300, 5);
    await setPrice(29_000_000_003n);
    const third = await expectExact([...first, ...second]);
    expect((await samePage(url(TOKEN, 1))).body).toContain(trader(5));

    // A reorg replaces that trade by another at the same block number and log index (another
    // block hash), at the same price, which moves another trader above the first page's rows
    // (these keep their pnl: only the version tells that the ranking is stale).
    await setPosition(9, 2n * 10n ** 22n, 10n ** 15n, 10n ** 16n);
    await setLatestTrade(300, 9, `0x${"ab".repeat(32)}`);
    await expectExact([...first, ...second, ...third]);
    expect((await samePage(url(TOKEN, 1))).body).toContain(trader(9));

    // A reorg back to the state before the trade (its latest trade, its price).
    await setPosition(9, 0n, 0n, 0n);
    await h.admin.query("DELETE FROM trades WHERE token_address = $1 AND block_number >= 300", [TOKEN]);
    await h.admin.query("DELETE FROM chain_events WHERE token_address = $1 AND block_number >= 300", [TOKEN]);
    await setPrice(31_000_000_007n);
    await expectExact([...first, ...second, ...third]);
  });

  test("one ranking query serves every page until the version changes", async () => {
    const counts = new Map<string, number>();
    const counting: SqlReader = {
      query: ((config: any, values?: unknown[]) => {
        if (typeof config === "object") counts.set(config.name, (counts.get(config.name) ?? 0) + 1);
        return h.pool.query(config, values);
      }) as SqlReader["query"],
    };
    const own = createPnlRankings({ maxPositions: 10_000 });
    const cursors = createCursorCodec(TEST_CURSOR_SECRET);
    const walkOwn = async () => {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await readTokenTraders(counting, {
          token: TOKEN,
          sort: "pnl",
          limit: 40,
          cursor,
          cursors,
          rankings: own,
        });
        cursor = page?.nextCursor;
        pages += 1;
      } while (cursor);
      return pages;
    };
    const pages = await walkOwn();
    expect(pages).toBe(Math.ceil(COUNT / 40));
    expect(counts.get("qapi_traders_pnl_ranking")).toBe(1);
    expect(counts.get("qapi_traders_pnl_page")).toBe(pages);
    await walkOwn();
    expect(counts.get("qapi_traders_pnl_ranking")).toBe(1);
    await setPrice(32_000_000_009n);
    await walkOwn();
    // The first page after the change read the old version, ranked again, and read the page again.
    expect(counts.get("qapi_traders_pnl_ranking")).toBe(2);
    expect(counts.get("qapi_traders_pnl_page")).toBe(3 * pages + 1);
  });

  test("unknown token, token without traders, a cursor of another sort", async () => {
    expect((await samePage(url(UNKNOWN, 5))).status).toBe(404);
    const empty = await samePage(url(EMPTY, 5));
    expect(empty.status).toBe(200);
    expect(JSON.parse(empty.body)).toEqual({ items: [] });
    const volume = await h.get(`/api/v1/tokens/${TOKEN}/traders?sort=volume&limit=2`);
    const wrong = await samePage(url(TOKEN, 2, volume.body.next_cursor));
    expect(wrong.status).toBe(400);
  });
});
