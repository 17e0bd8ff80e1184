// The actual shape of a database schema, read from pg_catalog.
import type pg from "pg";
import { type DefaultValue, normalizeLiteral, type SchemaShape, SQL_ONLY_MARK } from "./drift-shape.js";

/** Normalizes a PostgreSQL column default expression (`pg_get_expr`) to a {@link DefaultValue}. */
export function parsePgDefault(expression: string | null, identity = false): DefaultValue {
  if (identity) return { kind: "autoincrement" };
  if (expression === null) return { kind: "none" };
  const text = expression.trim();
  if (/^nextval\(/i.test(text)) return { kind: "autoincrement" };
  if (/^(CURRENT_TIMESTAMP|now\(\))(::timestamp.*)?$/i.test(text)) return { kind: "now" };
  const quoted = /^'((?:[^']|'')*)'(::[\w\s"[\]().,]+)?$/.exec(text);
  if (quoted) return { kind: "literal", value: normalizeLiteral((quoted[1] ?? "").replaceAll("''", "'")) };
  const numeric = /^\(?(-?\d+(?:\.\d+)?)\)?(::[\w\s()",]+)?$/.exec(text);
  if (numeric) return { kind: "literal", value: normalizeLiteral(numeric[1] ?? "") };
  if (/^(true|false)$/i.test(text)) return { kind: "literal", value: text.toLowerCase() };
  return { kind: "expression", text };
}

const ACTIONS: Record<string, string> = {
  a: "no action",
  r: "restrict",
  c: "cascade",
  n: "set null",
  d: "set default",
};

/**
 * Reads the shape of schema `public` (tables, columns, indexes, foreign keys) from pg_catalog.
 * Tables in `ignoreTables` (e.g. the migrations bookkeeping table) are left out.
 */
export async function readDatabaseSchema(
  client: pg.ClientBase | pg.Pool,
  options: { ignoreTables?: readonly string[] } = {},
): Promise<SchemaShape> {
  const ignore = new Set(options.ignoreTables ?? []);
  const tables: SchemaShape = new Map();
  const { rows: tableRows } = await client.query<{ name: string; comment: string | null }>(
    `SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  for (const row of tableRows) {
    if (ignore.has(row.name)) continue;
    tables.set(row.name, {
      columns: new Map(),
      indexes: new Map(),
      foreignKeys: [],
      sqlOnly: row.comment?.startsWith(SQL_ONLY_MARK) ?? false,
    });
  }

  const { rows: columnRows } = await client.query<{
    table: string;
    column: string;
    type: string;
    not_null: boolean;
    default: string | null;
    identity: string;
  }>(
    `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default, a.attidentity AS identity
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
  );
  for (const row of columnRows) {
    const table = tables.get(row.table);
    if (!table) continue;
    table.columns.set(row.column, {
      type: row.type,
      notNull: row.not_null,
      default: parsePgDefault(row.default, row.identity !== "" && row.identity !== null),
    });
  }

  const { rows: indexRows } = await client.query<{
    table: string;
    name: string;
    is_unique: boolean;
    is_primary: boolean;
    method: string;
    partial: boolean;
    comment: string | null;
    ord: number;
    column: string | null;
    desc: boolean;
    opclass: string;
    opclass_default: boolean;
  }>(
    `SELECT t.relname AS table, ic.relname AS name, i.indisunique AS is_unique, i.indisprimary AS is_primary,
            am.amname AS method, i.indpred IS NOT NULL AS partial, obj_description(ic.oid, 'pg_class') AS comment,
            k.ord::int AS ord, a.attname AS column, (k.opt & 1) = 1 AS desc,
            oc.opcname AS opclass, oc.opcdefault AS opclass_default
       FROM pg_index i
       JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       JOIN pg_am am ON am.oid = ic.relam
      CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indoption::int2[], i.indclass::oid[])
            WITH ORDINALITY AS k(attnum, opt, opclass, ord)
       LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum > 0
       LEFT JOIN pg_opclass oc ON oc.oid = k.opclass
      WHERE n.nspname = 'public' AND k.ord <= i.indnkeyatts
      ORDER BY t.relname, ic.relname, k.ord`,
  );
  for (const row of indexRows) {
    const table = tables.get(row.table);
    if (!table) continue;
    let index = table.indexes.get(row.name);
    if (!index) {
      index = {
        name: row.name,
        kind: row.is_primary ? "primary" : row.is_unique ? "unique" : "normal",
        method: row.method,
        columns: [],
        sqlOnly: row.comment?.startsWith(SQL_ONLY_MARK) ?? false,
      };
      if (row.partial) index.unsupported = "partial index (WHERE ...)";
      table.indexes.set(row.name, index);
    }
    if (row.column === null) {
      index.unsupported = "expression column";
      continue;
    }
    index.columns.push({
      column: row.column,
      desc: row.desc,
      opclass: row.opclass_default ? null : row.opclass,
    });
  }

  const { rows: fkRows } = await client.query<{
    table: string;
    name: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
  }>(
    `SELECT t.relname AS table, con.conname AS name,
            ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY u(n, o)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = u.n ORDER BY u.o)::text[] AS columns,
            rt.relname AS referenced_table,
            ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY u(n, o)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = u.n ORDER BY u.o)::text[] AS referenced_columns,
            con.confdeltype AS on_delete, con.confupdtype AS on_update
       FROM pg_constraint con
       JOIN pg_class t ON t.oid = con.conrelid
       JOIN pg_class rt ON rt.oid = con.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND con.contype = 'f'
      ORDER BY 1, 2`,
  );
  for (const row of fkRows) {
    const table = tables.get(row.table);
    if (!table) continue;
    table.foreignKeys.push({
      name: row.name,
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
      onDelete: ACTIONS[row.on_delete] ?? row.on_delete,
      onUpdate: ACTIONS[row.on_update] ?? row.on_update,
    });
  }
  return tables;
}
