// `pnpm bench api`: query-api under load on a synthesized database (see api-data-lib.ts) of
// ≥ 10,000 tokens and ≥ 1,000,000 trades. query-api runs as its own process (from sources, the
// read-only pool of main.ts); autocannon 9 drives each route with 50 connections; then the same
// query functions run straight on a `pg` pool with 50 concurrent callers, for comparison.
// Prints a table, then one JSON line per route:
//   {"bench":"api","route":...,"rps":...,"p99_ms":...,"rss_mb":...,"errors":...,"pg_rps":...,"pg_p99_ms":...}
// Options: --duration=<s> (10) --pg-duration=<s> (5) --connections=<n> (50) --pool=<n> (DB_POOL_MAX, 16)
//          --tokens=<n> (10000) --trades=<n> (1000000) --rebuild --only=<route,...>
//          --pnl-cache-positions=<n> (query-api's TRADERS_PNL_CACHE_POSITIONS, 100000; 0: every pnl page
//          sorted in SQL, the statement before the rankings) --database=<name> (qapi_bench_v4)
// CPU per request: query-api's and its PostgreSQL backends' (from /proc) over each route's run.
import { readFileSync } from "node:fs";
import os from "node:os";
import { startServiceProcess, waitFor } from "@tmi/testkit";
import autocannon from "autocannon";
import pg from "pg";
import { createCursorCodec } from "../packages/shared/src/codec/index.js";
import { TOKEN_ACTIVITY } from "../services/query-api/src/activity/activity-queries.js";
import type { ChartWindowRequest } from "../services/query-api/src/chart/chart-buckets.js";
import { getChartJson } from "../services/query-api/src/chart/chart-queries.js";
import type { ChartCurrency } from "../services/query-api/src/chart/chart-schemas.js";
import { readKeysetPage } from "../services/query-api/src/common/keyset-page.js";
import { DEFAULT_TRADERS_PNL_CACHE_POSITIONS } from "../services/query-api/src/config.js";
import {
  getCreatorAggregates,
  listCreatorTokens,
} from "../services/query-api/src/creators/creator-queries.js";
import { createReadPool } from "../services/query-api/src/db.js";
import {
  listTokensByAddress,
  orderedPage,
  TOKEN_ORDERS,
  TWO_PART_SORTS,
  twoPartPage,
} from "../services/query-api/src/tokens/token-list-queries.js";
import { getPricing, getTokenDetail, listTokens } from "../services/query-api/src/tokens/token-queries.js";
import {
  MARKET_TRADES,
  MARKET_TRADES_BY_SOURCE,
  TOKEN_TRADES,
  walletTradesSource,
} from "../services/query-api/src/trades/trade-queries.js";
import { trendingPage } from "../services/query-api/src/trending/trending-queries.js";
import { createPnlRankings } from "../services/query-api/src/wallets/pnl-ranking.js";
import { pnlSql } from "../services/query-api/src/wallets/position-sql.js";
import { readTokenTraders, tokenTradersSource } from "../services/query-api/src/wallets/trader-queries.js";
import { getWalletTotals, listHoldings } from "../services/query-api/src/wallets/wallet-queries.js";
import { BENCH_CHAIN_ID, ensureBenchDatabase } from "./api-data-lib.js";
import { sampleProcess } from "./indexer-history-lib.js";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key ?? "", value ?? "true"] as const;
  }),
);
const num = (key: string, fallback: number) => (args.has(key) ? Number(args.get(key)) : fallback);
const DURATION = num("duration", 10);
const PG_DURATION = num("pg-duration", 5);
const CONNECTIONS = num("connections", 50);
const POOL = num("pool", 16);
const TOKENS = num("tokens", 10_000);
const TRADES = num("trades", 1_000_000);
const ONLY = args.get("only")?.split(",");
const PNL_CACHE_POSITIONS = num("pnl-cache-positions", DEFAULT_TRADERS_PNL_CACHE_POSITIONS);
const SECRET = "bench-cursor-secret-0123456789abcdef";
const ADMIN_URL = process.env.TMI_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

const log = (line: string) => process.stderr.write(`${line}\n`);

const data = await ensureBenchDatabase({
  adminUrl: ADMIN_URL,
  // The default name follows the data set version (other branches may keep an older qapi_bench).
  name: args.get("database") ?? "qapi_bench_v4",
  tokens: TOKENS,
  trades: TRADES,
  rebuild: args.has("rebuild"),
  log,
});
log(
  data.built
    ? `database built in ${data.seconds.toFixed(0)} s`
    : "database already built (pass --rebuild to rebuild)",
);

/** Options of {@link getChartJson} for `token`. */
const chartOf = (token: string, window: ChartWindowRequest, currency: ChartCurrency = "eth") => ({
  token,
  window,
  currency,
});

// Samples for the routes: tokens with trades, the hot token and deep cursors into it, creators.
const setup = new pg.Pool({ connectionString: data.url, max: 2 });
const pick = async (sql: string, values: unknown[] = []) => (await setup.query(sql, values)).rows;
const tokens: string[] = (
  await pick("SELECT address FROM tokens WHERE trade_count > 0 ORDER BY md5(address) LIMIT 1000")
).map((r) => r.address);
const hot: string = (await pick("SELECT address FROM tokens ORDER BY trade_count DESC LIMIT 1"))[0].address;
const hotCount: number = (await pick("SELECT trade_count FROM tokens WHERE address = $1", [hot]))[0]
  .trade_count;
const creators: string[] = (await pick("SELECT address FROM creators ORDER BY md5(address) LIMIT 500")).map(
  (r) => r.address,
);
const codec = createCursorCodec(SECRET);
const deepTrades: { cursor: string; position: [bigint, number, number, string] }[] = [];
for (const offset of [
  Math.floor(hotCount * 0.5),
  Math.floor(hotCount * 0.75),
  Math.floor(hotCount * 0.9),
  hotCount - 30,
]) {
  const row = (
    await pick(
      `SELECT block_number, transaction_index, log_index, transaction_hash FROM trades WHERE token_address = $1
       ORDER BY block_number DESC, transaction_index DESC, log_index DESC, transaction_hash DESC OFFSET $2 LIMIT 1`,
      [hot, offset],
    )
  )[0];
  const position: [bigint, number, number, string] = [
    BigInt(row.block_number),
    row.transaction_index,
    row.log_index,
    row.transaction_hash,
  ];
  deepTrades.push({ cursor: codec.encode(`tokens.trades:${hot}:desc`, position), position });
}
const deepActivity = deepTrades.map((d) => ({
  cursor: codec.encode(`tokens.activity:${hot}:desc`, d.position),
  position: d.position,
}));
const deepNewest: { cursor: string; position: [bigint, number] }[] = [];
for (const offset of [2000, 5000, 8000]) {
  const row = (
    await pick(
      "SELECT created_block_number, created_log_index FROM tokens ORDER BY created_block_number DESC, created_log_index DESC OFFSET $1 LIMIT 1",
      [offset],
    )
  )[0];
  const position: [bigint, number] = [BigInt(row.created_block_number), row.created_log_index];
  deepNewest.push({ cursor: codec.encode("tokens?search=", position), position });
}
// Wallets with positions (random ones and the ones with the most positions), a deep traders cursor.
const wallets: string[] = (
  await pick("SELECT trader FROM (SELECT DISTINCT trader FROM positions) p ORDER BY md5(trader) LIMIT 500")
).map((r) => r.trader);
const busyWallets: string[] = (
  await pick("SELECT trader FROM positions GROUP BY trader ORDER BY count(*) DESC, trader LIMIT 20")
).map((r) => r.trader);
const hotTraders: number = (
  await pick("SELECT count(*)::int AS n FROM positions WHERE token_address = $1", [hot])
)[0].n;
const deepTrader = (
  await pick(
    "SELECT volume, trader FROM positions WHERE token_address = $1 ORDER BY volume DESC, trader OFFSET $2 LIMIT 1",
    [hot, Math.floor(hotTraders * 0.9)],
  )
)[0];
const deepTradersCursor = codec.encode(`tokens.traders:${hot}:volume`, [
  BigInt(deepTrader.volume),
  deepTrader.trader,
]);
// A cursor 90 % into the hot token's traders by pnl (the order of tokenTradersSource("pnl")).
const deepPnl = (
  await pick(
    `SELECT ${pnlSql()}::text AS k, p.trader FROM positions p JOIN tokens t ON t.address = p.token_address
     WHERE p.token_address = $1 ORDER BY ${pnlSql()} DESC, p.trader OFFSET $2 LIMIT 1`,
    [hot, Math.floor(hotTraders * 0.9)],
  )
)[0];
const deepPnlCursor = codec.encode(`tokens.traders:${hot}:pnl`, [BigInt(deepPnl.k), deepPnl.trader]);
const searches = ["pepe", "moon 1", "doge 52", "turbo 9", "giga", "cat 77", "0xab", "0x1f"];
const snapshotId = BigInt((await pick("SELECT max(id) AS id FROM trending_snapshots"))[0].id);
const trendingCursor = codec.encode("tokens.trending", [snapshotId, 40]);
// Discovery samples: deep market-cap cursors, the volume_24h tail, batches of 100, deep market-wide trades.
const deepMarketCap: string[] = [];
for (const offset of [2000, 5000, 8000]) {
  const row = (
    await pick(
      "SELECT coalesce(fully_diluted_value, -1)::text AS v, address FROM tokens ORDER BY coalesce(fully_diluted_value, -1) DESC, address LIMIT 1 OFFSET $1",
      [offset],
    )
  )[0];
  deepMarketCap.push(codec.encode("tokens?sort=market_cap&phase=&search=", [BigInt(row.v), row.address]));
}
const middle = (await pick("SELECT address FROM tokens ORDER BY address LIMIT 1 OFFSET 5000"))[0].address;
const volumeTailCursor = codec.encode("tokens?sort=volume_24h&phase=&search=", [snapshotId, middle]);
const all: string[] = (await pick("SELECT address FROM tokens ORDER BY md5(address) LIMIT 1000")).map(
  (r) => r.address,
);
const batches = Array.from({ length: 10 }, (_, i) => all.slice(i * 100, i * 100 + 100));
const deepMarket: string[] = [];
for (const offset of [100_000, 500_000, 900_000]) {
  const row = (
    await pick(
      `SELECT block_number, transaction_index, log_index, transaction_hash FROM trades
       ORDER BY block_number DESC, transaction_index DESC, log_index DESC, transaction_hash DESC OFFSET $1 LIMIT 1`,
      [offset],
    )
  )[0];
  deepMarket.push(
    codec.encode("trades:all:desc", [
      BigInt(row.block_number),
      row.transaction_index,
      row.log_index,
      row.transaction_hash,
    ]),
  );
}
// `to` of the time-ranged charts: the latest indexed block's time (what a chart asks for on open).
const chartTo = Number(
  (await pick("SELECT block_timestamp FROM indexer_checkpoints LIMIT 1"))[0].block_timestamp,
);
const sizes = (
  await pick(`SELECT (SELECT count(*) FROM tokens) AS tokens, (SELECT count(*) FROM trades) AS trades,
  (SELECT count(*) FROM chain_events) AS events, (SELECT count(*) FROM candles) AS candles`)
)[0];
await setup.end();

let counter = 0;
const rotate = <T>(list: readonly T[]): T => list[counter++ % list.length]!;
/** A first page of 20 with cursors bound to `route` (the raw calls of the token list). */
const firstPage = (route: string) => ({
  filters: { search: "", phase: undefined },
  limit: 20,
  cursor: undefined as string | undefined,
  cursors: codec,
  route,
});
/** A page of 20 of a keyset source, first or after `cursor`. */
const keyset = (
  db: pg.Pool,
  source: Parameters<typeof readKeysetPage>[1],
  filters: unknown[],
  cursor?: string,
  route = "bench",
) => readKeysetPage(db, source, { filters, order: "desc", limit: 20, cursor, cursors: codec, route });

// The pnl sort as query-api reads it, with rankings of the same size as the server's.
const pnlRankings = createPnlRankings({ maxPositions: PNL_CACHE_POSITIONS });
const tradersByPnl = (db: pg.Pool, cursor?: string) =>
  readTokenTraders(db, { token: hot, sort: "pnl", limit: 20, cursor, cursors: codec, rankings: pnlRankings });

interface RouteBench {
  route: string;
  group: "detail" | "pages" | "lists" | "charts";
  path: () => string;
  raw: (db: pg.Pool) => Promise<unknown>;
}

const routes: RouteBench[] = [
  {
    route: "detail",
    group: "detail",
    path: () => `/api/v1/tokens/${rotate(tokens)}`,
    raw: (db) => getTokenDetail(db, rotate(tokens)),
  },
  {
    route: "pricing",
    group: "detail",
    path: () => `/api/v1/tokens/${rotate(tokens)}/pricing`,
    raw: (db) => getPricing(db, rotate(tokens)),
  },
  {
    route: "trades",
    group: "pages",
    path: () => `/api/v1/tokens/${rotate(tokens)}/trades`,
    raw: (db) => keyset(db, TOKEN_TRADES, [rotate(tokens)]),
  },
  {
    route: "trades_deep",
    group: "pages",
    path: () => `/api/v1/tokens/${hot}/trades?cursor=${rotate(deepTrades).cursor}`,
    raw: (db) => keyset(db, TOKEN_TRADES, [hot], rotate(deepTrades).cursor, `tokens.trades:${hot}:desc`),
  },
  {
    route: "activity",
    group: "pages",
    path: () => `/api/v1/tokens/${rotate(tokens)}/activity`,
    raw: (db) => keyset(db, TOKEN_ACTIVITY, [rotate(tokens)]),
  },
  {
    route: "activity_deep",
    group: "pages",
    path: () => `/api/v1/tokens/${hot}/activity?cursor=${rotate(deepActivity).cursor}`,
    raw: (db) =>
      keyset(db, TOKEN_ACTIVITY, [hot], rotate(deepActivity).cursor, `tokens.activity:${hot}:desc`),
  },
  {
    route: "list",
    group: "lists",
    path: () => "/api/v1/tokens",
    raw: (db) => listTokens(db, { after: null, take: 21 }),
  },
  {
    route: "newest_deep",
    group: "lists",
    path: () => `/api/v1/tokens/newest?cursor=${rotate(deepNewest).cursor}`,
    raw: (db) => listTokens(db, { after: rotate(deepNewest).position, take: 21 }),
  },
  {
    route: "search",
    group: "lists",
    path: () => `/api/v1/tokens?search=${encodeURIComponent(rotate(searches))}`,
    raw: (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.newest,
        ...firstPage("tokens?search=x"),
        filters: { search: rotate(searches), phase: undefined },
      }),
  },
  {
    route: "trending",
    group: "lists",
    path: () => "/api/v1/trending",
    raw: (db) => trendingPage(db, { limit: 20, cursor: undefined, cursors: codec }),
  },
  {
    route: "trending_page3",
    group: "lists",
    path: () => `/api/v1/tokens/trending?cursor=${trendingCursor}`,
    raw: (db) => trendingPage(db, { limit: 20, cursor: trendingCursor, cursors: codec }),
  },
  {
    route: "creator",
    group: "lists",
    path: () => `/api/v1/creators/${rotate(creators)}`,
    raw: (db) => {
      const creator = rotate(creators);
      return Promise.all([
        getCreatorAggregates(db, creator),
        listCreatorTokens(db, { creator, after: null, take: 21 }),
      ]);
    },
  },
  {
    route: "creator_tokens",
    group: "lists",
    path: () => `/api/v1/creators/${rotate(creators)}/tokens`,
    raw: (db) => listCreatorTokens(db, { creator: rotate(creators), after: null, take: 21 }),
  },
  {
    route: "chart_1m_1000",
    group: "charts",
    path: () => `/api/v1/tokens/${rotate(tokens)}/chart?interval=1m&limit=1000`,
    raw: (db) => getChartJson(db, chartOf(rotate(tokens), { interval: "1m", limit: 1000 })),
  },
  {
    route: "chart_1w",
    group: "charts",
    path: () => `/api/v1/tokens/${rotate(tokens)}/chart?interval=1w`,
    raw: (db) => getChartJson(db, chartOf(rotate(tokens), { interval: "1w", limit: 200 })),
  },
  // Charts by time (TradingView's getBars) and in USD (one answer probe per bucket).
  {
    route: "chart_1m_countback_300",
    group: "charts",
    path: () => `/api/v1/tokens/${rotate(tokens)}/chart?interval=1m&to=${chartTo}&countback=300`,
    raw: (db) =>
      getChartJson(db, chartOf(rotate(tokens), { interval: "1m", limit: 200, to: chartTo, countback: 300 })),
  },
  {
    route: "chart_15m_from_to",
    group: "charts",
    path: () =>
      `/api/v1/tokens/${rotate(tokens)}/chart?interval=15m&from=${chartTo - 86_400 * 7}&to=${chartTo}`,
    raw: (db) =>
      getChartJson(
        db,
        chartOf(rotate(tokens), { interval: "15m", limit: 200, from: chartTo - 86_400 * 7, to: chartTo }),
      ),
  },
  {
    route: "chart_1m_1000_usd",
    group: "charts",
    path: () => `/api/v1/tokens/${rotate(tokens)}/chart?interval=1m&limit=1000&currency=usd`,
    raw: (db) => getChartJson(db, chartOf(rotate(tokens), { interval: "1m", limit: 1000 }, "usd")),
  },
  {
    route: "chart_1h_usd",
    group: "charts",
    path: () => `/api/v1/tokens/${rotate(tokens)}/chart?interval=1h&currency=usd`,
    raw: (db) => getChartJson(db, chartOf(rotate(tokens), { interval: "1h", limit: 200 }, "usd")),
  },
  {
    route: "wallet",
    group: "detail",
    path: () => `/api/v1/wallets/${rotate(wallets)}`,
    raw: (db) => getWalletTotals(db, rotate(wallets)),
  },
  {
    route: "wallet_holdings_busy",
    group: "pages",
    path: () => `/api/v1/wallets/${rotate(busyWallets)}/holdings?include_closed=true`,
    raw: (db) =>
      listHoldings(db, { wallet: rotate(busyWallets), includeClosed: true, after: null, take: 21 }),
  },
  {
    route: "wallet_trades",
    group: "pages",
    path: () => `/api/v1/wallets/${rotate(wallets)}/trades`,
    raw: (db) => keyset(db, walletTradesSource(false), [rotate(wallets)]),
  },
  {
    route: "traders",
    group: "pages",
    path: () => `/api/v1/tokens/${rotate(tokens)}/traders`,
    raw: (db) => keyset(db, tokenTradersSource("volume"), [rotate(tokens)]),
  },
  {
    route: "traders_deep",
    group: "pages",
    path: () => `/api/v1/tokens/${hot}/traders?cursor=${deepTradersCursor}`,
    raw: (db) =>
      keyset(db, tokenTradersSource("volume"), [hot], deepTradersCursor, `tokens.traders:${hot}:volume`),
  },
  {
    route: "traders_pnl_hot",
    group: "pages",
    path: () => `/api/v1/tokens/${hot}/traders?sort=pnl`,
    raw: (db) => tradersByPnl(db),
  },
  {
    route: "traders_pnl_deep",
    group: "pages",
    path: () => `/api/v1/tokens/${hot}/traders?sort=pnl&cursor=${deepPnlCursor}`,
    raw: (db) => tradersByPnl(db, deepPnlCursor),
  },
  // Discovery (docs/api.md "Discovery: sorts, phase and batch", "GET /api/v1/trades").
  ...(["market_cap", "progress", "last_trade", "holders"] as const).map(
    (sort): RouteBench => ({
      route: `sort_${sort}`,
      group: "lists",
      path: () => `/api/v1/tokens?sort=${sort}`,
      raw: (db) =>
        orderedPage(db, { order: TOKEN_ORDERS[sort], ...firstPage(`tokens?sort=${sort}&phase=&search=`) }),
    }),
  ),
  ...(["volume_24h", "trending"] as const).map(
    (sort): RouteBench => ({
      route: `sort_${sort}`,
      group: "lists",
      path: () => `/api/v1/tokens?sort=${sort}`,
      raw: (db) =>
        twoPartPage(db, { sort: TWO_PART_SORTS[sort], ...firstPage(`tokens?sort=${sort}&phase=&search=`) }),
    }),
  ),
  {
    route: "sort_market_cap_deep",
    group: "lists",
    path: () => `/api/v1/tokens?sort=market_cap&cursor=${rotate(deepMarketCap)}`,
    raw: (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.market_cap,
        ...firstPage("tokens?sort=market_cap&phase=&search="),
        cursor: rotate(deepMarketCap),
      }),
  },
  {
    route: "sort_volume_tail",
    group: "lists",
    path: () => `/api/v1/tokens?sort=volume_24h&cursor=${volumeTailCursor}`,
    raw: (db) =>
      twoPartPage(db, {
        sort: TWO_PART_SORTS.volume_24h,
        ...firstPage("tokens?sort=volume_24h&phase=&search="),
        cursor: volumeTailCursor,
      }),
  },
  {
    route: "graduated_holders",
    group: "lists",
    path: () => "/api/v1/tokens?sort=holders&phase=graduated",
    raw: (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.holders,
        ...firstPage("tokens?sort=holders&phase=graduated&search="),
        filters: { search: "", phase: "graduated" },
      }),
  },
  {
    route: "search_market_cap",
    group: "lists",
    path: () => `/api/v1/tokens?sort=market_cap&search=${encodeURIComponent(rotate(searches))}`,
    raw: (db) =>
      orderedPage(db, {
        order: TOKEN_ORDERS.market_cap,
        ...firstPage("tokens?sort=market_cap&phase=&search=x"),
        filters: { search: rotate(searches), phase: undefined },
      }),
  },
  {
    route: "batch_100",
    group: "lists",
    path: () => `/api/v1/tokens?addresses=${rotate(batches).join(",")}`,
    raw: (db) => listTokensByAddress(db, rotate(batches)),
  },
  {
    route: "market_trades",
    group: "pages",
    path: () => "/api/v1/trades",
    raw: (db) => keyset(db, MARKET_TRADES, []),
  },
  {
    route: "market_trades_deep",
    group: "pages",
    path: () => `/api/v1/trades?cursor=${rotate(deepMarket)}`,
    raw: (db) => keyset(db, MARKET_TRADES, [], rotate(deepMarket), "trades:all:desc"),
  },
  {
    route: "market_swaps",
    group: "pages",
    path: () => "/api/v1/trades?source=uniswap_v3",
    raw: (db) => keyset(db, MARKET_TRADES_BY_SOURCE, ["uniswap_v3"], undefined, "trades:uniswap_v3:desc"),
  },
];

const TARGETS: Record<RouteBench["group"], { rps: number; p99: number }> = {
  detail: { rps: 4000, p99: 30 },
  pages: { rps: 2500, p99: 50 },
  lists: { rps: 2000, p99: 50 },
  charts: { rps: 400, p99: 100 },
};

// query-api as its own process, on the read-only pool of main.ts.
const server = startServiceProcess({
  service: "query-api",
  env: {
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    DATABASE_URL: data.url,
    CURSOR_SECRET: SECRET,
    DB_POOL_MAX: String(POOL),
    TRADERS_PNL_CACHE_POSITIONS: String(PNL_CACHE_POSITIONS),
    // The heap settings of the service's start script (services/query-api/package.json).
    NODE_OPTIONS: args.get("node-options") ?? "--max-old-space-size=192",
  },
});
const address = await waitFor(
  () => {
    if (server.child.exitCode !== null) throw new Error(`query-api exited: ${server.output()}`);
    const match = /"address":"(http:\/\/[^"]+)"/.exec(server.output());
    return match?.[1];
  },
  { timeoutMs: 60_000, message: "query-api did not start" },
);
const pid = server.child.pid!;
const rssMb = () => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

async function load(path: () => string, seconds: number) {
  const cpu = await sampleProcess(() => [pid], data.url);
  const cpuBefore = await cpu.figures();
  let peak = rssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 200);
  const result = await autocannon({
    url: address,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: "GET", setupRequest: (req: Record<string, unknown>) => ({ ...req, path: path() }) }],
  });
  clearInterval(timer);
  peak = Math.max(peak, rssMb());
  const cpuAfter = await cpu.stop();
  const perRequest = (seconds: number) => (seconds * 1000) / Math.max(1, result.requests.total);
  return {
    result,
    peak,
    cpuApiMs: perRequest(cpuAfter.cpuSecondsProcess - cpuBefore.cpuSecondsProcess),
    cpuPgMs: perRequest(cpuAfter.cpuSecondsPostgres - cpuBefore.cpuSecondsPostgres),
  };
}

async function rawPg(run: (db: pg.Pool) => Promise<unknown>, seconds: number) {
  const db = createReadPool({ url: data.url, max: POOL });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        await run(db);
        latencies.push(performance.now() - started);
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await db.end();
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  return { rps: latencies.length / seconds, p99, errors };
}

interface Row {
  route: string;
  group: RouteBench["group"];
  rps: number;
  /** Best one-second rate of the run (less sensitive to other load on the machine). */
  rpsMax: number;
  /** 1-minute load average when the route's run ended. */
  load: number;
  p50: number;
  p99: number;
  errors: number;
  rss: number;
  pgRps: number;
  pgP99: number;
  /** CPU ms per request of query-api and of its PostgreSQL backends during the route's run. */
  cpuApiMs: number;
  cpuPgMs: number;
}
const rows: Row[] = [];
const loadBefore = os.loadavg();
try {
  // Sanity: every route answers 200 before it is measured.
  for (const r of routes) {
    const response = await fetch(`${address}${r.path()}`);
    if (response.status !== 200) throw new Error(`${r.route}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer().catch(() => {});
  }
  for (const r of routes) {
    if (ONLY && !ONLY.includes(r.route)) continue;
    await load(r.path, 2); // warm-up
    const { result, peak, cpuApiMs, cpuPgMs } = await load(r.path, DURATION);
    const pgResult = await rawPg(r.raw, PG_DURATION);
    const row: Row = {
      route: r.route,
      group: r.group,
      rps: result.requests.average,
      rpsMax: result.requests.max,
      load: os.loadavg()[0]!,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      rss: peak,
      pgRps: pgResult.rps,
      pgP99: pgResult.p99,
      cpuApiMs,
      cpuPgMs,
    };
    rows.push(row);
    log(
      `  ${r.route}: ${row.rps.toFixed(0)} req/s p99 ${row.p99} ms errors ${row.errors} rss ${row.rss.toFixed(0)} MB cpu/req ${row.cpuApiMs.toFixed(2)} + ${row.cpuPgMs.toFixed(2)} ms | pg ${row.pgRps.toFixed(0)}/s p99 ${row.pgP99.toFixed(1)} ms`,
    );
  }
} finally {
  await server.stop();
}

const pad = (value: string, width: number) => value.padStart(width);
console.log(
  `\nquery-api benchmark — ${new Date().toISOString()} — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
);
console.log(
  `load average (1 min) at start ${loadBefore[0]!.toFixed(2)}, at end ${os.loadavg()[0]!.toFixed(2)} (other work on the machine skews the figures)`,
);
console.log(
  `data: ${sizes.tokens} tokens, ${sizes.trades} trades, ${sizes.events} chain events, ${sizes.candles} candles (chain ${BENCH_CHAIN_ID}); ${CONNECTIONS} connections, ${DURATION} s per route, DB_POOL_MAX ${POOL}, TRADERS_PNL_CACHE_POSITIONS ${PNL_CACHE_POSITIONS}\n`,
);
console.log(
  `${"route".padEnd(16)}${pad("req/s", 9)}${pad("best/s", 8)}${pad("load", 6)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("errors", 8)}${pad("RSS MB", 8)}${pad("pg q/s", 9)}${pad("pg p99", 8)}${pad("api/pg", 8)}${pad("cpu ms/req", 12)}  target`,
);
for (const row of rows) {
  const target = TARGETS[row.group];
  const ok = row.rps >= target.rps && row.p99 <= target.p99 && row.errors === 0 && row.rss <= 300;
  console.log(
    `${row.route.padEnd(16)}${pad(row.rps.toFixed(0), 9)}${pad(row.rpsMax.toFixed(0), 8)}${pad(row.load.toFixed(1), 6)}${pad(String(row.p50), 8)}${pad(String(row.p99), 8)}${pad(String(row.errors), 8)}${pad(row.rss.toFixed(0), 8)}${pad(row.pgRps.toFixed(0), 9)}${pad(row.pgP99.toFixed(1), 8)}${pad((row.rps / row.pgRps).toFixed(2), 8)}${pad(`${row.cpuApiMs.toFixed(2)}+${row.cpuPgMs.toFixed(2)}`, 12)}  ${ok ? "ok" : "MISS"} (≥ ${target.rps}/s, p99 ≤ ${target.p99} ms)`,
  );
}
console.log("");
for (const row of rows) {
  console.log(
    JSON.stringify({
      bench: "api",
      route: row.route,
      rps: Math.round(row.rps),
      rps_best_1s: Math.round(row.rpsMax),
      load_1m: Number(row.load.toFixed(2)),
      p99_ms: row.p99,
      rss_mb: Math.round(row.rss),
      errors: row.errors,
      pg_rps: Math.round(row.pgRps),
      pg_p99_ms: Number(row.pgP99.toFixed(1)),
      cpu_api_ms_per_req: Number(row.cpuApiMs.toFixed(3)),
      cpu_pg_ms_per_req: Number(row.cpuPgMs.toFixed(3)),
    }),
  );
}
