// `pnpm bench api-plans`: the query plans of the discovery routes (docs/api.md "Discovery: sorts,
// phase and batch", "GET /api/v1/trades") on the database of `pnpm bench api` (≥ 10,000 tokens,
// ≥ 1,000,000 trades): each route's statements run through query-api's own query functions on a
// connection that records them, then `EXPLAIN (ANALYZE, BUFFERS)` with PostgreSQL's generic plan
// (the plan a prepared statement settles on). Prints every plan, then one JSON line per route:
//   {"bench":"api-plans","route":...,"statements":...,"sorts":[...],"seq_scans":[...],"ms":...}
// `sorts`: the Sort nodes (none for a plan read from an index in key order; with `search`, the
// sort of the prefix matches only); `seq_scans`: tables read whole (none expected); `rescans`:
// nodes run more than once that read more than 100 rows each time (a nested loop rescanning a
// relation per outer row: work super-linear in the entity a route addresses; none expected).
// Besides the discovery cases, every query function of `pnpm bench api`'s routes (`route_<name>`,
// api-routes-lib.ts), and the holdings and summary of the wallet of `pnpm bench api-bounds`
// (every token traded, half held) when it exists.
// Options: --tokens=<n> (10000) --trades=<n> (1000000) --database=<name> (qapi_bench) --only=<route,...>
import pg from "pg";
import { createCursorCodec } from "../packages/shared/src/codec/index.js";
import { readKeysetPage } from "../services/query-api/src/common/keyset-page.js";
import { READ_SESSION_SETTINGS, type SqlReader } from "../services/query-api/src/db.js";
import {
  listTokensByAddress,
  orderedPage,
  parseScreener,
  TOKEN_ORDERS,
  type TokenFilters,
  TWO_PART_SORTS,
  twoPartPage,
} from "../services/query-api/src/tokens/token-list-queries.js";
import { createPnlRankings } from "../services/query-api/src/tokens/traders/pnl-ranking.js";
import { MARKET_TRADES, MARKET_TRADES_BY_SOURCE } from "../services/query-api/src/trades/trade-queries.js";
import { getWalletTotals, listHoldings } from "../services/query-api/src/wallets/wallet-queries.js";
import { executeText } from "../services/query-api/test/plans.js";
import { apiRoutes } from "./api-routes-lib.js";
import { holdersTieMiddle, openBenchData, pickApiSamples } from "./api-samples-lib.js";
import { parseBenchArgs } from "./bench-args-lib.js";

const args = parseBenchArgs();
const ONLY = args.only;
const log = (line: string) => process.stderr.write(`${line}\n`);

const data = await openBenchData(args, "qapi_bench", log);
const client = new pg.Client({ connectionString: data.url });
await client.connect();
// The session of query-api's read pool, and the generic plan a prepared statement settles on.
await client.query(READ_SESSION_SETTINGS);
await client.query("SET plan_cache_mode = force_generic_plan");
const codec = createCursorCodec("bench-plans-secret-0123456789abcdef");

/** A SqlReader that runs each statement and keeps it (text and values) for EXPLAIN. */
function recording(): { db: SqlReader; statements: { text: string; values: unknown[] }[] } {
  const statements: { text: string; values: unknown[] }[] = [];
  const db = {
    async query(config: string | { text: string; values?: unknown[] }, values?: unknown[]) {
      const text = typeof config === "string" ? config : config.text;
      const params = (typeof config === "string" ? values : config.values) ?? [];
      statements.push({ text, values: params });
      return client.query(text, params);
    },
  } as SqlReader;
  return { db, statements };
}

const none: TokenFilters = { search: "", phase: undefined };
const page = (route: string, filters: TokenFilters = none, cursor?: string) => ({
  filters,
  limit: 20,
  cursor,
  cursors: codec,
  route,
});
const pick = async (sql: string, values: unknown[] = []) => (await client.query(sql, values)).rows;
const snapshotId = BigInt((await pick("SELECT max(id) AS id FROM trending_snapshots"))[0].id);
const deep = (
  await pick(
    "SELECT coalesce(fully_diluted_value, -1)::text AS v, address FROM tokens ORDER BY coalesce(fully_diluted_value, -1) DESC, address LIMIT 1 OFFSET 5000",
  )
)[0];
const tie = await holdersTieMiddle(pick);
const middle = (await pick("SELECT address FROM tokens ORDER BY address LIMIT 1 OFFSET 5000"))[0].address;
const batch = (await pick("SELECT address FROM tokens ORDER BY md5(address) LIMIT 100")).map(
  (r) => r.address,
);

const cases: [string, (db: SqlReader) => Promise<unknown>][] = [
  ...(["market_cap", "progress", "last_trade", "holders"] as const).map(
    (sort): [string, (db: SqlReader) => Promise<unknown>] => [
      `sort_${sort}`,
      (db) => orderedPage(db, { order: TOKEN_ORDERS[sort], ...page(`s:${sort}`) }),
    ],
  ),
  ...(["volume_24h", "trending"] as const).map((sort): [string, (db: SqlReader) => Promise<unknown>] => [
    `sort_${sort}`,
    (db) => twoPartPage(db, { sort: TWO_PART_SORTS[sort], ...page(`s:${sort}`) }),
  ]),
  [
    "sort_market_cap_deep",
    (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.market_cap,
        ...page("s:deep", none, codec.encode("s:deep", [BigInt(deep.v), deep.address])),
      }),
  ],
  [
    "sort_holders_tie_deep",
    (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.holders,
        ...page("s:tie", none, codec.encode("s:tie", tie)),
      }),
  ],
  [
    "sort_volume_tail",
    (db) =>
      twoPartPage(db, {
        sort: TWO_PART_SORTS.volume_24h,
        ...page("s:tail", none, codec.encode("s:tail", [snapshotId, middle])),
      }),
  ],
  [
    "graduated_holders",
    (db) =>
      orderedPage(db, { order: TOKEN_ORDERS.holders, ...page("s:g", { search: "", phase: "graduated" }) }),
  ],
  [
    "newest_curve",
    (db) => orderedPage(db, { order: TOKEN_ORDERS.newest, ...page("s:c", { search: "", phase: "curve" }) }),
  ],
  [
    "search_market_cap",
    (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.market_cap,
        ...page("s:q", { search: "pepe", phase: undefined }),
      }),
  ],
  [
    "search_market_cap_rare",
    (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.market_cap,
        ...page("s:r", { search: "doge 52", phase: undefined }),
      }),
  ],
  [
    "search_market_cap_mid",
    (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.market_cap,
        ...page("s:m", { search: "moon 1", phase: undefined }),
      }),
  ],
  ...(["volume_24h", "trending"] as const).map((sort): [string, (db: SqlReader) => Promise<unknown>] => [
    `search_${sort}`,
    (db) =>
      twoPartPage(db, {
        sort: TWO_PART_SORTS[sort],
        ...page(`s:q${sort}`, { search: "pepe", phase: undefined }),
      }),
  ]),
  [
    "search_newest_mid",
    (db) =>
      orderedPage(db, { order: TOKEN_ORDERS.newest, ...page("s:n", { search: "moon 1", phase: undefined }) }),
  ],
  [
    "search_newest_address",
    (db) =>
      orderedPage(db, { order: TOKEN_ORDERS.newest, ...page("s:a", { search: "0xab", phase: undefined }) }),
  ],
  // Screens no token passes (docs/api.md "Screener filters"): the worst page of a one-part sort
  // (its window of rows examined, an empty page with a cursor) and of the rest of a two-part sort.
  [
    "screener_none_newest",
    (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.newest,
        ...page("s:sn", {
          search: "",
          phase: undefined,
          screener: parseScreener({ min_holders: "999999999" }),
        }),
      }),
  ],
  [
    "screener_none_volume_tail",
    (db) =>
      twoPartPage(db, {
        sort: TWO_PART_SORTS.volume_24h,
        ...page(
          "s:sv",
          {
            search: "",
            phase: undefined,
            screener: parseScreener({ max_top10_share_bps: "0", min_holders: "999999999" }),
          },
          codec.encode("s:sv", [snapshotId, middle]),
        ),
      }),
  ],
  ["batch_100", (db) => listTokensByAddress(db, batch)],
  [
    "market_trades",
    (db) =>
      readKeysetPage(db, MARKET_TRADES, {
        filters: [],
        order: "desc",
        limit: 20,
        cursor: undefined,
        cursors: codec,
        route: "t",
      }),
  ],
  [
    "market_swaps_asc",
    (db) =>
      readKeysetPage(db, MARKET_TRADES_BY_SOURCE, {
        filters: ["uniswap_v3"],
        order: "asc",
        limit: 20,
        cursor: undefined,
        cursors: codec,
        route: "t",
      }),
  ],
];

// Every query function of the load bench's routes, and the wallet of `pnpm bench api-bounds`.
const samples = await pickApiSamples(data.url, codec);
for (const r of apiRoutes(samples, codec, createPnlRankings({ maxPositions: 100_000 })))
  if (r.raw) cases.push([`route_${r.route}`, (db) => r.raw!(db as unknown as pg.Pool)]);
const bigWallet = `0x${"5a".repeat(20)}`;
if ((await pick("SELECT 1 FROM positions WHERE trader = $1 LIMIT 1", [bigWallet])).length > 0)
  cases.push(
    [
      "holdings_all_tokens_wallet",
      (db) => listHoldings(db, { wallet: bigWallet, includeClosed: true, after: null, take: 21 }),
    ],
    [
      "holdings_all_tokens_wallet_closed",
      (db) => listHoldings(db, { wallet: bigWallet, includeClosed: true, after: [1, 0n, "0x"], take: 21 }),
    ],
    ["summary_all_tokens_wallet", (db) => getWalletTotals(db, bigWallet)],
  );

/** Plan nodes (text plan lines) run more than once that read over 100 rows each time. */
function rescansOf(lines: string[]): string[] {
  const rescans: string[] = [];
  let node: { line: string; rows: number; loops: number; removed: number } | null = null;
  const close = () => {
    if (node && node.loops > 1 && node.rows + node.removed > 100)
      rescans.push(`${node.line} (read ${node.rows + node.removed} rows × ${node.loops} loops)`);
  };
  for (const line of lines) {
    const start = /^\s*(?:->\s+)?(.+?)\s+\(actual rows=(\d+) loops=(\d+)\)/.exec(line);
    if (start) {
      close();
      node = { line: start[1]!, rows: Number(start[2]), loops: Number(start[3]), removed: 0 };
      continue;
    }
    const removed = /Rows Removed by (?:Join )?Filter: (\d+)/.exec(line);
    if (removed && node) node.removed += Number(removed[1]);
  }
  close();
  return rescans;
}

let planCount = 0;
for (const [route, run] of cases) {
  if (ONLY && !ONLY.includes(route)) continue;
  const { db, statements } = recording();
  await run(db);
  const sorts: string[] = [];
  const seqScans: string[] = [];
  const rescans: string[] = [];
  let ms = 0;
  for (const { text, values } of statements) {
    // The generic plan (plan_cache_mode above), as a prepared statement runs it.
    const name = `plan_${++planCount}`;
    await client.query({ name, text, values });
    const explained = await client.query(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${executeText(client, name, values)}`,
    );
    const lines = explained.rows.map((r) => r["QUERY PLAN"] as string);
    for (const line of lines) {
      const sort = /->\s+(Incremental Sort|Sort)\b/.exec(line) ?? /^(Sort)\b/.exec(line.trim());
      if (sort) sorts.push(line.trim());
      const seq = /Seq Scan on (\w+)/.exec(line);
      if (seq?.[1]) seqScans.push(seq[1]);
      const time = /Execution Time: ([\d.]+) ms/.exec(line);
      if (time?.[1]) ms += Number(time[1]);
    }
    rescans.push(...rescansOf(lines));
    process.stdout.write(`\n## ${route}\n${lines.join("\n")}\n`);
  }
  process.stdout.write(
    `${JSON.stringify({ bench: "api-plans", route, statements: statements.length, sorts, seq_scans: seqScans, rescans, ms: Number(ms.toFixed(2)) })}\n`,
  );
}
await client.end();
