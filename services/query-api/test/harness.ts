// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Shared harness of query-api's integration tests: a fresh migrated database, an admin pool
// (to fill it), the app over a read-only pool, and a validator of responses against the
// served OpenAPI document; or the same app over a devnet the real indexer follows.
import { type Devnet, startDevnet } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import {
  createTestDatabase,
  devnetIndexerOptions,
  type IndexerProcess,
  indexToHead,
  type TestDatabase,
} from "@tmi/testkit";
import { Ajv2020 } from "ajv/dist/2020.js";
import pg from "pg";
import { buildApp } from "../src/app.js";
import type { QueryApiConfig } from "../src/config.js";
import { createReadPool } from "../src/db.js";

/** Cursor secret of the test apps. */
export const TEST_CURSOR_SECRET = "query-api-test-cursor-secret-0123456789";

export interface Harness {
  database: TestDatabase;
  /** Writable pool on the test database (fixtures, exclusions). */
  admin: pg.Pool;
  /** The read-only pool the app uses. */
  pool: pg.Pool;
  app: Awaited<ReturnType<typeof buildApp>>;
  /** GET through `app.inject`, returning status, headers and parsed body. */
  get(
    url: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Record<string, unknown>; body: any }>;
  /** Asserts `body` matches the OpenAPI response schema of `path` (template path) and `status`. */
  validate(path: string, status: number, body: unknown): void;
  close(): Promise<void>;
}

/** Starts a harness over a fresh database (call `close` in `afterAll`); the app's pool holds `poolMax` [5] connections. */
export async function createHarness(
  config: Partial<QueryApiConfig> = {},
  options: { poolMax?: number } = {},
): Promise<Harness> {
  const database = await createTestDatabase();
  const admin = new pg.Pool({ connectionString: database.url, max: 3 });
  admin.on("error", () => {}); // connections are terminated when the database is dropped
  const pool = createReadPool({ url: database.url, max: options.poolMax ?? 5 });
  const app = await buildApp({
    pool,
    config: { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: "*", ...config },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
  const validate = await openApiValidator(app);
  const get: Harness["get"] = async (url, headers) => {
    const response = await app.inject({ method: "GET", url, headers: headers ?? {} });
    let body: unknown = response.body;
    if (
      (response.headers["content-type"] ?? "").toString().startsWith("application/json") &&
      response.body !== ""
    ) {
      body = response.json();
    }
    return { status: response.statusCode, headers: response.headers, body };
  };
  return {
    database,
    admin,
    pool,
    app,
    get,
    validate,
    async close() {
      await app.close();
      await pool.end();
      await admin.end();
      await database.drop();
    },
  };
}

/**
 * The validator of response bodies against the OpenAPI document `app` serves
 * (`/api/v1/openapi.json`): `validate(path, status, body)` throws when `body` does not match the
 * response schema of `GET path` (template path, e.g. `/api/v1/tokens/{address}`) and `status`,
 * or when the document has no such schema.
 */
export async function openApiValidator(
  app: Pick<QueryApiApp, "inject">,
): Promise<(path: string, status: number, body: unknown) => void> {
  const doc = (await app.inject({ url: "/api/v1/openapi.json" })).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, "openapi");
  return (path, status, body) => {
    const pointer = `openapi#/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/get/responses/${status}/content/application~1json/schema`;
    const validator = ajv.getSchema(pointer);
    if (!validator) throw new Error(`no OpenAPI schema for GET ${path} ${status}`);
    if (!validator(body)) {
      throw new Error(
        `response of GET ${path} (${status}) does not match the OpenAPI document: ${ajv.errorsText(validator.errors)}`,
      );
    }
  };
}

/**
 * JSON GETs of the app `app()` returns (read at each call: tests assign it in `beforeAll`): `get`
 * answers the parsed body and throws unless the status is 200; `all` follows `next_cursor` over
 * every page of a paged route (2 items a page) and answers the items in order.
 */
export function jsonReader(app: () => Pick<QueryApiApp, "inject">): {
  get(url: string): Promise<any>;
  all(url: string): Promise<any[]>;
} {
  const get = async (url: string) => {
    const res = await app().inject({ url });
    if (res.statusCode !== 200) throw new Error(`${url}: expected 200, got ${res.statusCode}: ${res.body}`);
    return res.json();
  };
  const all = async (url: string) => {
    const items: any[] = [];
    let cursor: string | undefined;
    do {
      const sep = url.includes("?") ? "&" : "?";
      const page = await get(`${url}${sep}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      items.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    return items;
  };
  return { get, all };
}

/** The query-api app of {@link createHarness} and the devnet tests (`buildApp`). */
export type QueryApiApp = Awaited<ReturnType<typeof buildApp>>;

/** What {@link startIndexedDevnetApp} started; `stop` it in `afterAll`. */
export interface IndexedDevnetApp<A> {
  devnet: Devnet;
  database: TestDatabase;
  /** The real indexer, still following the devnet (new transactions get indexed). */
  indexer: IndexerProcess;
  /** Read pool on `database` (max 4 connections) that the app reads through. */
  reader: pg.Pool;
  app: A;
  /** Closes the app and the reader, stops the indexer and the devnet, drops the database. */
  stop(): Promise<void>;
}

/** Options of {@link startIndexedDevnetApp}. */
export interface IndexedDevnetAppOptions<A> {
  /** anvil chain id (default 31337; 8453 puts WETH and Uniswap at Base's addresses). */
  chainId?: number;
  /** Also index the devnet's ETH/USD feed (`eth_usd_answers`). */
  ethUsdFeed?: boolean;
  /** Transactions to make before the indexer starts (they are indexed before this resolves). */
  beforeIndex?: (devnet: Devnet) => Promise<void>;
  /**
   * Builds the app over the reader (and the database, e.g. for a listener's own connection)
   * [query-api's `buildApp`, cursor secret {@link TEST_CURSOR_SECRET}].
   */
  app?: (reader: pg.Pool, database: TestDatabase) => Promise<A>;
}

/**
 * Starts an automine devnet with the platform's contracts, a fresh migrated database, runs
 * `beforeIndex` on the chain, starts the real indexer (`@tmi/testkit` `indexToHead`: resolves once
 * it has committed the chain's head, then keeps following), a read pool, and the app over it.
 * When a step fails, what was started is stopped again before the error is rethrown.
 *
 * @example
 * let env: IndexedDevnetApp<QueryApiApp>;
 * beforeAll(async () => {
 *   env = await startIndexedDevnetApp({ beforeIndex: async (devnet) => launchTokens(devnet) });
 * }, 240_000);
 * afterAll(() => env?.stop());
 */
export async function startIndexedDevnetApp<A extends { close(): Promise<unknown> } = QueryApiApp>(
  options: IndexedDevnetAppOptions<A> = {},
): Promise<IndexedDevnetApp<A>> {
  const started: Partial<Omit<IndexedDevnetApp<A>, "stop">> = {};
  const stop = async () => {
    await started.app?.close();
    await started.reader?.end();
    await started.indexer?.stop();
    await started.devnet?.stop();
    await started.database?.drop();
  };
  try {
    const devnet = await startDevnet({
      port: 0,
      blockTime: "automine",
      ...(options.chainId === undefined ? {} : { chainId: options.chainId }),
    });
    started.devnet = devnet;
    const database = await createTestDatabase();
    started.database = database;
    await options.beforeIndex?.(devnet);
    const ethUsdFeed = options.ethUsdFeed ?? false;
    const indexer = await indexToHead(devnetIndexerOptions(devnet, database.url, { ethUsdFeed }));
    started.indexer = indexer;
    const reader = createReadPool({ url: database.url, max: 4 });
    started.reader = reader;
    const app = await (options.app ?? defaultApp)(reader, database);
    started.app = app;
    return { devnet, database, indexer, reader, app, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** query-api's app over `reader` as the devnet tests use it (any origin, silent logs). */
async function defaultApp<A>(reader: pg.Pool): Promise<A> {
  const app = await buildApp({
    pool: reader,
    config: { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: "*" },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
  return app as A;
}
