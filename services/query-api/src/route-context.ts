import type { CursorCodec } from "@tmi/shared/codec";
import type { z } from "zod";
import {
  type DataRoutes,
  dataRoutesOf,
  type RoutesPlugin,
  type TokenRouteSpec,
  tokenRouteOf,
} from "./common/route-helpers.js";
import type { SqlReader } from "./db.js";
import type { DexScreenerSettings } from "./dexscreener/dexscreener-routes.js";
import type { ReadDatabase } from "./read-database/read-database.js";
import type { DetailStatsSource } from "./tokens/token-queries.js";
import type { PnlRankings } from "./tokens/traders/pnl-ranking.js";

/**
 * What every resource folder's routes plugin receives: the one shape of query-api's routes.
 * Each folder is a URL prefix (`tokens/` is `/api/v1/tokens`, `tokens/holders/` its
 * `/:address/holders`, `wallets/` is `/api/v1/wallets`, ...) and exports
 * `<resource>Routes(ctx: RouteContext): FastifyPluginAsync` (literal paths inside, zod
 * schemas), which `buildApp` registers after the app-wide hooks (freshness headers,
 * `min_block`), so every route gets them. Defined here, beside `app.ts`, so that `common/`
 * imports no resource folder.
 */
export interface RouteContext {
  /** Read-only database (the read replica in production). */
  db: SqlReader;
  cursors: CursorCodec;
  /** Cached window stats of token detail (per token and checkpoint block); computed every time without it. */
  detailStats?: DetailStatsSource;
  /** Per-process pnl rankings of the traders route (`sort=pnl`); read directly without them. */
  pnlRankings?: PnlRankings;
  /** Settings of the DEX Screener adapter (`/dexscreener/*`); the defaults without them. */
  dexScreener?: DexScreenerSettings;
  /** The read side with its lag (main.ts), reported by `/api/v1/status`. */
  readDatabase?: ReadDatabase;
}

/** A resource folder's routes plugin over the {@link RouteContext}. */
export type Routes = RoutesPlugin<RouteContext>;

/** `dataRoutesOf` (common/route-helpers.ts) over the {@link RouteContext}. */
export const dataRoutes: (tag: string, declare: (routes: DataRoutes, ctx: RouteContext) => void) => Routes =
  dataRoutesOf<RouteContext>;

/** `tokenRouteOf` (common/route-helpers.ts) over the {@link RouteContext}. */
export function tokenRoute<Q extends z.ZodType>(name: string, spec: TokenRouteSpec<Q, RouteContext>): Routes {
  return tokenRouteOf(name, spec);
}
