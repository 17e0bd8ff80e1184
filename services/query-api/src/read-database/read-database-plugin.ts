import { AppError } from "@tmi/shared/errors";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { Gauge, Registry } from "prom-client";
import type { ReadDatabase } from "./read-database.js";

/** Query parameter (or header `X-Min-Block`) asking for data at least as new as a block. */
export const MIN_BLOCK_PARAM = "min_block";
const MIN_BLOCK_HEADER = "x-min-block";

/** Dependencies of {@link readDatabasePlugin}. */
export interface ReadDatabasePluginDeps {
  readDatabase: ReadDatabase;
  /** How long a `min_block` request waits for the read database to show that block (ms). */
  minBlockWaitMs: number;
  /** Path prefix of the data routes (default `/api/v1/`). */
  prefix?: string;
  /** Registry `/metrics` exports, shared with other plugins (e.g. the response cache) [a new one]. */
  registry?: Registry;
}

function minBlockOf(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.[MIN_BLOCK_PARAM];
  if (fromQuery !== undefined) {
    // Not a parameter of the route itself: removed before the route's query schema sees it.
    delete query?.[MIN_BLOCK_PARAM];
    return Array.isArray(fromQuery) ? String(fromQuery[0]) : String(fromQuery);
  }
  const header = request.headers[MIN_BLOCK_HEADER];
  return Array.isArray(header) ? header[0] : header;
}

/**
 * Read-your-writes and the read database's health, registered on the root instance:
 *
 * - Every GET under `/api/v1/` (but the stream) accepts `min_block=<n>` (or the header
 *   `X-Min-Block: <n>`): the request waits until the read database shows block `n` (its
 *   `indexer_checkpoints` block ≥ n), at most `minBlockWaitMs`, then answers as usual; past the wait
 *   it answers 503 `not_ready` with `Retry-After: 1`. A malformed value is 400 `invalid_request`.
 *   The wait comes after routing and validation: an unknown route is 404 and a bad parameter 400 at once.
 *   Stream events carry their block in `block_number`/the event id, the value to pass.
 * - `GET /metrics` (Prometheus text; not routed by the gateway): `query_api_read_database_lag_seconds`,
 *   `query_api_read_database_lag_blocks`, `query_api_read_database_replay_paused`,
 *   `query_api_read_database_indexed_block` (measured on scrape).
 */
export function readDatabasePlugin(deps: ReadDatabasePluginDeps): FastifyPluginAsync {
  const prefix = deps.prefix ?? "/api/v1/";
  const plugin: FastifyPluginAsync = async (fastify) => {
    // Two steps: the parameter is taken off the query (and its form checked) before the route's
    // query schema sees it; the wait comes after validation, so an unknown route (404) or a bad
    // parameter (400) is answered at once instead of after the wait.
    const targets = new WeakMap<FastifyRequest, bigint>();
    fastify.addHook("preValidation", async (request) => {
      if (request.is404 || !request.url.startsWith(prefix) || request.url.startsWith("/api/v1/stream"))
        return;
      const raw = minBlockOf(request);
      if (raw === undefined) return;
      if (!/^[0-9]{1,19}$/.test(raw)) {
        throw new AppError("invalid_request", "min_block must be a block number", {
          details: [{ field: MIN_BLOCK_PARAM, reason: "must be a non-negative integer" }],
        });
      }
      targets.set(request, BigInt(raw));
    });
    fastify.addHook("preHandler", async (request) => {
      const target = targets.get(request);
      if (target === undefined) return;
      const shown = await deps.readDatabase.waitForBlock(target, deps.minBlockWaitMs);
      if (!shown) {
        throw new AppError("not_ready", `block ${target} is not readable here yet; retry shortly`, {
          headers: { "retry-after": "1" },
        });
      }
    });

    const registry = deps.registry ?? new Registry();
    const measured = async () => deps.readDatabase.lag();
    const gauge = (
      name: string,
      help: string,
      pick: (lag: Awaited<ReturnType<typeof measured>>) => number | null,
    ) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          const value = pick(await measured());
          if (value === null) this.reset();
          else this.set(value);
        },
      });
    gauge(
      "query_api_read_database_lag_seconds",
      "Seconds the read database's data is behind the primary (0 without a replica)",
      (lag) => lag.lag_seconds,
    );
    gauge(
      "query_api_read_database_lag_blocks",
      "Indexed blocks the read database is behind the primary",
      (lag) => lag.lag_blocks,
    );
    gauge("query_api_read_database_replay_paused", "1 while WAL replay is paused on the replica", (lag) =>
      lag.replay_paused ? 1 : 0,
    );
    gauge(
      "query_api_read_database_indexed_block",
      "Last indexed block the read database shows",
      (lag) => lag.indexed_block,
    );
    fastify.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
      reply.header("content-type", registry.contentType).header("cache-control", "no-store");
      return registry.metrics();
    });
  };
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for("skip-override")] = true;
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for("fastify.display-name")] = "tmi-read-database";
  return plugin;
}
