import { type CursorCodec, type CursorValue, parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { invalidCursor } from "./invalid-cursor.js";
import { addressParams, cursorParam, limitParam, orderParam } from "./params.js";
import { errorSchema } from "./wire-schemas.js";

/**
 * A resource folder's routes: a factory of one fastify plugin from its dependencies `D` (the
 * app's route context, `src/route-context.ts`, or the part of it a folder needs, e.g. `status/`).
 */
export type RoutesPlugin<D> = (ctx: D) => FastifyPluginAsync;

/**
 * The routes plugin of a resource folder of data routes, stated once: `declare` gets the
 * folder's {@link DataRoutes} (under OpenAPI tag `tag`) and the plugin's dependencies `C`
 * (bound to the app's route context in `src/route-context.ts`).
 *
 * @example
 * export const tradeRoutes = dataRoutes("tokens", (routes, ctx) => {
 *   routes.get("/api/v1/trades", spec, async (query) => body);
 * });
 */
export function dataRoutesOf<C>(tag: string, declare: (routes: DataRoutes, ctx: C) => void): RoutesPlugin<C> {
  return (ctx) => async (fastify) => declare(new DataRoutes(fastify, tag), ctx);
}

/** One `GET /api/v1/tokens/:address/<name>` route of a {@link tokenRouteOf} folder. */
export interface TokenRouteSpec<Q extends z.ZodType, C> extends DataRouteSpec<Q> {
  /**
   * Reads the body for the token `address` (lower-cased) and the validated query: an object the
   * 200 schema serializes or a {@link JsonText}; `null` when no canonical token has that address
   * (404 `not_found`); or throws an `AppError`.
   */
  read: (ctx: C, address: `0x${string}`, query: z.output<Q>) => Promise<unknown>;
}

/**
 * The routes plugin of a sub-folder of `tokens/` whose one route is a part of a token,
 * `GET /api/v1/tokens/:address/<name>` under the `tokens` tag (activity, chart, holders).
 * A malformed address is a 400 `invalid_address` before `read` runs.
 */
export function tokenRouteOf<Q extends z.ZodType, C>(
  name: string,
  spec: TokenRouteSpec<Q, C>,
): RoutesPlugin<C> {
  return dataRoutesOf<C>("tokens", (routes, ctx) =>
    routes.byAddress(`/api/v1/tokens/:address/${name}`, spec, async (address, query) => {
      const body = await spec.read(ctx, address, query);
      if (body === null) throw noCanonicalToken(address);
      return body;
    }),
  );
}

/** 404 `not_found` of a token address that no canonical token has. */
export function noCanonicalToken(address: string): AppError {
  return new AppError("not_found", `no canonical token ${address}`);
}

/** The zod-typed instance a routes plugin declares its routes on. */
export function typedRoutes(fastify: FastifyInstance): HttpApp {
  return fastify.withTypeProvider<ZodTypeProvider>() as unknown as HttpApp;
}

/** OpenAPI texts and zod schemas of one data route (see {@link DataRoutes}). */
export interface DataRouteSpec<Q extends z.ZodType> {
  summary: string;
  description?: string;
  /** The query string (absent: the route takes none). */
  query?: Q;
  /** The 200 body (the error bodies are {@link errorResponses}). */
  ok: z.ZodType;
  /** OpenAPI tag, when not the folder's. */
  tag?: string;
}

/**
 * The data routes (`GET`, JSON, data `Cache-Control`) of one resource folder, declared on its
 * plugin's instance under the folder's OpenAPI tag. Each route documents the shared
 * {@link errorResponses}; its handler returns the body (an object the 200 schema serializes, or
 * a {@link JsonText}) or throws an `AppError`.
 */
export class DataRoutes {
  private readonly app: HttpApp;

  constructor(
    fastify: FastifyInstance,
    private readonly tag: string,
  ) {
    this.app = typedRoutes(fastify);
  }

  /** `GET url` without path parameters: `handle` gets the validated query. */
  get<Q extends z.ZodType>(
    url: string,
    spec: DataRouteSpec<Q>,
    handle: (query: z.output<Q>) => Promise<unknown>,
  ) {
    this.declare(url, spec, false, (request) => handle(request.query as z.output<Q>));
  }

  /**
   * `GET url` whose path holds `:address`: `handle` gets it lower-cased and the validated query
   * (a malformed address: 400 `invalid_address`, before `handle` runs).
   */
  byAddress<Q extends z.ZodType>(
    url: string,
    spec: DataRouteSpec<Q>,
    handle: (address: `0x${string}`, query: z.output<Q>) => Promise<unknown>,
  ) {
    this.declare(url, spec, true, (request) =>
      handle(
        parseAddress((request.params as { address: string }).address, "address"),
        request.query as z.output<Q>,
      ),
    );
  }

  private declare(
    url: string,
    spec: DataRouteSpec<z.ZodType>,
    addressed: boolean,
    run: (request: { params: unknown; query: unknown }) => Promise<unknown>,
  ): void {
    const schema = {
      tags: [spec.tag ?? this.tag],
      summary: spec.summary,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      ...(addressed ? { params: addressParams } : {}),
      ...(spec.query === undefined ? {} : { querystring: spec.query }),
      response: { 200: spec.ok, ...errorResponses },
    };
    this.app.get(url, { schema }, async (request, reply) => {
      const body = await run(request);
      cacheData(reply);
      return body as never;
    });
  }
}

/** `Cache-Control` of data responses: short shared caching, the data moves with every block. */
export const DATA_CACHE_CONTROL = "public, max-age=2";

/** Sets the data `Cache-Control` header (errors get `no-store` from the shared error handler). */
export function cacheData(reply: FastifyReply): void {
  reply.header("cache-control", DATA_CACHE_CONTROL);
}

/** Error responses documented on every data route. */
export const errorResponses = {
  400: errorSchema.describe("invalid_request, invalid_address or invalid_interval"),
  401: errorSchema.describe(
    "invalid_api_key (from the gateway: the request's API key is unknown or revoked)",
  ),
  404: errorSchema.describe("not_found"),
  500: errorSchema.describe("internal_error"),
};

/**
 * A response body that is already JSON text (built by PostgreSQL or assembled from such
 * parts); the app's serializer sends it as is.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A page from rows that carry their item as JSON text (fetched with `take = limit + 1`): the
 * first `limit` items joined into `{"items":[...]}` plus `next_cursor` when a further row exists.
 * With `wrap`, the items array and cursor go into a larger object (the creator profile).
 */
export function jsonPage<R>(
  rows: readonly R[],
  limit: number,
  item: (row: R) => string,
  position: (row: R) => CursorValue[],
  cursors: CursorCodec,
  route: string,
): { items: string; nextCursor: string | undefined } {
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  const nextCursor =
    rows.length > limit && last !== undefined ? cursors.encode(route, position(last)) : undefined;
  return { items: `[${shown.map(item).join(",")}]`, nextCursor };
}

/** `{"items":[...],"next_cursor"?:...}` of a {@link jsonPage}. */
export function jsonPageBody(page: { items: string; nextCursor: string | undefined }): JsonText {
  const cursor = page.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(page.nextCursor)}`;
  return new JsonText(`{"items":${page.items}${cursor}}`);
}

/** Decodes an optional cursor for `route` as (bigint, int) — the newest-first token order. */
export function decodeNewest(
  cursors: CursorCodec,
  route: string,
  cursor: string | undefined,
): [bigint, number] | null {
  if (cursor === undefined) return null;
  const [block, logIndex] = cursors.decode(route, cursor, 2);
  if (typeof block !== "bigint" || typeof logIndex !== "number") throw invalidCursor();
  return [block, logIndex];
}

/** The order of trades and activity pages, as their route descriptions state it. */
export const EVENT_PAGE_ORDER =
  "Ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first).";

/** `limit`, `cursor` and `order` of trades and activity pages. */
export const eventPageQuery = z.object({
  limit: limitParam(1, 100, 20),
  cursor: cursorParam,
  order: orderParam,
});
