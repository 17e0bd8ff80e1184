import { isIP } from "node:net";
import {
  addressSetting,
  baseEnvSchema,
  databaseUrl,
  parseEnv,
  portSetting,
  SERVICE_PORTS,
} from "@tmi/shared/env";
import { z } from "zod";
import { BASE_WETH_ADDRESS, type DexScreenerSettings } from "./dexscreener/dexscreener-routes.js";
import type { ResponseCacheSettings } from "./response-cache/response-cache-plugin.js";

/** Default of `TRADERS_PNL_CACHE_POSITIONS`: positions held by the pnl rankings of one process (about 15 MB). */
export const DEFAULT_TRADERS_PNL_CACHE_POSITIONS = 100_000;

/** Cursor secret used outside production when `CURSOR_SECRET` is unset (never in production). */
export const DEV_CURSOR_SECRET = "tmi-dev-cursor-secret-not-for-production";

/**
 * Environment of query-api (`services/query-api/src/main.ts`):
 * `PORT` (3001), `DATABASE_URL`, `DATABASE_READ_URL` (read replica, falls back to `DATABASE_URL`),
 * `CURSOR_SECRET` (≥ 16 characters; required when `NODE_ENV=production`), `CORS_ORIGINS`
 * (`*` or a comma-separated list of origins, default `*`), `DB_POOL_MAX` (default 10),
 * `TRUST_PROXY` (see {@link parseTrustProxy}; default `false`), `READ_REPLICA_MAX_LAG_S` (30),
 * `READ_FALLBACK_TO_PRIMARY` (false), `READ_MIN_BLOCK_WAIT_MS` (1,000), `STREAM_READ_WAIT_MS` (2,000),
 * `STREAM_MAX_PER_CLIENT` (10), `STREAM_MAX_CONNECTIONS` (5,000), `STREAM_IDLE_STOP_MS` (30,000),
 * `TRADERS_PNL_CACHE_POSITIONS` (100,000), `QUERY_CACHE_ENABLED` (true), `QUERY_CACHE_MAX_MB` (64),
 * `QUERY_CACHE_MAX_AGE_MS` (2,000), `DEXSCREENER_DEX_KEY` (zonkfun), `WETH_ADDRESS` (Base's WETH),
 * `DEXSCREENER_MAX_BLOCK_RANGE` (10,000).
 */
export const queryApiEnvSchema = baseEnvSchema
  .extend({
    PORT: portSetting(SERVICE_PORTS["query-api"]),
    DATABASE_URL: databaseUrl,
    DATABASE_READ_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    CURSOR_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
    CORS_ORIGINS: z.string().default("*"),
    DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
    READ_REPLICA_MAX_LAG_S: z.coerce.number().min(0).default(30),
    READ_FALLBACK_TO_PRIMARY: z.enum(["true", "false"]).default("false"),
    READ_MIN_BLOCK_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(1_000),
    STREAM_MAX_PER_CLIENT: z.coerce.number().int().min(1).max(10_000).default(10),
    STREAM_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(5_000),
    STREAM_IDLE_STOP_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    STREAM_READ_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
    TRADERS_PNL_CACHE_POSITIONS: z.coerce
      .number()
      .int()
      .min(0)
      .max(10_000_000)
      .default(DEFAULT_TRADERS_PNL_CACHE_POSITIONS),
    QUERY_CACHE_ENABLED: z.enum(["true", "false"]).default("true"),
    QUERY_CACHE_MAX_MB: z.coerce.number().int().min(1).max(16_384).default(64),
    QUERY_CACHE_MAX_AGE_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
    DEXSCREENER_DEX_KEY: z
      .string()
      .regex(
        /^[a-z0-9_-]{1,64}$/,
        "must be the DEX key DEX Screener assigned (lowercase letters, digits, - and _)",
      )
      .default("zonkfun"),
    WETH_ADDRESS: addressSetting.default(BASE_WETH_ADDRESS),
    DEXSCREENER_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    TRUST_PROXY: z
      .string()
      .default("false")
      .refine((value) => parseTrustProxy(value) !== undefined, {
        message:
          "must be true, false, or a comma-separated list of addresses/CIDRs (or loopback, linklocal, uniquelocal)",
      }),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && env.CURSOR_SECRET === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["CURSOR_SECRET"],
        message: "is required when NODE_ENV=production",
      });
    }
  });

/** What `buildApp` needs from the configuration. */
export interface QueryApiConfig {
  /** HMAC key of pagination cursors. */
  cursorSecret: string;
  /** `"*"` (any origin) or the allowed origins. */
  corsOrigins: "*" | string[];
  /**
   * Fastify `trustProxy` (default `false`): which `X-Forwarded-For` hops to believe for the client
   * IP (`request.ip`, used by the stream's per-IP cap). See {@link parseTrustProxy}.
   */
  trustProxy?: TrustProxy;
  /**
   * Positions held by the per-process pnl rankings of `GET /api/v1/tokens/{address}/traders?sort=pnl`
   * (`TRADERS_PNL_CACHE_POSITIONS`, {@link DEFAULT_TRADERS_PNL_CACHE_POSITIONS}; about 150 bytes each;
   * 0: every page is sorted in SQL).
   */
  tradersPnlCachePositions?: number;
  /**
   * The response cache of the data routes (`QUERY_CACHE_ENABLED`, `QUERY_CACHE_MAX_MB`,
   * `QUERY_CACHE_MAX_AGE_MS`; see `responseCachePlugin`). Absent: off (tests that write fixtures
   * without moving the checkpoint); main.ts always sets it (on by default).
   */
  responseCache?: ResponseCacheSettings;
  /** The DEX Screener adapter (`DEXSCREENER_DEX_KEY`, `WETH_ADDRESS`, `DEXSCREENER_MAX_BLOCK_RANGE`); defaults without it. */
  dexScreener?: DexScreenerSettings;
}

/** Fastify `trustProxy` values accepted by query-api: off, on, or trusted proxy addresses/CIDRs. */
export type TrustProxy = boolean | string[];

/** The whole process configuration (`main.ts`). */
export interface QueryApiSettings extends QueryApiConfig {
  nodeEnv: "development" | "production" | "test";
  logLevel: string;
  host: string;
  port: number;
  databaseUrl: string;
  /** The read replica (or `databaseUrl` when `DATABASE_READ_URL` is unset). */
  databaseReadUrl: string;
  poolMax: number;
  /** `/readyz` fails when the read replica is more than this many seconds behind (`READ_REPLICA_MAX_LAG_S`, 30). */
  maxReplicaLagS: number;
  /** Serve reads from the primary while the replica is unreachable (`READ_FALLBACK_TO_PRIMARY`, false). */
  fallbackToPrimary: boolean;
  /** How long a `min_block` request waits for its block (`READ_MIN_BLOCK_WAIT_MS`, 1,000 ms). */
  minBlockWaitMs: number;
  /** With no stream subscriber for this long, the stream's connections to the primary close (`STREAM_IDLE_STOP_MS`, 30,000). */
  streamIdleStopMs: number;
  /** Concurrent live streams per client address (`STREAM_MAX_PER_CLIENT`, 10). */
  streamMaxPerClient: number;
  /** Concurrent live streams of this process, every client together (`STREAM_MAX_CONNECTIONS`, 5,000). */
  streamMaxConnections: number;
  /** How long a stream event waits for the read database to show its block (`STREAM_READ_WAIT_MS`, 2,000 ms). */
  streamReadWaitMs: number;
  /** True when `CURSOR_SECRET` was unset and {@link DEV_CURSOR_SECRET} is used (warned about at start). */
  cursorSecretIsDefault: boolean;
}

/** Parses `CORS_ORIGINS`: `*` or comma-separated origins (blank entries dropped). */
export function parseCorsOrigins(value: string): "*" | string[] {
  const trimmed = value.trim();
  if (trimmed === "*" || trimmed === "") return "*";
  return trimmed
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0);
}

/**
 * Parses `TRUST_PROXY`: `false` (default: the client IP is the socket peer), `true` (trust every
 * `X-Forwarded-For` hop: the leftmost entry is the client; only when every path to query-api
 * goes through a proxy that overwrites the header), or a comma-separated list of trusted proxy
 * addresses/CIDRs or the names `loopback`, `linklocal`, `uniquelocal` (e.g. `loopback,10.0.0.0/8`:
 * the client is the nearest `X-Forwarded-For` entry not in the list; recommended behind the
 * gateway). Hop counts are not accepted: Fastify 5 trusts no hop for a number (fail closed).
 * Returns undefined when the value is none of these.
 */
export function parseTrustProxy(value: string): TrustProxy | undefined {
  const trimmed = value.trim().toLowerCase();
  if (trimmed === "false" || trimmed === "") return false;
  if (trimmed === "true") return true;
  const list = trimmed
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (list.length === 0) return undefined;
  const valid = list.every((entry) => {
    if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
    const [ip = "", bits, ...rest] = entry.split("/");
    const family = isIP(ip);
    if (family === 0 || rest.length > 0) return false;
    return bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
  return valid ? list : undefined;
}

/**
 * Parses the environment (`source`, default `process.env`) into {@link QueryApiSettings}.
 * @throws EnvError listing every problem.
 */
export function loadQueryApiSettings(
  source: Record<string, string | undefined> = process.env,
): QueryApiSettings {
  const env = parseEnv(queryApiEnvSchema, source);
  return Object.freeze({
    nodeEnv: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    host: env.HOST,
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    databaseReadUrl: env.DATABASE_READ_URL ?? env.DATABASE_URL,
    poolMax: env.DB_POOL_MAX,
    maxReplicaLagS: env.READ_REPLICA_MAX_LAG_S,
    fallbackToPrimary: env.READ_FALLBACK_TO_PRIMARY === "true",
    minBlockWaitMs: env.READ_MIN_BLOCK_WAIT_MS,
    streamReadWaitMs: env.STREAM_READ_WAIT_MS,
    streamMaxPerClient: env.STREAM_MAX_PER_CLIENT,
    streamMaxConnections: env.STREAM_MAX_CONNECTIONS,
    streamIdleStopMs: env.STREAM_IDLE_STOP_MS,
    cursorSecret: env.CURSOR_SECRET ?? DEV_CURSOR_SECRET,
    cursorSecretIsDefault: env.CURSOR_SECRET === undefined,
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    trustProxy: parseTrustProxy(env.TRUST_PROXY) ?? false,
    tradersPnlCachePositions: env.TRADERS_PNL_CACHE_POSITIONS,
    dexScreener: {
      dexKey: env.DEXSCREENER_DEX_KEY,
      wethAddress: env.WETH_ADDRESS,
      maxBlockRange: env.DEXSCREENER_MAX_BLOCK_RANGE,
    },
    responseCache: {
      enabled: env.QUERY_CACHE_ENABLED === "true",
      maxBytes: env.QUERY_CACHE_MAX_MB * 1024 * 1024,
      maxAgeMs: env.QUERY_CACHE_MAX_AGE_MS,
    },
  });
}
