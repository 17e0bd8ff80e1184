// The metadata worker's HTTP surface, served when WORKER_METRICS_PORT is set (docs/operations.md
// "Webhook dispatcher"): `/health`, `/readyz` (no checks beyond the process) and `/metrics`.
import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import type { Logger } from "@tmi/shared/logger";
import type { Registry } from "prom-client";

/** Builds the worker's app (no side effects: tests call `app.inject()`); `/metrics` is `registry` in Prometheus text format. */
export function buildWorkerApp(deps: { logger: Logger; registry: Registry }): HttpApp {
  const app = createHttpApp({ service: "metadata-worker", logger: deps.logger });
  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", deps.registry.contentType).header("cache-control", "no-store");
    return deps.registry.metrics();
  });
  return app;
}
