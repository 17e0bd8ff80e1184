import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import type { Logger } from "pino";
import type { Registry } from "prom-client";

/** What the HTTP side needs from the running indexer. */
export interface IndexerAppDeps {
  logger: Logger;
  registry: Registry;
  /**
   * Readiness: resolves when this instance holds the writer lock and is within
   * `READY_MAX_LAG_BLOCKS` of the head; throws with the reason otherwise.
   */
  readiness: () => Promise<void>;
}

/**
 * The indexer's HTTP surface (no side effects): `/health` (liveness, no I/O), `/readyz`
 * (caught up within the allowed lag), `/metrics` (Prometheus text format).
 */
export function buildApp(deps: IndexerAppDeps): HttpApp {
  const app = createHttpApp({ service: "indexer", logger: deps.logger, readiness: deps.readiness });
  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", deps.registry.contentType);
    reply.header("cache-control", "no-store");
    return deps.registry.metrics();
  });
  return app;
}
