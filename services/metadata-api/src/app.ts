import multipart from "@fastify/multipart";
import type { Db } from "@tmi/db";
import { AppError, isAppError } from "@tmi/shared/errors";
import { createHttpApp, errorHandler, type HttpApp } from "@tmi/shared/http";
import type { Logger } from "pino";
import { databaseUnavailable } from "./database-errors.js";
import type { ReceiptReader } from "./finalize/finalize-service.js";
import type { ImageFetcher } from "./images/image-fetcher.js";
import type { JobProducer } from "./jobs/job-catalog.js";
import { DEFAULT_REWARD_TREE_MAX_LEAVES, registerRewardTreeRoutes } from "./rewards/reward-tree-routes.js";
import { registerObjectRoutes } from "./routes/object-routes.js";
import { registerTokenMetadataRoutes } from "./routes/token-metadata-routes.js";
import type { ObjectStorage } from "./storage/object-storage.js";
import { registerWebhookRoutes, type WebhookRoutesDeps } from "./webhooks/webhook-routes.js";

/** Everything the metadata-api HTTP app needs, built by `main.ts` (or a test). */
export interface MetadataAppDeps {
  logger: Logger;
  /** Read-write Prisma client (`@tmi/db` `createDb`). */
  db: Db;
  storage: ObjectStorage;
  fetcher: ImageFetcher;
  receipts: ReceiptReader;
  jobs: JobProducer;
  chainId: number;
  /** The V3 factory (lowercase) whose launch events count at finalize. */
  factory: `0x${string}`;
  spoolDir: string;
  imageMaxBytes: number;
  imageMaxPixels: number;
  trustProxy?: boolean | string | string[];
  /** The webhook routes (docs/api.md "Webhooks"); absent: not served. */
  webhooks?: WebhookRoutesDeps;
  /** Most leaves of one reward tree upload (`REWARD_TREE_MAX_LEAVES`); default 10,000. */
  rewardTreeMaxLeaves?: number;
}

/**
 * Builds the metadata-api Fastify app (no side effects; tests call `app.inject()`):
 * `POST /api/v1/token-metadata`, `POST /api/v1/token-metadata/:draft/finalize`, `GET /objects/*`,
 * `/api/v1/webhooks` (when `webhooks` is given), `POST /api/v1/rewards/distributions/:id/tree`, `/health` and `/readyz` (database ping). While the database is unreachable, every route that
 * needs it answers 503 `service_unavailable` with `Retry-After` (see `database-errors.ts`).
 */
export async function buildApp(deps: MetadataAppDeps): Promise<HttpApp> {
  const app = createHttpApp({
    service: "metadata-api",
    logger: deps.logger,
    trustProxy: deps.trustProxy ?? false,
    bodyLimit: 64 * 1024,
    readiness: async () => {
      await deps.db.$queryRaw`SELECT 1`;
    },
  });
  // The routes live in one encapsulated scope whose error handler first maps "database
  // unreachable" errors to 503, then answers like every other error.
  await app.register(async (scope) => {
    scope.setErrorHandler((error, request, reply) =>
      errorHandler(isAppError(error) ? error : (databaseUnavailable(error) ?? error), request, reply),
    );
    await registerRoutes(scope as unknown as HttpApp, deps);
  });
  return app;
}

async function registerRoutes(app: HttpApp, deps: MetadataAppDeps): Promise<void> {
  await app.register(multipart, {
    limits: { fileSize: deps.imageMaxBytes, fieldSize: 16 * 1024, files: 4, fields: 32, parts: 40 },
    throwFileSizeLimit: false,
  });
  // Any other content type on the create route answers 400 invalid_request from the handler
  // (instead of Fastify's 415 before it), without reading the body.
  app.addContentTypeParser("*", (request, _payload, done) => {
    if (request.url.split("?")[0]?.replace(/\/$/, "") === "/api/v1/token-metadata") done(null, undefined);
    else done(new AppError("invalid_request", "unsupported content type; send application/json"), undefined);
  });
  registerTokenMetadataRoutes(app, { ...deps });
  registerObjectRoutes(app, deps.storage);
  if (deps.webhooks) registerWebhookRoutes(app, deps.webhooks);
  registerRewardTreeRoutes(app, {
    db: deps.db,
    maxLeaves: deps.rewardTreeMaxLeaves ?? DEFAULT_REWARD_TREE_MAX_LEAVES,
  });
}
