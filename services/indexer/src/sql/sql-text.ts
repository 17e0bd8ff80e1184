import { finished } from "node:stream/promises";
import { setImmediate as yieldToIo } from "node:timers/promises";
import type { PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";

const COPY_SPECIAL = /[\\\t\n\r]/;

/** Escapes a value for PostgreSQL COPY text format (`\N` for null). */
export function copyValue(value: string | number | bigint | null): string {
  if (value === null) return "\\N";
  const s = typeof value === "string" ? value : value.toString();
  if (!COPY_SPECIAL.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/**
 * A table a range appends to with one COPY (text format): the statement naming its columns, and
 * the line of one row (those columns in that order, tab-separated, each value through
 * {@link copyValue} when it may be NULL or hold a tab, newline or backslash; ending in `\n`).
 */
export interface CopyTable<T> {
  /** `COPY <table> (<columns>) FROM STDIN`. */
  readonly sql: string;
  /** The row's COPY line: one template literal per table (no allocation per field; hot path). */
  readonly line: (row: T) => string;
}

/**
 * Formats rows as COPY text of `table` in ~256 kB chunks, each encoded (UTF-8) to a `Buffer` as soon
 * as it is complete (done before the write, off the database's critical path), yielding to the event
 * loop after each chunk so that the write in flight keeps moving. A chunk's lines are joined into one
 * flat string and encoded at once: the lines, and the row strings they point to, are garbage before
 * the next scavenge instead of living in the young generation (as a rope of concatenations) until
 * the range is written.
 */
export async function copyChunks<T>(rows: T[], table: CopyTable<T>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let lines: string[] = [];
  let length = 0;
  for (const row of rows) {
    const line = table.line(row);
    lines.push(line);
    length += line.length;
    if (length > 256_000) {
      chunks.push(Buffer.from(lines.join("")));
      lines = [];
      length = 0;
      await yieldToIo();
    }
  }
  if (lines.length > 0) chunks.push(Buffer.from(lines.join("")));
  return chunks;
}

/**
 * Sends the chunks of {@link copyChunks} as the COPY of `table`: hands every chunk to the socket at
 * once (no event-loop turn per chunk), then waits for the COPY to complete.
 */
export async function copyIn<T>(client: PoolClient, table: CopyTable<T>, chunks: Buffer[]): Promise<void> {
  if (chunks.length === 0) return;
  const stream = client.query(copyFrom(table.sql));
  const done = finished(stream);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await done;
}

const SAFE_ELEMENT = /^[0-9A-Za-z_.x-]+$/;

/**
 * A PostgreSQL array literal of `values` (what `pg` would send, without its per-element quoting
 * and escaping when not needed): `{1,2,NULL}`, `{0xab,"a \"b\""}`.
 */
export function pgArray(values: readonly (string | number | bigint | boolean | null | undefined)[]): string {
  // One element string each, then one join: the literal is a single flat string (not a rope of one
  // concatenation per element that lives until the statement is sent).
  const out = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) out[i] = "NULL";
    else if (typeof v === "boolean") out[i] = v ? "t" : "f";
    else if (typeof v !== "string") out[i] = v.toString();
    else if (SAFE_ELEMENT.test(v) && v.toUpperCase() !== "NULL") out[i] = v;
    else out[i] = `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  }
  return `{${out.join(",")}}`;
}

/** Decimal text of an optional bigint (null stays null). */
export const str = (v: bigint | null | undefined): string | null =>
  v === null || v === undefined ? null : v.toString(10);

/**
 * Parameters of one statement being assembled: `p(value, type)` appends a parameter (arrays as
 * array literals) and returns its typed placeholder (`$3::numeric[]`).
 */
export interface SqlParams {
  readonly values: unknown[];
  p(value: unknown, type: string): string;
}

/** A fresh {@link SqlParams}. */
export function sqlParams(): SqlParams {
  const values: unknown[] = [];
  return {
    values,
    p(value, type) {
      values.push(Array.isArray(value) ? pgArray(value) : value);
      return `$${values.length}::${type}`;
    },
  };
}

/**
 * One column of an {@link unnestRows} relation: the PostgreSQL type of its elements (`text`,
 * `numeric`, …) and the value of a row in it (bigints as they are or as decimal text; null for NULL).
 */
export type UnnestColumn<T> = readonly [type: string, value: (row: T) => unknown];

/**
 * The rows as a relation for one statement: `unnest($1::text[], $2::numeric[], …) AS alias(a, b, …)`,
 * one array parameter per column (in the order of `columns`, named by its keys, which must be SQL
 * identifiers that are not integers), plus `WITH ORDINALITY` and a last column of that name when
 * `ordinality` is given (the row's 1-based position in `rows`).
 * @example unnestRows(q, rows, "d", { token: ["text", (r) => r.token], delta: ["numeric", (r) => r.delta] })
 *   // "unnest($1::text[], $2::numeric[]) AS d(token, delta)"
 */
export function unnestRows<T>(
  q: SqlParams,
  rows: readonly T[],
  alias: string,
  columns: Readonly<Record<string, UnnestColumn<T>>>,
  ordinality?: string,
): string {
  let params = "";
  let names = "";
  for (const name in columns) {
    const [type, value] = columns[name]!;
    if (names) {
      params += ", ";
      names += ", ";
    }
    params += q.p(rows.map(value), `${type}[]`);
    names += name;
  }
  return ordinality === undefined
    ? `unnest(${params}) AS ${alias}(${names})`
    : `unnest(${params}) WITH ORDINALITY AS ${alias}(${names}, ${ordinality})`;
}

/** Accumulated milliseconds per write statement since start (logged with the catch-up stats). */
export const statementMs: Record<string, number> = {};

/** Runs `fn`, adding its duration to {@link statementMs}`[name]`. */
export async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    statementMs[name] = (statementMs[name] ?? 0) + (performance.now() - started);
  }
}
