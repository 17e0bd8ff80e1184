import { AppError } from "@tmi/shared/errors";
import { CANDLE_INTERVALS, type CandleInterval, isCandleInterval } from "@tmi/shared/market";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type pg from "pg";
import { z } from "zod";
import { parseAddressList } from "../common/params.js";
import { errorSchema } from "../common/wire-schemas.js";
import { DATA_EVENT_NAMES, type DataEventName, DEFAULT_DATA_EVENT_NAMES } from "./stream-events.js";
import { StreamHub, type StreamHubConfig } from "./stream-hub.js";
import { type StreamSubscriber, subscriberKey } from "./stream-subscribers.js";

/** Settings of {@link streamRoutes} (defaults in brackets). */
export interface StreamRoutesConfig extends StreamHubConfig {
  /** Concurrent streams per client IP (`request.ip`: set the app's `trustProxy` behind the gateway) [10]. */
  maxConnectionsPerIp?: number;
  /** Concurrent streams of this process (`STREAM_MAX_CONNECTIONS`) [5,000]; above it 429 `rate_limited`. */
  maxConnections?: number;
  /** At most this many addresses in `tokens=` and in `wallets=` [100]. */
  maxTokens?: number;
  /** Start listening when the app is ready instead of at the first subscriber [false]. */
  eager?: boolean;
  /**
   * Client identity for the per-IP cap [`request.ip`: the socket peer, or the forwarded client when
   * the app trusts its proxy]. Behind the gateway without `trustProxy`, every client would share
   * the gateway's address: pass e.g. the last `X-Forwarded-For` entry the gateway appends.
   */
  clientIp?: (request: FastifyRequest) => string;
}

/** Dependencies of {@link streamRoutes}. */
export interface StreamRoutesDeps {
  /** Primary database URL (`DATABASE_URL`): one LISTEN connection per process, and range reads unless `pool` is given. */
  listenerUrl: string;
  /** Pool for the range reads; it must not lag the primary (do not pass a replica pool). Default: 3 connections on `listenerUrl`. */
  pool?: pg.Pool;
  config?: StreamRoutesConfig;
  /** Block up to which the read database shows data: events wait for it (see `StreamHubConfig.readWaitMs`). */
  readPosition?: () => Promise<bigint | null>;
  /** Receives the hub once created (tests, metrics). */
  onHub?: (hub: StreamHub) => void;
}

const querySchema = z.object({
  tokens: z
    .string()
    .max(10_000)
    .optional()
    .describe("comma-separated token addresses (default: every token)"),
  wallets: z
    .string()
    .max(10_000)
    .optional()
    .describe(
      "comma-separated wallet addresses (at most 100): `trade` events only of these traders (default: every trader)",
    ),
  events: z
    .string()
    .max(200)
    .optional()
    .describe(
      "comma-separated: token_created, trade, graduated, candle (the default: these four), fees_claimed, distribution_published, reward_claimed; reorg and reset are always sent",
    ),
  interval: z.string().max(8).optional().describe("candle interval: 1m (default), 5m, 15m, 1h, 4h, 1d, 1w"),
  last_event_id: z
    .string()
    .max(100)
    .optional()
    .describe("resume after this event id (the Last-Event-ID header wins)"),
});

/**
 * `GET /api/v1/stream`: Server-Sent Events of committed, canonical indexed data —
 * `token_created`, `trade`, `graduated`, `candle` (updated candle of the subscribed interval
 * after trades) and the control events `reorg` (`{from_block, to_block, depth}`: drop what you
 * got from those blocks) and `reset` (`{reason, indexed_block}`: refetch state over REST).
 * Every event has an `id`; `Last-Event-ID` resumes (ring buffer, then a database re-read for a
 * short gap, else `reset`). Heartbeat comments every 15 s. Errors before the stream starts:
 * 400 `invalid_address` / `invalid_request` / `invalid_interval`, 429 `rate_limited` (per-IP cap
 * or process cap, `Retry-After: 5`; a slot is taken atomically when the request arrives),
 * 503 `service_unavailable` (listener unavailable).
 */
export function streamRoutes(deps: StreamRoutesDeps): FastifyPluginAsync {
  const config = deps.config ?? {};
  const maxPerIp = config.maxConnectionsPerIp ?? 10;
  const maxTotal = config.maxConnections ?? 5_000;
  const maxTokens = config.maxTokens ?? 100;
  return async (fastify) => {
    const hub = new StreamHub({
      listenerUrl: deps.listenerUrl,
      pool: deps.pool,
      ...(deps.readPosition ? { readPosition: deps.readPosition } : {}),
      logger: fastify.log,
      config,
    });
    deps.onHub?.(hub);
    const perIp = new Map<string, number>();
    let total = 0;

    if (config.eager) {
      // Fill the resume window from the start; a database not up yet only delays it (the first subscriber retries).
      fastify.addHook("onReady", async () => {
        hub.start().catch((error) => fastify.log.warn({ err: error }, "stream: listener not started yet"));
      });
    }
    fastify.addHook("preClose", async () => hub.stop());

    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      "/api/v1/stream",
      {
        // Before the schema, which drops unknown keys such as `wallets[]`.
        preValidation: async (request) => refuseArrayParams(request.query as Record<string, unknown>),
        schema: {
          tags: ["stream"],
          summary: "Live stream (Server-Sent Events)",
          description:
            "text/event-stream of token_created, trade, graduated, candle (and, when named in `events`, fees_claimed, distribution_published, reward_claimed), reorg and reset events. Resume with Last-Event-ID.",
          querystring: querySchema,
          // The answers a client may get (the OpenAPI document lists them): the stream itself, a
          // malformed filter, the per-client and per-server caps, the listener unavailable.
          response: {
            200: z.string().describe("text/event-stream (Server-Sent Events), not JSON"),
            400: errorSchema.describe("invalid_request, invalid_address or invalid_interval"),
            429: errorSchema.describe(
              "rate_limited: too many concurrent streams of this client, or on this server",
            ),
            503: errorSchema.describe("service_unavailable: listener unavailable"),
          },
        },
      },
      async (request, reply) => {
        const tokens = parseAddressFilter(request.query.tokens, maxTokens, "tokens");
        const wallets = parseAddressFilter(request.query.wallets, maxTokens, "wallets");
        const events = parseEvents(request.query.events);
        const interval = parseInterval(request.query.interval);
        const header = request.headers["last-event-id"];
        const lastEventId =
          (Array.isArray(header) ? header[0] : header)?.trim() || request.query.last_event_id || undefined;

        const ip = config.clientIp ? config.clientIp(request) : request.ip;
        const mine = perIp.get(ip) ?? 0;
        if (mine >= maxPerIp) {
          throw new AppError("rate_limited", `at most ${maxPerIp} concurrent streams per client`, {
            headers: { "retry-after": "5" },
          });
        }
        if (total >= maxTotal) {
          throw new AppError("rate_limited", `at most ${maxTotal} concurrent streams on this server`, {
            headers: { "retry-after": "5" },
          });
        }
        // The slot is taken before anything is awaited (starting an idle hub takes a while), so
        // concurrent requests of one client count each other from the first connection.
        perIp.set(ip, mine + 1);
        total += 1;
        const res = reply.raw;
        let sub: StreamSubscriber | null = null;
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          if (sub) hub.unsubscribe(sub);
          total -= 1;
          const left = (perIp.get(ip) ?? 1) - 1;
          if (left <= 0) perIp.delete(ip);
          else perIp.set(ip, left);
        };
        res.on("close", release);
        try {
          await hub.start();
        } catch (error) {
          release();
          throw new AppError("service_unavailable", "live stream unavailable", {
            cause: error,
            headers: { "retry-after": "5" },
          });
        }
        if (released) {
          // The client left while the hub was starting.
          reply.hijack();
          return;
        }
        sub = {
          res,
          ip,
          tokens,
          wallets,
          events,
          interval,
          queue: null,
          key: subscriberKey({ tokens, wallets, events, interval }),
          after: null,
          closed: false,
        };

        reply.hijack();
        const headers: Record<string, string | number | string[]> = {};
        for (const [name, value] of Object.entries(reply.getHeaders()))
          if (value !== undefined) headers[name] = value;
        headers["content-type"] = "text/event-stream; charset=utf-8";
        headers["cache-control"] = "no-cache, no-transform";
        headers["x-accel-buffering"] = "no";
        headers.connection = "keep-alive";
        if (hub.indexedBlock !== null) headers["x-indexed-block"] = hub.indexedBlock.toString();
        request.raw.socket.setTimeout(0);
        request.raw.socket.setNoDelay(true);
        res.writeHead(200, headers);
        // HEAD: the headers alone (Node sends them only with a body or the end, so a HEAD that waited
        // for events would never be answered).
        if (request.method === "HEAD") {
          res.end();
          return;
        }
        res.write(`retry: 3000\n: connected\n\n`);
        try {
          await hub.subscribe(sub, lastEventId);
        } catch (error) {
          request.log.error({ err: error }, "stream: subscribe failed");
          res.end();
        }
      },
    );
  };
}

/**
 * A comma-separated address filter (`tokens`, `wallets`): null when absent (every token / trader).
 * A value given must hold 1 to `max` addresses: an empty or blank list (`wallets=`, `wallets=,,,`)
 * is refused rather than read as "no filter", which would silently widen the stream.
 * @throws AppError `invalid_request` (empty, or more than `max`), `invalid_address` (malformed).
 */
function parseAddressFilter(value: string | undefined, max: number, field: string): Set<string> | null {
  if (value === undefined) return null;
  return new Set(parseAddressList(value, field, max));
}

/**
 * Refuses the array forms of the stream's parameters (`wallets[]=…`, `tokens[0]=…`): they are not
 * parameters of this route, and ignoring them would open an unfiltered stream.
 * @throws AppError `invalid_request` naming the parameter.
 */
function refuseArrayParams(query: Record<string, unknown>): void {
  for (const key of Object.keys(query)) {
    const bracket = key.indexOf("[");
    if (bracket <= 0) continue;
    const field = key.slice(0, bracket);
    if (!(field in querySchema.shape)) continue;
    throw new AppError("invalid_request", `${field} takes a comma-separated list, not ${field}[]`, {
      details: [{ field, reason: "array syntax is not supported: use a comma-separated list" }],
    });
  }
}

function parseEvents(value: string | undefined): Set<DataEventName> {
  if (value === undefined || value.trim() === "") return new Set(DEFAULT_DATA_EVENT_NAMES);
  const set = new Set<DataEventName>();
  for (const raw of value.split(",")) {
    const name = raw.trim();
    if (name === "" || name === "reorg" || name === "reset") continue;
    if (!(DATA_EVENT_NAMES as readonly string[]).includes(name)) {
      throw new AppError("invalid_request", `unknown event ${JSON.stringify(name.slice(0, 32))}`, {
        details: [{ field: "events", reason: `allowed: ${DATA_EVENT_NAMES.join(", ")}, reorg` }],
      });
    }
    set.add(name as DataEventName);
  }
  return set;
}

function parseInterval(value: string | undefined): CandleInterval {
  if (value === undefined || value === "") return "1m";
  if (!isCandleInterval(value)) {
    throw new AppError("invalid_interval", `interval must be one of ${CANDLE_INTERVALS.join(", ")}`, {
      details: [{ field: "interval", reason: "unsupported interval" }],
    });
  }
  return value;
}
