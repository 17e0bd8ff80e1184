// The webhook routes in query-api's OpenAPI document (the one the gateway serves at
// /api/v1/openapi.json and the typed client is generated from). metadata-api serves them (the
// gateway routes /api/v1/webhooks there); their schemas are the shared wire contract
// (@tmi/shared/webhooks) that metadata-api validates with, so the document cannot drift from it.
import { AppError } from "@tmi/shared/errors";
import { WEBHOOK_ROUTES } from "@tmi/shared/webhooks";
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { typedRoutes } from "../common/route-helpers.js";
import { errorSchema } from "../common/wire-schemas.js";

/**
 * Host constraint of the documented routes: a name no request carries, so query-api itself never
 * answers them (the router has no match: 404 as for any unknown path).
 */
export const WEBHOOK_DOC_HOST = "webhooks.metadata-api.invalid";

/** OpenAPI security of the webhook routes: the API key, as a bearer token or `X-API-Key`. */
export const WEBHOOK_SECURITY_SCHEMES = {
  apiKey: { type: "http", scheme: "bearer", description: "API key (`pnpm api-keys create`)" },
  apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "the same key" },
} as const;

/**
 * Registers every route of {@link WEBHOOK_ROUTES} for the OpenAPI document only (tag `webhooks`,
 * with the API key security and the error answers metadata-api gives: 400 `invalid_request`, 401
 * `invalid_api_key`, 404 `not_found`, 503 `service_unavailable`).
 */
export function webhookDocRoutes(): FastifyPluginAsync {
  return async (fastify) => {
    const app = typedRoutes(fastify);
    for (const route of WEBHOOK_ROUTES) {
      app.route({
        method: route.method,
        url: route.url,
        constraints: { host: WEBHOOK_DOC_HOST },
        schema: {
          tags: ["webhooks"],
          summary: route.summary,
          security: [{ apiKey: [] }, { apiKeyHeader: [] }],
          ...(route.params ? { params: route.params } : {}),
          ...(route.querystring ? { querystring: route.querystring } : {}),
          ...(route.body ? { body: route.body } : {}),
          response: {
            [route.status]: route.response ?? z.null().describe("no content"),
            400: errorSchema.describe("invalid_request (the message names the field)"),
            401: errorSchema.describe("invalid_api_key: no key, or an unknown or revoked one"),
            404: errorSchema.describe("not_found: no such webhook of this key"),
            503: errorSchema.describe("service_unavailable"),
          },
        },
        handler: async () => {
          throw new AppError("not_found", "webhooks are served by metadata-api through the gateway");
        },
      });
    }
  };
}
