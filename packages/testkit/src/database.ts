// Owner: db (prisma/ + testkit database/redis/s3/global-setup).
// Fresh PostgreSQL databases for integration tests, cloned from a migrated template.
import { createHash, randomBytes } from "node:crypto";
import {
  databaseNameOf,
  MIGRATION_CHECKSUMS_TABLE,
  MIGRATIONS_TABLE,
  migrate,
  migrationsHash,
  quoteIdent,
  withDatabase,
} from "@tmi/db";
import pg from "pg";

/**
 * Connection string of the maintenance database of the test PostgreSQL server
 * (`TMI_TEST_PG_URL`, default `postgresql://postgres@127.0.0.1:5432/postgres`, trust auth).
 * Test databases are created on the same server with the same credentials.
 */
export function testPostgresUrl(): string {
  return process.env.TMI_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
}

/** Prefix of every database made by {@link createTestDatabase}. */
export const TEST_DATABASE_PREFIX = "tmi_test_";
/** Prefix of the migrated template databases (followed by a hash of the migration files). */
export const TEMPLATE_DATABASE_PREFIX = "tmi_tmpl_";
/** Databases of crashed runs older than this are dropped by {@link cleanupTestDatabases}. */
export const STALE_TEST_DATABASE_MS = 3 * 60 * 60 * 1000;

const TEMPLATE_LOCK_KEY = 0x746d6974; // "tmit": one advisory lock for building templates
const READY_COMMENT = "tmi test template: migrated at ";
/** Templates of other migration hashes built longer ago than this are dropped by the cleanup. */
const STALE_TEMPLATE_MS = 24 * 60 * 60 * 1000;

let pool: pg.Pool | undefined;

/**
 * A small shared pool on the maintenance database (`postgres`) of the test server, for
 * CREATE/DROP DATABASE and other administration. Created on first use; idle connections close
 * by themselves, so it never keeps a process alive. Do not `end()` it.
 */
export function adminPool(): pg.Pool {
  pool ??= new pg.Pool({
    connectionString: testPostgresUrl(),
    max: 3,
    idleTimeoutMillis: 1_000,
    allowExitOnIdle: true,
    application_name: "tmi-testkit",
  });
  return pool;
}

/** Bumped when what a template holds changes for another reason than the migrations (runner bookkeeping). */
const TEMPLATE_FORMAT = 2;

/**
 * Name of the migrated template database for the current migration files:
 * `tmi_tmpl_<16 hex of sha256(format, migrations)>`. Editing or adding a migration gives a new name.
 */
export function templateDatabaseName(): string {
  const hash = createHash("sha256").update(`${TEMPLATE_FORMAT}:${migrationsHash()}`).digest("hex");
  return `${TEMPLATE_DATABASE_PREFIX}${hash.slice(0, 16)}`;
}

let templateReady: Promise<string> | undefined;

/**
 * Makes sure the migrated template database of the current migrations exists and returns its
 * name. Idempotent and safe across processes: building is serialized by a PostgreSQL advisory
 * lock, and a template counts as built only once marked (a half-built one is rebuilt).
 * The global setup calls it once per run; {@link createTestDatabase} calls it (cheaply) too.
 * @throws when PostgreSQL is unreachable or a migration fails.
 */
export function ensureTemplateDatabase(): Promise<string> {
  templateReady ??= buildTemplate().catch((error) => {
    templateReady = undefined;
    throw error;
  });
  return templateReady;
}

/** Build time (ms) of a template marked ready, from its database comment; undefined if not ready. */
function templateBuiltAt(comment: string | null | undefined): number | undefined {
  if (!comment?.startsWith(READY_COMMENT)) return undefined;
  const ms = Number(comment.slice(READY_COMMENT.length));
  return Number.isFinite(ms) ? ms : undefined;
}

async function isReadyTemplate(client: pg.ClientBase, name: string): Promise<boolean> {
  const { rows } = await client.query<{ comment: string | null }>(
    "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
    [name],
  );
  return templateBuiltAt(rows[0]?.comment) !== undefined;
}

async function buildTemplate(): Promise<string> {
  const name = templateDatabaseName();
  const client = await adminPool().connect();
  try {
    if (await isReadyTemplate(client, name)) return name;
    await client.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
    try {
      if (await isReadyTemplate(client, name)) return name;
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      await migrate({ databaseUrl: withDatabase(testPostgresUrl(), name) });
      await client.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS '${READY_COMMENT}${Date.now()}'`);
      return name;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/** A database made by {@link createTestDatabase}. */
export interface TestDatabase {
  /** Connection string (same server and credentials as {@link testPostgresUrl}). */
  url: string;
  /** Database name (`tmi_test_<base36 ms>_<worker>_<random>`). */
  name: string;
  /** Terminates every connection to it and drops it. Safe to call twice. */
  drop(): Promise<void>;
}

let counter = 0;

/**
 * Creates a fresh database for one test (file): by default a clone (`CREATE DATABASE … TEMPLATE`)
 * of the migrated template, so it has the whole schema and no rows; with `empty: true` an
 * empty database without migrations (for testing migrations themselves). Names are unique per
 * process, vitest worker and call, and carry their creation time so that the global setup can
 * drop those left behind by crashed runs. Call `drop()` in `afterAll`.
 * @throws when PostgreSQL is unreachable or the template cannot be built.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const worker = process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? "0";
  counter += 1;
  const name = `${TEST_DATABASE_PREFIX}${Date.now().toString(36)}_w${worker}_${process.pid}_${counter}_${randomBytes(3).toString("hex")}`;
  if (options.empty) {
    await adminPool().query(`CREATE DATABASE ${quoteIdent(name)}`);
  } else {
    await cloneTemplate(name);
  }
  const url = withDatabase(testPostgresUrl(), name);
  let dropped = false;
  return {
    url,
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await dropDatabase(name);
    },
  };
}

async function cloneTemplate(name: string): Promise<void> {
  let rebuilt = false;
  for (let attempt = 1; ; attempt++) {
    const template = await ensureTemplateDatabase();
    try {
      await adminPool().query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "3D000" && !rebuilt) {
        // The template was dropped meanwhile (another run's cleanup): build it again, once.
        rebuilt = true;
        templateReady = undefined;
      } else if (code === "55006" && attempt < 50) {
        // "source database is being accessed by other users": the build's last connection is
        // still closing, or someone opened the template. Retry for up to ~5 s.
        await new Promise((resolve) => setTimeout(resolve, 100));
      } else {
        if (code === "55006") {
          throw new Error(
            `cannot clone ${template}: other sessions are connected to it (close them, e.g. psql): ${(error as Error).message}`,
          );
        }
        throw error;
      }
    }
  }
}

/**
 * Empties every table of schema `public` of the database at `url` (TRUNCATE ... RESTART IDENTITY
 * CASCADE), keeping the migrations bookkeeping: a cheaper reset between tests of one file than
 * a new database (about as fast as a clone, but keeps open pools usable).
 */
export async function truncateAllTables(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> ALL($1::text[])`,
      [[MIGRATIONS_TABLE, MIGRATION_CHECKSUMS_TABLE]],
    );
    if (rows.length === 0) return;
    await client.query(`TRUNCATE ${rows.map((r) => quoteIdent(r.name)).join(", ")} RESTART IDENTITY CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Drops database `name` (no error when it does not exist). Connections a caller is closing get up
 * to 2 s to go (`pg.Pool#end()` resolves before its sockets close; a backend terminated while its
 * client is closing reaches that client as an error nobody listens to any more); the rest are
 * terminated.
 */
export async function dropDatabase(name: string): Promise<void> {
  const admin = adminPool();
  const deadline = Date.now() + 2_000;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
    if (rows[0]!.n === 0 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
    [name],
  );
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
}

/** Creation time (ms) encoded in a test database name, or undefined for another name. */
export function testDatabaseCreatedAt(name: string): number | undefined {
  const match = /^tmi_test_([0-9a-z]+)_/.exec(name);
  if (!match?.[1]) return undefined;
  const ms = Number.parseInt(match[1], 36);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Drops test databases older than `olderThanMs` (default {@link STALE_TEST_DATABASE_MS}, left by
 * crashed runs) and templates of other migration hashes built more than a day ago.
 * @returns the names dropped.
 */
export async function cleanupTestDatabases(olderThanMs = STALE_TEST_DATABASE_MS): Promise<string[]> {
  const admin = adminPool();
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'tmi\\_test\\_%'",
  );
  const now = Date.now();
  const dropped: string[] = [];
  for (const name of rows.map((r) => r.datname)) {
    const created = testDatabaseCreatedAt(name);
    if (created !== undefined && now - created > olderThanMs) {
      await dropDatabase(name);
      dropped.push(name);
    }
  }
  const current = templateDatabaseName();
  const { rows: templates } = await admin.query<{ datname: string; comment: string | null }>(
    "SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname LIKE 'tmi\\_tmpl\\_%'",
  );
  for (const { datname, comment } of templates) {
    if (datname === current) continue;
    const built = templateBuiltAt(comment);
    // Half-built ones (no mark) are left to the run building them.
    if (built === undefined || now - built <= STALE_TEMPLATE_MS) continue;
    try {
      await dropDatabase(datname);
      dropped.push(datname);
    } catch {
      // Being cloned right now by a run of other migrations: leave it.
    }
  }
  return dropped;
}

export { databaseNameOf, withDatabase };
