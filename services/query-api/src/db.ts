import { createPgPool } from "@tmi/db";
import type pg from "pg";

/**
 * The read-only query surface query-api needs: a `pg.Pool` (or client) with `query`.
 * Routes never write; the pool made by {@link createReadPool} also makes the server refuse
 * writes (`default_transaction_read_only`).
 */
export interface ReadDb {
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
  db: ReadDb,
  name: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  return db.query<R>({ name, text, values });
}

/** An `int8` column as read by `pg`: a bigint with `createPgPool`'s parsers, a decimal string without. */
export type Int8 = bigint | string;

/**
 * Creates the read pool of query-api over `url` (the read replica when one is configured): at
 * most `max` connections, every transaction read-only (server-enforced), 5 s statement timeout,
 * `int8` as bigint and `numeric` as decimal strings (`createPgPool` of `@tmi/db`).
 */
export function createReadPool(options: {
  url: string;
  max: number;
  onError?: (error: Error) => void;
}): pg.Pool {
  return createPgPool({
    url: options.url,
    max: options.max,
    applicationName: "tmi-query-api",
    readOnly: true,
    statementTimeoutMs: 5_000,
    ...(options.onError ? { onError: options.onError } : {}),
  });
}
