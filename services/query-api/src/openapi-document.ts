import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import { buildApp, OPENAPI_PATH } from "./app.js";
import { createReadPool } from "./db.js";
import { streamRoutes } from "./stream/stream-routes.js";

/** A database URL nothing listens on: the app is built and asked for its document, never queried. */
const UNUSED_DATABASE_URL = "postgresql://openapi@127.0.0.1:9/openapi";

/**
 * The OpenAPI 3.1 document query-api serves at `/api/v1/openapi.json`, built from the app with every
 * route `main.ts` registers (the live stream included), without a database, network or settings:
 * pools are created but never connect (no request is served). Every route a resource plugin adds
 * appears here by itself. Source of `packages/client`'s generated types.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const pool = createReadPool({ url: UNUSED_DATABASE_URL, max: 1 });
  const app = await buildApp({
    pool,
    config: { cursorSecret: "openapi-document-only", corsOrigins: "*" },
    logger: createLogger({ service: "query-api-openapi", level: "silent" }),
    plugins: [streamRoutes({ listenerUrl: UNUSED_DATABASE_URL })],
  });
  try {
    await app.ready();
    const response = await app.inject({ method: "GET", url: OPENAPI_PATH });
    if (response.statusCode !== 200) throw new Error(`${OPENAPI_PATH} answered ${response.statusCode}`);
    return response.json();
  } finally {
    await (app as unknown as FastifyInstance).close();
    await pool.end();
  }
}
