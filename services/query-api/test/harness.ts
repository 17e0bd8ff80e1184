// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Shared harness of query-api's integration tests: a fresh migrated database, an admin pool
// (to fill it), the app over a read-only pool, and a validator of responses against the
// served OpenAPI document.
import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import { Ajv2020 } from "ajv/dist/2020.js";
import pg from "pg";
import { buildApp } from "../src/app.js";
import type { QueryApiConfig } from "../src/config.js";
import { createReadPool } from "../src/db.js";

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

/** Starts a harness over a fresh database (call `close` in `afterAll`). */
export async function createHarness(config: Partial<QueryApiConfig> = {}): Promise<Harness> {
  const database = await createTestDatabase();
  const admin = new pg.Pool({ connectionString: database.url, max: 3 });
  admin.on("error", () => {}); // connections are terminated when the database is dropped
  const pool = createReadPool({ url: database.url, max: 5 });
  const app = await buildApp({
    pool,
    config: { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: "*", ...config },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
  const doc = (await app.inject({ url: "/api/v1/openapi.json" })).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, "openapi");
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
    validate(path, status, body) {
      const pointer = `openapi#/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/get/responses/${status}/content/application~1json/schema`;
      const validator = ajv.getSchema(pointer);
      if (!validator) throw new Error(`no OpenAPI schema for GET ${path} ${status}`);
      if (!validator(body)) {
        throw new Error(
          `response of GET ${path} (${status}) does not match the OpenAPI document: ${ajv.errorsText(validator.errors)}`,
        );
      }
    },
    async close() {
      await app.close();
      await pool.end();
      await admin.end();
      await database.drop();
    },
  };
}
