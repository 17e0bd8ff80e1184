import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { Counter, Gauge, type Registry } from "prom-client";
import {
  INDEXED_AT_HEADER,
  INDEXED_BLOCK_HEADER,
  INDEXED_HASH_HEADER,
} from "../freshness/freshness-plugin.js";
import { MIN_BLOCK_PARAM } from "../read-database/read-database-plugin.js";
import type { CachePosition } from "./cache-position.js";

/** Response header telling whether an answer came from the response cache (`hit`) or was computed (`miss`). */
export const CACHE_HEADER = "x-cache";

/** Settings of the response cache (`QUERY_CACHE_*`). */
export interface ResponseCacheSettings {
  /** Off: every request is computed (`QUERY_CACHE_ENABLED`). */
  enabled: boolean;
  /** Bytes of cached bodies (and keys) held at most (`QUERY_CACHE_MAX_MB` × 2^20). */
  maxBytes: number;
  /**
   * Longest an answer is served, from when its computation began (`QUERY_CACHE_MAX_AGE_MS`): the
   * bound on how long token metadata bound by metadata-api (written without a new indexed block)
   * can stay unseen.
   */
  maxAgeMs: number;
}

/** Dependencies of {@link responseCachePlugin}. */
export interface ResponseCacheDeps {
  settings: Omit<ResponseCacheSettings, "enabled">;
  /** The current {@link CachePosition}, read after the call (`createFreshReader`); null before anything is indexed. */
  position: () => Promise<CachePosition | null>;
  /** Where the hit/miss counters go (`/metrics`), if anywhere. */
  registry?: Registry;
  /** Path prefix of the data routes (default `/api/v1/`). */
  prefix?: string;
}

/** Paths under the prefix never cached: the live stream, the status (it reports lag and time) and the OpenAPI document. */
const UNCACHED = ["/api/v1/stream", "/api/v1/status", "/api/v1/openapi.json"];

/**
 * Response headers kept with a cached body (freshness headers come from the key). `ETag` is kept
 * too: set on a hit, the ETag plugin neither hashes the body again nor differs from the miss's.
 */
const KEPT_HEADERS = ["content-type", "cache-control", "etag"];

interface Answer {
  /** The body encoded once (UTF-8): a hit writes these bytes, no string is encoded again per request. */
  body: Buffer;
  headers: Record<string, string>;
  /** `performance.now()` when the position of the key was asked for (before the computation). */
  startedAt: number;
}

interface RequestState {
  key: string;
  position: CachePosition;
  startedAt: number;
  hit: boolean;
  /** Set on the one request computing the key's answer; resolved when it is stored (or not). */
  flight?: () => void;
}

/**
 * The path with its query parameters sorted (by name, then value; `min_block` removed: the answer
 * is keyed by the block it was computed at, which is at least the one asked for).
 */
export function canonicalUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark === -1) return url;
  const params = [...new URLSearchParams(url.slice(mark + 1))].filter(([name]) => name !== MIN_BLOCK_PARAM);
  params.sort(([a, av], [b, bv]) => (a === b ? compare(av, bv) : compare(a, b)));
  const query = new URLSearchParams(params).toString();
  return query === "" ? url.slice(0, mark) : `${url.slice(0, mark)}?${query}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The response cache of the data routes, registered on the root instance after the freshness
 * and read-database plugins (its `preHandler` runs after the `min_block` wait, its `onSend` after
 * the freshness headers):
 *
 * - A GET under `/api/v1/` (but the stream, status and OpenAPI document) is keyed by its
 *   {@link canonicalUrl} and the {@link CachePosition} read after it arrived (indexed block number
 *   and hash, exclusions digest). A kept answer of that key younger than `maxAgeMs` is sent
 *   (`X-Cache: hit`); else one request computes it (`X-Cache: miss`) while identical ones wait
 *   for it (single flight), then take it or, when it was not kept, compute their own.
 * - Kept: 200 answers with a string body (stored UTF-8 encoded, with its `ETag`) whose position, read again after the body was built,
 *   is still the key's (no commit, reorg or exclusion change happened while the statements
 *   ran, so every statement read the key's block). Bodies are held in an LRU bounded by `maxBytes`.
 * - `X-Indexed-Block`/`X-Indexed-At`/`X-Indexed-Hash` of these answers are the key's block.
 * - Metrics (with a registry): `query_api_response_cache_requests_total{result="hit|miss"}`,
 *   `query_api_response_cache_bytes`.
 */
export function responseCachePlugin(deps: ResponseCacheDeps): FastifyPluginAsync {
  const prefix = deps.prefix ?? "/api/v1/";
  const { maxBytes, maxAgeMs } = deps.settings;
  const answers = new LRUCache<string, Answer>({
    maxSize: maxBytes,
    sizeCalculation: (answer, key) => Math.max(1, answer.body.length + key.length * 2 + 200),
    ttl: maxAgeMs,
  });
  const flights = new Map<string, Promise<void>>();
  const states = new WeakMap<FastifyRequest, RequestState>();
  const registers = deps.registry ? [deps.registry] : [];
  const requests = new Counter({
    name: "query_api_response_cache_requests_total",
    help: "Cacheable data requests by result: hit (sent from the response cache) or miss (computed)",
    labelNames: ["result"],
    registers,
  });
  new Gauge({
    name: "query_api_response_cache_bytes",
    help: "Approximate bytes held by the response cache",
    registers,
    collect() {
      this.set(answers.calculatedSize);
    },
  });

  const fresh = (answer: Answer | undefined): answer is Answer =>
    answer !== undefined && performance.now() - answer.startedAt < maxAgeMs;

  const sendHit = (reply: FastifyReply, state: RequestState, answer: Answer) => {
    state.hit = true;
    requests.inc({ result: "hit" });
    for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
    reply.header(CACHE_HEADER, "hit");
    return reply.send(answer.body);
  };

  const plugin: FastifyPluginAsync = async (fastify) => {
    fastify.addHook("preHandler", async (request, reply) => {
      if (request.method !== "GET" || request.is404 || !request.url.startsWith(prefix)) return;
      if (UNCACHED.some((path) => request.url.startsWith(path))) return;
      const startedAt = performance.now();
      let position: CachePosition | null;
      try {
        position = await deps.position();
      } catch (error) {
        request.log.warn({ err: error }, "response cache: position unavailable, answering uncached");
        return;
      }
      if (position === null) return;
      const key = `${canonicalUrl(request.url)}\n${position.key}`;
      const state: RequestState = { key, position, startedAt, hit: false };
      states.set(request, state);
      const kept = answers.get(key);
      if (fresh(kept)) return sendHit(reply, state, kept);
      const flight = flights.get(key);
      if (flight !== undefined) {
        await flight;
        const shared = answers.get(key);
        if (fresh(shared)) return sendHit(reply, state, shared);
        return; // the leader's answer was not kept (an error, or a block committed meanwhile): compute
      }
      let done: () => void = () => {};
      flights.set(
        key,
        new Promise<void>((resolve) => {
          done = resolve;
        }),
      );
      state.flight = () => {
        flights.delete(key);
        done();
      };
    });

    fastify.addHook("onSend", async (request, reply, payload) => {
      const state = states.get(request);
      if (state === undefined) return payload;
      reply.header(INDEXED_BLOCK_HEADER, state.position.blockNumber.toString());
      reply.header(INDEXED_AT_HEADER, state.position.blockTimestamp.toString());
      reply.header(INDEXED_HASH_HEADER, state.position.blockHash);
      if (state.hit) return payload;
      reply.header(CACHE_HEADER, "miss");
      requests.inc({ result: "miss" });
      const finish = state.flight;
      if (finish === undefined) return payload;
      state.flight = undefined;
      try {
        if (reply.statusCode === 200 && typeof payload === "string") {
          // Stored only if no commit moved the position while the answer's statements ran.
          const after = await deps.position().catch(() => null);
          if (after?.key === state.position.key) {
            const headers: Record<string, string> = {};
            for (const name of KEPT_HEADERS) {
              const value = reply.getHeader(name);
              if (value !== undefined) headers[name] = String(value);
            }
            answers.set(state.key, { body: Buffer.from(payload), headers, startedAt: state.startedAt });
          }
        }
      } finally {
        finish();
      }
      return payload;
    });

    // A request that never reaches onSend (client gone) must not leave its followers waiting.
    fastify.addHook("onResponse", async (request) => {
      const state = states.get(request);
      if (state?.flight) {
        const finish = state.flight;
        state.flight = undefined;
        finish();
      }
    });
  };
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for("skip-override")] = true;
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for("fastify.display-name")] = "tmi-response-cache";
  return plugin;
}
