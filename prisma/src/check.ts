import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getDMMF } from "@prisma/get-dmmf";
import pg from "pg";
import {
  compareSchemas,
  type DmmfDatamodel,
  expectedSchema,
  readDatabaseSchema,
  type SchemaShape,
} from "./drift.js";
import {
  DEFAULT_DATABASE_URL,
  MIGRATION_CHECKSUMS_TABLE,
  MIGRATIONS_TABLE,
  migrate,
  quoteIdent,
  withDatabase,
} from "./migrate.js";

/** Absolute path of `prisma/schema.prisma`. */
export const SCHEMA_PATH = fileURLToPath(new URL("../schema.prisma", import.meta.url));

/**
 * Parses a Prisma schema with Prisma's own WebAssembly schema tooling (`@prisma/get-dmmf`,
 * no native engine) and returns the database shape it declares.
 * @throws with Prisma's validation message when the schema is invalid.
 */
export function schemaShapeFromPrisma(schemaText: string): SchemaShape {
  const result = getDMMF({ datamodel: schemaText });
  if ("type" in result && (result.type === "wasm-error" || result.type === "parse-json")) {
    throw new Error(`schema.prisma is invalid: ${result.reason}\n${result.error.message}`);
  }
  const document = result as { datamodel: DmmfDatamodel };
  return expectedSchema(document.datamodel);
}

/** Result of {@link checkSchemaDrift}. */
export interface DriftReport {
  /** One line per difference; empty when schema.prisma and the migrations agree. */
  differences: string[];
  /** Name of the scratch database that was used (already dropped). */
  scratchDatabase: string;
  durationMs: number;
}

/**
 * Applies every migration to a new scratch database on the server of `databaseUrl` (default
 * {@link DEFAULT_DATABASE_URL}; named `tmi_test_<time>_check_<random>` so the test kit's stale
 * cleanup also catches a crashed run), reads its shape from pg_catalog, compares it with the
 * shape schema.prisma declares, and drops the scratch database.
 * @throws when the server is unreachable, a migration fails, or schema.prisma is invalid.
 */
export async function checkSchemaDrift(
  options: { databaseUrl?: string; schemaPath?: string } = {},
): Promise<DriftReport> {
  const started = performance.now();
  const expected = schemaShapeFromPrisma(readFileSync(options.schemaPath ?? SCHEMA_PATH, "utf8"));
  const serverUrl = options.databaseUrl ?? DEFAULT_DATABASE_URL;
  const scratch = `tmi_test_${Date.now().toString(36)}_check_${randomBytes(4).toString("hex")}`;
  const scratchUrl = withDatabase(serverUrl, scratch);
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(scratch)}`);
    try {
      await migrate({ databaseUrl: scratchUrl });
      const client = new pg.Client({ connectionString: scratchUrl });
      await client.connect();
      let actual: SchemaShape;
      try {
        actual = await readDatabaseSchema(client, {
          ignoreTables: [MIGRATIONS_TABLE, MIGRATION_CHECKSUMS_TABLE],
        });
      } finally {
        await client.end();
      }
      return {
        differences: compareSchemas(expected, actual),
        scratchDatabase: scratch,
        durationMs: performance.now() - started,
      };
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(scratch)} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}
