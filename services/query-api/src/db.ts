import { createPgPool } from "@tmi/db";
import type pg from "pg";

/**
 * What runs query-api's SQL: a `pg.Pool` (or client) with `query`, nothing more (the read side
 * with its replica lag and `min_block` waits is `ReadDatabase`, read-database/). Routes never write; the pool made by {@link createReadPool} also makes the server refuse
 * writes (`default_transaction_read_only`).
 */
export interface SqlReader {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: {
    name?: string;
    text: string;
    values?: unknown[];
  }): Promise<pg.QueryResult<R>>;
}

/**
 * Runs `text` as the named prepared statement `name` (prepared once per connection): the hot
 * read paths skip parsing and, once PostgreSQL settles on a generic plan, planning, which costs
 * more than executing these index lookups. `name` must be unique per `text`.
 */
export function prepared<R extends pg.QueryResultRow = pg.QueryResultRow>(
  db: SqlReader,
  name: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  return db.query<R>({ name, text, values });
}

/** An `int8` column as read by `pg`: a bigint with `createPgPool`'s parsers, a decimal string without. */
export type Int8 = bigint | string;

/**
 * Session settings of every query-api connection, sent once per new connection. No parallel
 * workers: every route reads a bounded page through an index, and starting workers for it
 * (PostgreSQL picks a Gather over `trades` at 10M rows) costs far more than the read, above all
 * with many requests at once on few cores. No JIT, for the same reason: a generic plan estimates
 * `LIMIT $n` as 10 % of the rows, and when that estimate passes `jit_above_cost` PostgreSQL
 * compiles the plan on every execution (170 ms for a 0.4 ms page of the market-wide feed).
 */
export const READ_SESSION_SETTINGS =
  "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY; SET statement_timeout = 5000; SET max_parallel_workers_per_gather = 0; SET jit = off";

/**
 * Creates the read pool of query-api over `url` (the read replica when one is configured): at
 * most `max` connections, every transaction read-only (server-enforced), 5 s statement timeout,
 * no parallel workers, no JIT,
 * `int8` as bigint and `numeric` as decimal strings (`createPgPool` of `@tmi/db`). The settings
 * are sent as `SET` statements when a connection opens (before its first query), not as
 * startup parameters: PgBouncer refuses those (`unsupported startup parameter`) or, told to
 * ignore them, drops them silently. Behind PgBouncer use `pool_mode = session` (tested; see
 * docs/operations.md): in transaction mode neither session settings nor the named prepared
 * statements of the hot routes survive.
 */
export function createReadPool(options: {
  url: string;
  max: number;
  applicationName?: string;
  /** Close connections idle this long (ms) [30,000]. */
  idleTimeoutMs?: number;
  onError?: (error: Error) => void;
}): pg.Pool {
  const pool = createPgPool({
    url: options.url,
    max: options.max,
    applicationName: options.applicationName ?? "tmi-query-api",
    ...(options.onError ? { onError: options.onError } : {}),
  });
  if (options.idleTimeoutMs !== undefined) pool.options.idleTimeoutMillis = options.idleTimeoutMs;
  // pg-pool's `onConnect` hook: awaited before a new connection serves its first query (a failure
  // discards the connection and fails that query).
  (pool.options as { onConnect?: (client: pg.PoolClient) => Promise<unknown> }).onConnect = (client) =>
    client.query(READ_SESSION_SETTINGS);
  return pool;
}
