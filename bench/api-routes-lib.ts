// The routes of `pnpm bench api`: each one's request path (rotating over the samples) and the
// query functions the route calls (`raw`), run straight on a `pg` pool for comparison.
import type pg from "pg";
import type { CursorCodec } from "../packages/shared/src/codec/index.js";
import { readKeysetPage } from "../services/query-api/src/common/keyset-page.js";
import {
  getCreatorAggregates,
  listCreatorTokens,
} from "../services/query-api/src/creators/creator-queries.js";
import { TOKEN_ACTIVITY } from "../services/query-api/src/tokens/activity/activity-queries.js";
import type { ChartWindowRequest } from "../services/query-api/src/tokens/chart/chart-buckets.js";
import { getChartJson } from "../services/query-api/src/tokens/chart/chart-queries.js";
import type { ChartCurrency } from "../services/query-api/src/tokens/chart/chart-schemas.js";
import { getHolderHistoryJson } from "../services/query-api/src/tokens/holders/holder-history.js";
import {
  type HolderTag,
  holdersSource,
  readHolderToken,
} from "../services/query-api/src/tokens/holders/holder-queries.js";
import {
  listTokensByAddress,
  orderedPage,
  parseScreener,
  TOKEN_ORDERS,
  type TokenPhase,
  TWO_PART_SORTS,
  twoPartPage,
} from "../services/query-api/src/tokens/token-list-queries.js";
import { getPricing, getTokenDetail, listTokens } from "../services/query-api/src/tokens/token-queries.js";
import type { createPnlRankings } from "../services/query-api/src/tokens/traders/pnl-ranking.js";
import {
  readTokenTraders,
  tokenTradersSource,
} from "../services/query-api/src/tokens/traders/trader-queries.js";
import { trendingPage } from "../services/query-api/src/tokens/trending/trending-queries.js";
import {
  MARKET_TRADES,
  MARKET_TRADES_BY_SOURCE,
  TOKEN_TRADES,
  walletTradesSource,
} from "../services/query-api/src/trades/trade-queries.js";
import { getWalletTotals, listHoldings } from "../services/query-api/src/wallets/wallet-queries.js";
import type { ApiSamples } from "./api-samples-lib.js";

/** A route under load: its name, target group, request path and the query functions it calls. */
export interface RouteBench {
  route: string;
  group: "detail" | "pages" | "lists" | "charts";
  path: () => string;
  /** The route's statements on a pool (absent: the route has no query function to call alone). */
  raw?: (db: pg.Pool) => Promise<unknown>;
}

/** Targets per group: requests per second and p99 latency. */
export const TARGETS: Record<RouteBench["group"], { rps: number; p99: number }> = {
  detail: { rps: 4000, p99: 30 },
  pages: { rps: 2500, p99: 50 },
  lists: { rps: 2000, p99: 50 },
  charts: { rps: 400, p99: 100 },
};

/** Options of {@link getChartJson} for `token`. */
const chartOf = (token: string, window: ChartWindowRequest, currency: ChartCurrency = "eth") => ({
  token,
  window,
  currency,
});

/**
 * Every route of query-api under load, paths rotating over `samples`; cursors made with `codec`;
 * `pnlRankings`: the pnl rankings of the same size as the server's.
 */
export function apiRoutes(
  samples: ApiSamples,
  codec: CursorCodec,
  pnlRankings: ReturnType<typeof createPnlRankings>,
): RouteBench[] {
  const { tokens, hot, searches, wallets } = samples;
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
  /** A token's holders as the route reads them: the token's row, then the page. */
  const holdersPage = async (db: pg.Pool, token: string, tag?: HolderTag) => {
    const info = await readHolderToken(db, token);
    return keyset(db, holdersSource(tag), [token, info?.notHolders, info?.creator]);
  };
  const tradersByPnl = (db: pg.Pool, cursor?: string) =>
    readTokenTraders(db, {
      token: hot,
      sort: "pnl",
      limit: 20,
      cursor,
      cursors: codec,
      rankings: pnlRankings,
    });

  return [
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
    // A token's trades and activity: first pages of random tokens, cursors deep into the hot one.
    ...(
      [
        ["trades", TOKEN_TRADES, samples.deepTrades],
        ["activity", TOKEN_ACTIVITY, samples.deepActivity],
      ] as const
    ).flatMap(([name, source, deep]): RouteBench[] => [
      {
        route: name,
        group: "pages",
        path: () => `/api/v1/tokens/${rotate(tokens)}/${name}`,
        raw: (db) => keyset(db, source, [rotate(tokens)]),
      },
      {
        route: `${name}_deep`,
        group: "pages",
        path: () => `/api/v1/tokens/${hot}/${name}?cursor=${rotate(deep).cursor}`,
        raw: (db) => keyset(db, source, [hot], rotate(deep).cursor, `tokens.${name}:${hot}:desc`),
      },
    ]),
    {
      route: "list",
      group: "lists",
      path: () => "/api/v1/tokens",
      raw: (db) => listTokens(db, { after: null, take: 21 }),
    },
    {
      route: "newest_deep",
      group: "lists",
      path: () => `/api/v1/tokens/newest?cursor=${rotate(samples.deepNewest).cursor}`,
      raw: (db) => listTokens(db, { after: rotate(samples.deepNewest).position, take: 21 }),
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
      path: () => `/api/v1/tokens/trending?cursor=${samples.trendingCursor}`,
      raw: (db) => trendingPage(db, { limit: 20, cursor: samples.trendingCursor, cursors: codec }),
    },
    {
      route: "creator",
      group: "lists",
      path: () => `/api/v1/creators/${rotate(samples.creators)}`,
      raw: (db) => {
        const creator = rotate(samples.creators);
        return Promise.all([
          getCreatorAggregates(db, creator),
          listCreatorTokens(db, { creator, after: null, take: 21 }),
        ]);
      },
    },
    {
      route: "creator_tokens",
      group: "lists",
      path: () => `/api/v1/creators/${rotate(samples.creators)}/tokens`,
      raw: (db) => listCreatorTokens(db, { creator: rotate(samples.creators), after: null, take: 21 }),
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
      path: () => `/api/v1/tokens/${rotate(tokens)}/chart?interval=1m&to=${samples.chartTo}&countback=300`,
      raw: (db) =>
        getChartJson(
          db,
          chartOf(rotate(tokens), { interval: "1m", limit: 200, to: samples.chartTo, countback: 300 }),
        ),
    },
    {
      route: "chart_15m_from_to",
      group: "charts",
      path: () =>
        `/api/v1/tokens/${rotate(tokens)}/chart?interval=15m&from=${samples.chartTo - 86_400 * 7}&to=${samples.chartTo}`,
      raw: (db) =>
        getChartJson(
          db,
          chartOf(rotate(tokens), {
            interval: "15m",
            limit: 200,
            from: samples.chartTo - 86_400 * 7,
            to: samples.chartTo,
          }),
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
      path: () => `/api/v1/wallets/${rotate(samples.busyWallets)}/holdings?include_closed=true`,
      raw: (db) =>
        listHoldings(db, { wallet: rotate(samples.busyWallets), includeClosed: true, after: null, take: 21 }),
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
      path: () => `/api/v1/tokens/${hot}/traders?cursor=${samples.deepTradersCursor}`,
      raw: (db) =>
        keyset(
          db,
          tokenTradersSource("volume"),
          [hot],
          samples.deepTradersCursor,
          `tokens.traders:${hot}:volume`,
        ),
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
      path: () => `/api/v1/tokens/${hot}/traders?sort=pnl&cursor=${samples.deepPnlCursor}`,
      raw: (db) => tradersByPnl(db, samples.deepPnlCursor),
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
    // Screener filters (docs/api.md "Screener filters"): risk bounds over the market-cap order; a
    // two-part sort with a phase and a volume bound; a rare screen (about 1 % of the tokens pass:
    // a page examines up to its bound of rows, SCREENER_WINDOW).
    ...(
      [
        [
          "screener_market_cap",
          "market_cap",
          undefined,
          "min_holders=5&max_top10_share_bps=2000&creator_has_sold=false",
        ],
        ["screener_volume_24h_curve", "volume_24h", "curve", "min_volume_24h=1&max_creator_share_bps=1000"],
        [
          "screener_newest_rare",
          "newest",
          undefined,
          "min_market_cap=980000000000000000000000&max_sniper_share_bps=100",
        ],
      ] as const
    ).map(([route, sort, phase, screen]): RouteBench => {
      const screener = parseScreener(Object.fromEntries(new URLSearchParams(screen)));
      const query = `sort=${sort}${phase ? `&phase=${phase}` : ""}&${screen}`;
      return {
        route,
        group: "lists",
        path: () => `/api/v1/tokens?${query}`,
        raw: (db) => {
          const options = {
            ...firstPage(`tokens?${query}`),
            filters: { search: "", phase: phase as TokenPhase | undefined, screener },
          };
          return sort === "volume_24h"
            ? twoPartPage(db, { sort: TWO_PART_SORTS[sort], ...options })
            : orderedPage(db, { order: TOKEN_ORDERS[sort], ...options });
        },
      };
    }),
    {
      route: "sort_market_cap_deep",
      group: "lists",
      path: () => `/api/v1/tokens?sort=market_cap&cursor=${rotate(samples.deepMarketCap)}`,
      raw: (db) =>
        orderedPage(db, {
          order: TOKEN_ORDERS.market_cap,
          ...firstPage("tokens?sort=market_cap&phase=&search="),
          cursor: rotate(samples.deepMarketCap),
        }),
    },
    {
      route: "sort_holders_tie_deep",
      group: "lists",
      path: () => `/api/v1/tokens?sort=holders&cursor=${samples.holdersTieDeep}`,
      raw: (db) =>
        orderedPage(db, {
          order: TOKEN_ORDERS.holders,
          ...firstPage("tokens?sort=holders&phase=&search="),
          cursor: samples.holdersTieDeep,
        }),
    },
    {
      route: "sort_volume_tail",
      group: "lists",
      path: () => `/api/v1/tokens?sort=volume_24h&cursor=${samples.volumeTailCursor}`,
      raw: (db) =>
        twoPartPage(db, {
          sort: TWO_PART_SORTS.volume_24h,
          ...firstPage("tokens?sort=volume_24h&phase=&search="),
          cursor: samples.volumeTailCursor,
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
    // Search with every other sort (the bounded search of docs/api.md), with a phase, and deep.
    ...(["progress", "last_trade", "holders", "volume_24h", "trending"] as const).map(
      (sort): RouteBench => ({
        route: `search_${sort}`,
        group: "lists",
        path: () => `/api/v1/tokens?sort=${sort}&search=${encodeURIComponent(rotate(searches))}`,
        raw: (db) => {
          const options = {
            ...firstPage(`tokens?sort=${sort}&phase=&search=x`),
            filters: { search: rotate(searches), phase: undefined },
          };
          return sort === "volume_24h" || sort === "trending"
            ? twoPartPage(db, { sort: TWO_PART_SORTS[sort], ...options })
            : orderedPage(db, { order: TOKEN_ORDERS[sort], ...options });
        },
      }),
    ),
    {
      route: "search_curve",
      group: "lists",
      path: () => `/api/v1/tokens?phase=curve&search=${encodeURIComponent(rotate(searches))}`,
      raw: (db) =>
        orderedPage(db, {
          order: TOKEN_ORDERS.newest,
          ...firstPage("tokens?sort=newest&phase=curve&search=x"),
          filters: { search: rotate(searches), phase: "curve" },
        }),
    },
    {
      // A sparse phase: the prefix table's windowed walk (docs/api.md "Search, exact in launch order").
      route: "search_graduated",
      group: "lists",
      path: () => `/api/v1/tokens?phase=graduated&search=${encodeURIComponent(rotate(searches))}`,
      raw: (db) =>
        orderedPage(db, {
          order: TOKEN_ORDERS.newest,
          ...firstPage("tokens?sort=newest&phase=graduated&search=x"),
          filters: { search: rotate(searches), phase: "graduated" },
        }),
    },
    {
      route: "search_deep",
      group: "lists",
      path: () =>
        `/api/v1/tokens?search=${encodeURIComponent(samples.searchDeep.search)}&cursor=${samples.searchDeep.cursor}`,
      raw: (db) =>
        orderedPage(db, {
          order: TOKEN_ORDERS.newest,
          ...firstPage(`tokens?search=${samples.searchDeep.search}`),
          cursor: samples.searchDeep.cursor,
          filters: { search: samples.searchDeep.search, phase: undefined },
        }),
    },
    {
      route: "holders",
      group: "pages",
      path: () => `/api/v1/tokens/${rotate(tokens)}/holders`,
      raw: (db) => holdersPage(db, rotate(tokens)),
    },
    {
      route: "holders_hot",
      group: "pages",
      path: () => `/api/v1/tokens/${hot}/holders`,
      raw: (db) => holdersPage(db, hot),
    },
    {
      // Holder count per hour over the last 1,000 hours (docs/api.md "Holder count over time").
      route: "holders_history_1h",
      group: "charts",
      path: () => `/api/v1/tokens/${rotate(tokens)}/holders/history?interval=1h&limit=1000`,
      raw: (db) => getHolderHistoryJson(db, rotate(tokens), { interval: "1h", limit: 1000 }),
    },
    ...(["sniper", "insider"] as const).map(
      (tag): RouteBench => ({
        route: `holders_hot_${tag}`,
        group: "pages",
        path: () => `/api/v1/tokens/${hot}/holders?tag=${tag}`,
        raw: (db) => holdersPage(db, hot, tag),
      }),
    ),
    ...(["realized_pnl", "bought", "sold"] as const).map(
      (sort): RouteBench => ({
        route: `traders_${sort}`,
        group: "pages",
        path: () => `/api/v1/tokens/${rotate(tokens)}/traders?sort=${sort}`,
        raw: (db) => keyset(db, tokenTradersSource(sort), [rotate(tokens)]),
      }),
    ),
    {
      route: "wallet_holdings",
      group: "pages",
      path: () => `/api/v1/wallets/${rotate(wallets)}/holdings`,
      raw: (db) => listHoldings(db, { wallet: rotate(wallets), includeClosed: false, after: null, take: 21 }),
    },
    { route: "status", group: "detail", path: () => "/api/v1/status" },
    {
      route: "batch_100",
      group: "lists",
      path: () => `/api/v1/tokens?addresses=${rotate(samples.batches).join(",")}`,
      raw: (db) => listTokensByAddress(db, rotate(samples.batches)),
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
      path: () => `/api/v1/trades?cursor=${rotate(samples.deepMarket)}`,
      raw: (db) => keyset(db, MARKET_TRADES, [], rotate(samples.deepMarket), "trades:all:desc"),
    },
    {
      route: "market_swaps",
      group: "pages",
      path: () => "/api/v1/trades?source=uniswap_v3",
      raw: (db) => keyset(db, MARKET_TRADES_BY_SOURCE, ["uniswap_v3"], undefined, "trades:uniswap_v3:desc"),
    },
  ];
}
