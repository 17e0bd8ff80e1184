import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/**
 * Minimal logger accepted by this package (a pino logger or `console` fits).
 * Messages are plain strings.
 */
export interface DbLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
}

/** Default connection string of the local development database. */
export const DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/tmi";

/**
 * Absolute path of the committed SQL migrations (`prisma/migrations/`), the same from
 * `src/` (tsx, vitest) and from `dist/` (built).
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations", import.meta.url));

/** Table (in `public`) where node-pg-migrate records the migrations it applied. */
export const MIGRATIONS_TABLE = "schema_migrations";

/** The migration files, sorted by name (their order of application). */
export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith(".sql"))
    .sort();
}

/**
 * SHA-256 (hex) over the names and contents of every migration file, in order: changes whenever
 * a migration is added or edited. Used to name migrated template databases in tests.
 */
export function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const file of migrationFiles()) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(join(MIGRATIONS_DIR, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** Quotes a PostgreSQL identifier (`my"db` → `"my""db"`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Database name of a `postgresql://` connection string (throws when there is none). */
export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  if (!name) throw new Error("the database URL names no database");
  return name;
}

/** The same connection string pointed at another database on the same server. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/**
 * Creates the database named by `databaseUrl` when it does not exist. Connects to it first; only
 * when PostgreSQL answers "database does not exist" (3D000) does it connect to the server's
 * `postgres` maintenance database, with the same credentials, to create it.
 * @returns true when it was created, false when it already existed.
 * @throws the connection error when the server is unreachable, or when the role may not create databases.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return false;
  } catch (error) {
    if ((error as { code?: string }).code !== "3D000") throw error;
  } finally {
    await probe.end().catch(() => {});
  }
  const name = databaseNameOf(databaseUrl);
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    return true;
  } catch (error) {
    // Created concurrently by another process: fine.
    if ((error as { code?: string }).code === "42P04") return false;
    throw error;
  } finally {
    await admin.end();
  }
}

/** Table (in `public`) holding the SHA-256 of each applied migration file, to detect edited migrations. */
export const MIGRATION_CHECKSUMS_TABLE = "schema_migration_checksums";

/** Advisory lock key serializing {@link migrate} calls on one database ("tmim"). */
const MIGRATE_LOCK_KEY = 0x746d696d;

/** SHA-256 (hex) of one migration file's content. */
function fileChecksum(file: string): string {
  return createHash("sha256")
    .update(readFileSync(join(MIGRATIONS_DIR, file)))
    .digest("hex");
}

/**
 * Compares the checksums recorded for applied migrations with the files.
 * @throws listing every applied migration whose file was edited or removed.
 */
async function verifyChecksums(client: pg.Client): Promise<void> {
  const { rows: exists } = await client.query<{ ok: boolean }>("SELECT to_regclass($1) IS NOT NULL AS ok", [
    `public.${MIGRATION_CHECKSUMS_TABLE}`,
  ]);
  if (!exists[0]?.ok) return;
  const files = new Set(migrationFiles());
  const { rows } = await client.query<{ name: string; sha256: string }>(
    `SELECT name, sha256 FROM ${quoteIdent(MIGRATION_CHECKSUMS_TABLE)} ORDER BY name`,
  );
  const problems: string[] = [];
  for (const row of rows) {
    const file = `${row.name}.sql`;
    if (!files.has(file)) problems.push(`${file} was applied but no longer exists`);
    else if (fileChecksum(file) !== row.sha256) problems.push(`${file} was edited after it was applied`);
  }
  if (problems.length > 0) {
    throw new Error(
      `committed migrations changed: ${problems.join("; ")}. Restore them and add a new migration instead (a development database can also be dropped and migrated again).`,
    );
  }
}

/** Records the checksums of applied migrations that have none yet. */
async function recordChecksums(client: pg.Client): Promise<void> {
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(MIGRATION_CHECKSUMS_TABLE)} (name text PRIMARY KEY, sha256 text NOT NULL)`,
  );
  const { rows } = await client.query<{ name: string }>(
    `SELECT m.name FROM ${quoteIdent(MIGRATIONS_TABLE)} m
      WHERE NOT EXISTS (SELECT 1 FROM ${quoteIdent(MIGRATION_CHECKSUMS_TABLE)} c WHERE c.name = m.name)`,
  );
  const files = new Set(migrationFiles());
  for (const { name } of rows) {
    if (!files.has(`${name}.sql`)) continue;
    await client.query(
      `INSERT INTO ${quoteIdent(MIGRATION_CHECKSUMS_TABLE)} (name, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [name, fileChecksum(`${name}.sql`)],
    );
  }
}

/** Outcome of {@link migrate}. */
export interface MigrateResult {
  /** Whether the database had to be created. */
  createdDatabase: boolean;
  /** Names of the migrations applied by this call (empty when the database was up to date). */
  applied: string[];
  /** Wall time in milliseconds. */
  durationMs: number;
}

/**
 * Applies the pending committed SQL migrations (`prisma/migrations/*.sql`, node-pg-migrate's
 * `-- Up Migration` / `-- Down Migration` format) to `databaseUrl`, creating the database first
 * if it does not exist. All pending migrations run in one transaction; concurrent callers wait
 * on an advisory lock, so several processes may call it at start-up. Applied migrations are
 * recorded in `public.schema_migrations` (node-pg-migrate) with the SHA-256 of their file in
 * `public.schema_migration_checksums`.
 * @throws when the server is unreachable; when a migration fails (nothing is applied then);
 *   when an applied migration's file was edited or removed; when a new migration sorts before
 *   an applied one (node-pg-migrate's order check).
 */
export async function migrate(options: { databaseUrl: string; logger?: DbLogger }): Promise<MigrateResult> {
  const started = performance.now();
  const logger = options.logger;
  const createdDatabase = await ensureDatabase(options.databaseUrl);
  if (createdDatabase) logger?.info(`created database ${databaseNameOf(options.databaseUrl)}`);
  const quiet = () => {};
  // Imported on demand: services import this package without paying for the runner's startup.
  const { runner } = await import("node-pg-migrate");
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: "tmi-migrate" });
  await client.connect();
  let applied: string[];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATE_LOCK_KEY]);
    try {
      await verifyChecksums(client);
      const ran = await runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        // Only *.sql files are migrations (README and dot files are ignored).
        ignorePattern: "(\\..*)|(.*(?<!\\.sql))",
        migrationsTable: MIGRATIONS_TABLE,
        schema: "public",
        direction: "up",
        checkOrder: true,
        singleTransaction: true,
        advisoryLockMode: "wait",
        // node-pg-migrate prints every statement at info level: keep that at debug.
        logger: {
          debug: (message: string) => logger?.debug?.(message),
          info: (message: string) => logger?.debug?.(message),
          warn: (message: string) => (logger ? logger.warn(message) : quiet()),
          error: (message: string) => (logger ? logger.error(message) : quiet()),
        },
      });
      applied = ran.map((migration) => migration.name);
      await recordChecksums(client);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATE_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
  const durationMs = performance.now() - started;
  logger?.info(
    applied.length
      ? `applied ${applied.length} migration(s) in ${durationMs.toFixed(0)} ms: ${applied.join(", ")}`
      : "database schema is up to date",
  );
  return { createdDatabase, applied, durationMs };
}
