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
 * Creates the database named by `databaseUrl` when it does not exist, connecting to the
 * server's `postgres` maintenance database with the same credentials.
 * @returns true when it was created, false when it already existed.
 * @throws the connection error when the server is unreachable, or when the role may not create databases.
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  await admin.connect();
  try {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount) return false;
    try {
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return true;
    } catch (error) {
      // Created concurrently by another process: fine.
      if ((error as { code?: string }).code === "42P04") return false;
      throw error;
    }
  } finally {
    await admin.end();
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
 * on node-pg-migrate's advisory lock, so several processes may call it at start-up.
 * Applied migrations are recorded in `public.schema_migrations`.
 * @throws when the server is unreachable, a migration fails (nothing is applied then), or the
 *   recorded migrations are not a prefix of the files (a committed migration was renamed or removed).
 */
export async function migrate(options: { databaseUrl: string; logger?: DbLogger }): Promise<MigrateResult> {
  const started = performance.now();
  const logger = options.logger;
  const createdDatabase = await ensureDatabase(options.databaseUrl);
  if (createdDatabase) logger?.info(`created database ${databaseNameOf(options.databaseUrl)}`);
  const quiet = () => {};
  // Imported on demand: services import this package without paying for the runner's startup.
  const { runner } = await import("node-pg-migrate");
  const ran = await runner({
    databaseUrl: options.databaseUrl,
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
  const applied = ran.map((migration) => migration.name);
  const durationMs = performance.now() - started;
  logger?.info(
    applied.length
      ? `applied ${applied.length} migration(s) in ${durationMs.toFixed(0)} ms: ${applied.join(", ")}`
      : "database schema is up to date",
  );
  return { createdDatabase, applied, durationMs };
}
