import { baseEnvSchema, databaseUrl, portSetting, redisUrl, SERVICE_PORTS } from "@tmi/shared/env";
import { z } from "zod";

function splitUrls(value: string, ctx: z.RefinementCtx): string[] {
  const urls = value
    .split(",")
    .map((u) => u.trim().replace(/\/+$/, ""))
    .filter((u) => u.length > 0);
  for (const url of urls) {
    if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
      ctx.addIssue({ code: "custom", message: `not an http(s) URL: ${url}` });
    }
  }
  if (urls.length === 0) ctx.addIssue({ code: "custom", message: "at least one URL is required" });
  return urls;
}

/** One upstream setting: an http(s) base URL, or several separated by commas (balanced across replicas). */
function upstreamUrls(defaultValue: string) {
  return z.string().default(defaultValue).transform(splitUrls);
}

/**
 * `TRUST_PROXY`: `false` (default: the client address is the socket's), `true` (trust every
 * `X-Forwarded-For` hop: only behind a proxy that overwrites it) or a comma-separated list of
 * trusted proxy addresses/CIDRs (e.g. `10.0.0.0/8`, or `loopback`). Decides the client IP used
 * for rate limiting.
 */
const trustProxy = z
  .string()
  .default("false")
  .transform((value): boolean | string[] => {
    if (value === "true") return true;
    if (value === "false") return false;
    return value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean);
  });

const nonNegativeInt = (defaultValue: number) => z.coerce.number().int().min(0).default(defaultValue);

/** Settings of the gateway (docs/operations.md). */
export const gatewayEnvSchema = baseEnvSchema.extend({
  GATEWAY_PORT: portSetting(SERVICE_PORTS.gateway),
  QUERY_API_URL: upstreamUrls(`http://127.0.0.1:${SERVICE_PORTS["query-api"]}`),
  METADATA_API_URL: upstreamUrls(`http://127.0.0.1:${SERVICE_PORTS["metadata-api"]}`),
  ORACLE_PRICE_URL: upstreamUrls(`http://127.0.0.1:${SERVICE_PORTS["oracle-price"]}`),
  /** Upstream of `/api/v1/stream` (Server-Sent Events); defaults to `QUERY_API_URL`. */
  STREAM_API_URL: z.string().transform(splitUrls).optional(),
  /** Time an upstream has to send its response headers (ms); then 504 `upstream_timeout`. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** Time to open a TCP connection to an upstream (ms); then 503 `service_unavailable`. */
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(1).default(2_000),
  /**
   * How long a replica that refused or timed out a connection stays out of rotation before it is
   * probed on `/readyz` (ms; doubled after each failed probe, up to 8×).
   */
  UPSTREAM_EJECT_MS: z.coerce.number().int().min(100).default(5_000),
  /** Largest request body forwarded when the client sends `Content-Length` (bytes; default 6 MiB: 5 MB image + form). */
  GATEWAY_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(6 * 1024 * 1024),
  /**
   * Time every request body has to arrive (ms), extended by 1 s per `GATEWAY_BODY_MIN_RATE_BYTES_PER_S`
   * bytes received; then 408 `request_timeout`. Bodies are received whole before the upstream is contacted.
   */
  GATEWAY_BODY_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** Minimum rate of a request body (bytes per second) past `GATEWAY_BODY_TIMEOUT_MS`. */
  GATEWAY_BODY_MIN_RATE_BYTES_PER_S: z.coerce.number().int().min(1).default(8192),
  /** Request bodies one client address may be sending at once to one gateway process (0 = no cap); then 429 `rate_limited`. */
  GATEWAY_MAX_BODIES_PER_CLIENT: nonNegativeInt(8),
  /**
   * Bytes of request bodies the gateway holds at once, every client together (0 = no cap; default
   * 96 MiB: 16 uploads of 6 MiB); a body past it is 503 `service_unavailable`.
   */
  GATEWAY_MAX_BUFFERED_BYTES: nonNegativeInt(96 * 1024 * 1024),
  /** `*` (any origin, default) or a comma-separated list of allowed origins. */
  CORS_ORIGINS: z.string().default("*"),
  /** Requests per minute per client IP without an API key; 0 turns rate limiting off (for keys too). */
  RATE_LIMIT_PER_MINUTE: nonNegativeInt(600),
  /** Requests per minute per API key of tier `free` (docs/api.md "API keys"). */
  GATEWAY_RATE_LIMIT_FREE_PER_MIN: z.coerce.number().int().min(1).default(1_200),
  /** Requests per minute per API key of tier `pro`. */
  GATEWAY_RATE_LIMIT_PRO_PER_MIN: z.coerce.number().int().min(1).default(6_000),
  /** The database holding `api_keys` (the primary); looked up only for requests that send a key. */
  DATABASE_URL: databaseUrl,
  /**
   * How long a key lookup's answer is reused by one gateway process (ms, 0–1,000): the most a
   * revocation takes to reach every replica.
   */
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(500),
  REDIS_URL: redisUrl,
  /** Key prefix of the rate-limit counters in Redis (replicas sharing it share counts). */
  RATE_LIMIT_REDIS_PREFIX: z.string().min(1).default("tmi:gateway:rate-limit:"),
  TRUST_PROXY: trustProxy,
  /** Load shedding (503 `service_unavailable`): mean event-loop delay over a sample above this (ms, 0 = off). */
  GATEWAY_MAX_EVENT_LOOP_DELAY_MS: nonNegativeInt(200),
  /**
   * Load shedding: event-loop utilization above this (0–1; default 0 = off: a proxy running at full
   * speed with good latency sits at ≈ 1, so this would shed healthy traffic; the delay bound is the signal).
   */
  GATEWAY_MAX_EVENT_LOOP_UTILIZATION: z.coerce.number().min(0).max(1).default(0),
  /** Load shedding: V8 heap used above this (bytes, 0 = off). */
  GATEWAY_MAX_HEAP_USED_BYTES: nonNegativeInt(0),
  /** Load shedding: resident set size above this (bytes, 0 = off). */
  GATEWAY_MAX_RSS_BYTES: nonNegativeInt(0),
  /** How often load is sampled (ms). */
  GATEWAY_PRESSURE_SAMPLE_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
});

/** Parsed settings of the gateway. */
export type GatewayEnv = z.output<typeof gatewayEnvSchema>;

/** `CORS_ORIGINS` as @fastify/cors wants it: `true` for any origin, else the list. */
export function corsOrigins(value: string): true | string[] {
  const list = value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  return list.length === 0 || list.includes("*") ? true : list;
}
