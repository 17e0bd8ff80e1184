import ports from "./service-ports.json" with { type: "json" };

/** A service that listens on a port of its own. */
export type PortedService = "gateway" | "query-api" | "metadata-api" | "oracle-price" | "indexer";

/**
 * Default listening port of each service (its `PORT`, the gateway's `GATEWAY_PORT`), and so the
 * gateway's default upstreams. Defined once, in `service-ports.json`: `scripts/start/settings.mjs`
 * reads the same file with `fs`, as it runs before `pnpm install` (Node built-ins only).
 */
export const SERVICE_PORTS: Readonly<Record<PortedService, number>> = ports;
