import pg from "pg";

/** OIDs of the PostgreSQL types whose parsing {@link createPgPool} changes. */
const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;

/** Parses a one-dimensional `int8[]` text value (`{1,2,NULL}`). */
function parseInt8Array(value: string): (bigint | null)[] {
  const inner = value.slice(1, -1).trim();
  if (inner === "") return [];
  return inner.split(",").map((item) => (item === "NULL" ? null : BigInt(item)));
}

/**
 * Type parsers of {@link createPgPool}: `int8`/`bigint` (and `int8[]`) → JS `bigint`;
 * `numeric` stays a decimal string (pg's default, exact for NUMERIC(78,0)); everything else
 * as pg parses it (`int4` → number, `timestamptz` → Date, `jsonb` → parsed JSON, `bool` → boolean).
 * Applied per pool: pg's global parsers (and so Prisma's adapter) are untouched.
 */
export const pgTypeParsers = {
  getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
    if (format === undefined || format === "text") {
      if (oid === INT8_OID) return (value: string) => BigInt(value);
      if (oid === INT8_ARRAY_OID) return parseInt8Array;
    }
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads by format
    return (pg.types.getTypeParser as any)(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * A `pg.Pool` for hot paths (query-api keyset pages) and bulk writes (indexer COPY/`unnest`
 * upserts), bypassing Prisma.
 *
 * Result types: `bigint`/`int8` columns (block numbers, timestamps, `count(*)`) come back as
 * JS `bigint`; `numeric` (amounts, NUMERIC(78,0)) as decimal strings (convert with `BigInt(s)`);
 * `integer` as number. Parameters may be `bigint` (sent as decimal text). Idle connections
 * close after 30 s. Pool errors of idle clients are reported to `onError` (default: ignored,
 * the pool replaces the connection) instead of crashing the process.
 * @param options.url `postgresql://` connection string
 * @param options.max most connections (default 10)
 * @param options.applicationName shown in `pg_stat_activity` (e.g. `tmi-indexer`)
 * @param options.readOnly when true, every transaction of the pool is READ ONLY (server-enforced)
 */
export function createPgPool(options: {
  url: string;
  max?: number;
  applicationName?: string;
  readOnly?: boolean;
  statementTimeoutMs?: number;
  onError?: (error: Error) => void;
}): pg.Pool {
  const pool = new pg.Pool(pgPoolConfig(options));
  pool.on("error", (error) => options.onError?.(error));
  return pool;
}

/** Pool configuration shared by {@link createPgPool} and the Prisma clients (without the type parsers). */
export function pgPoolConfig(options: {
  url: string;
  max?: number;
  applicationName?: string;
  readOnly?: boolean;
  statementTimeoutMs?: number;
  withTypeParsers?: boolean;
}): pg.PoolConfig {
  const settings: string[] = [];
  if (options.readOnly) settings.push("-c default_transaction_read_only=on");
  const config: pg.PoolConfig = {
    connectionString: options.url,
    max: options.max ?? 10,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? "tmi",
  };
  if (settings.length > 0) config.options = settings.join(" ");
  if (options.statementTimeoutMs !== undefined) config.statement_timeout = options.statementTimeoutMs;
  if (options.withTypeParsers !== false) config.types = pgTypeParsers;
  return config;
}
