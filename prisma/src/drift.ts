// Drift check between schema.prisma and the database the SQL migrations produce.
// Pure parts (unit-tested): the expected shape from Prisma's DMMF, the comparison.
// I/O part: reading the actual shape from pg_catalog.
import type pg from "pg";

/** A column default, normalized so that Prisma's and PostgreSQL's spellings compare equal. */
export type DefaultValue =
  | { kind: "none" }
  | { kind: "autoincrement" }
  | { kind: "now" }
  | { kind: "literal"; value: string }
  /** An expression compared by presence only (`dbgenerated(...)` or an unrecognized SQL default). */
  | { kind: "expression"; text: string };

/** One column of a table. `type` is PostgreSQL's `format_type()` spelling (`numeric(78,0)`). */
export interface ColumnShape {
  type: string;
  notNull: boolean;
  default: DefaultValue;
}

/** One key column of an index. `opclass` is null for the type's default operator class. */
export interface IndexColumn {
  column: string;
  desc: boolean;
  opclass: string | null;
}

/** An index (also primary keys and unique constraints, which PostgreSQL backs with indexes). */
export interface IndexShape {
  name: string;
  kind: "primary" | "unique" | "normal";
  method: string;
  columns: IndexColumn[];
  /** Partial index or expression columns: something schema.prisma cannot declare. */
  unsupported?: string;
  /** True when the object is marked `sql-only` by a COMMENT (allowed extra). */
  sqlOnly?: boolean;
}

/** A foreign key. Actions: `cascade`, `restrict`, `no action`, `set null`, `set default`. */
export interface ForeignKeyShape {
  name: string;
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}

/** A table: columns by name, indexes by name, foreign keys. */
export interface TableShape {
  /** Where the expectation comes from (`model Token`), for messages. */
  origin?: string;
  columns: Map<string, ColumnShape>;
  indexes: Map<string, IndexShape>;
  foreignKeys: ForeignKeyShape[];
  sqlOnly?: boolean;
}

/** Tables by name (schema `public`). */
export type SchemaShape = Map<string, TableShape>;

// ---------------------------------------------------------------------------------------------
// Expected shape from the DMMF (`@prisma/get-dmmf` → `datamodel`)

/** The parts of Prisma's DMMF datamodel the check reads (see `@prisma/dmmf`). */
export interface DmmfDatamodel {
  readonly models: readonly DmmfModel[];
  readonly enums: readonly { readonly name: string; readonly dbName?: string | null }[];
  readonly indexes: readonly DmmfIndex[];
}
export interface DmmfModel {
  readonly name: string;
  readonly dbName: string | null;
  readonly schema?: string | null;
  readonly fields: readonly DmmfField[];
}
export interface DmmfField {
  readonly name: string;
  readonly kind: string;
  readonly type: string;
  readonly isList: boolean;
  readonly isRequired: boolean;
  readonly dbName?: string | null;
  readonly nativeType?: readonly [string, readonly string[]] | null;
  readonly hasDefaultValue: boolean;
  readonly default?: unknown;
  readonly relationFromFields?: readonly string[];
  readonly relationToFields?: readonly string[];
  readonly relationOnDelete?: string;
  readonly relationOnUpdate?: string;
}
export interface DmmfIndex {
  readonly model: string;
  readonly type: string;
  readonly dbName?: string;
  readonly algorithm?: string;
  readonly fields: readonly {
    readonly name: string;
    readonly sortOrder?: string;
    readonly operatorClass?: string;
    readonly length?: number;
  }[];
}

const PG_IDENTIFIER_MAX = 63;

/** Prisma's default constraint/index name: `<table>_<columns>_<suffix>`, prefix cut to fit 63 bytes. */
export function prismaDefaultName(table: string, columns: readonly string[], suffix: string): string {
  const prefix = columns.length > 0 ? `${table}_${columns.join("_")}` : table;
  const room = PG_IDENTIFIER_MAX - suffix.length - 1;
  return `${prefix.slice(0, room)}_${suffix}`;
}

const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Boolean: "boolean",
  Int: "integer",
  BigInt: "bigint",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Bytes: "bytea",
};

function withArgs(base: string, args: readonly string[]): string {
  return args.length > 0 ? `${base}(${args.join(",")})` : base;
}

/** PostgreSQL type (format_type spelling) of a `@db.X(args)` native type; undefined if unknown. */
export function nativeTypeToPg(name: string, args: readonly string[]): string | undefined {
  switch (name) {
    case "Text":
      return "text";
    case "VarChar":
      return withArgs("character varying", args);
    case "Char":
      return withArgs("character", args);
    case "Uuid":
      return "uuid";
    case "Xml":
      return "xml";
    case "Inet":
      return "inet";
    case "Citext":
      return "citext";
    case "Bit":
      return withArgs("bit", args);
    case "VarBit":
      return withArgs("bit varying", args);
    case "Integer":
      return "integer";
    case "SmallInt":
      return "smallint";
    case "BigInt":
      return "bigint";
    case "Oid":
      return "oid";
    case "DoublePrecision":
      return "double precision";
    case "Real":
      return "real";
    case "Decimal":
      return withArgs("numeric", args);
    case "Money":
      return "money";
    case "Timestamp":
      return `${withArgs("timestamp", args)} without time zone`;
    case "Timestamptz":
      return `${withArgs("timestamp", args)} with time zone`;
    case "Time":
      return `${withArgs("time", args)} without time zone`;
    case "Timetz":
      return `${withArgs("time", args)} with time zone`;
    case "Date":
      return "date";
    case "Json":
      return "json";
    case "JsonB":
      return "jsonb";
    case "ByteA":
      return "bytea";
    case "Boolean":
      return "boolean";
    default:
      return undefined;
  }
}

/** Prisma's default of a field as a {@link DefaultValue}; client-side generators (uuid(), cuid()) are none. */
export function expectedDefault(field: DmmfField): DefaultValue {
  if (!field.hasDefaultValue || field.default === undefined) return { kind: "none" };
  const value = field.default;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const fn = value as { name: string; args?: readonly unknown[] };
    switch (fn.name) {
      case "autoincrement":
        return { kind: "autoincrement" };
      case "now":
        return { kind: "now" };
      case "dbgenerated":
        return { kind: "expression", text: String(fn.args?.[0] ?? "") };
      case "sequence":
        return { kind: "autoincrement" };
      default:
        // uuid(), cuid(), nanoid(), ulid(): generated by the client, no database default.
        return { kind: "none" };
    }
  }
  if (Array.isArray(value)) return { kind: "expression", text: JSON.stringify(value) };
  return { kind: "literal", value: normalizeLiteral(String(value)) };
}

function normalizeLiteral(value: string): string {
  // Numbers compare by value ("0" vs "0.0"); everything else as text.
  if (/^-?\d+(\.\d+)?$/.test(value)) {
    const [whole = "0", fraction = ""] = value.replace(/^-/, "").split(".");
    const trimmedWhole = whole.replace(/^0+(?=\d)/, "");
    const trimmedFraction = fraction.replace(/0+$/, "");
    const sign = value.startsWith("-") && !(trimmedWhole === "0" && trimmedFraction === "") ? "-" : "";
    return `${sign}${trimmedWhole}${trimmedFraction ? `.${trimmedFraction}` : ""}`;
  }
  return value;
}

/**
 * The database shape that schema.prisma declares (PostgreSQL provider, schema `public`):
 * tables, columns (type, NOT NULL, default), primary keys, uniques, indexes (Prisma's default
 * names when no `map:`), foreign keys (Prisma's default actions: onUpdate Cascade; onDelete
 * Restrict, or SetNull when a column is optional).
 * @throws on a field type the check does not know (say so in the message).
 */
export function expectedSchema(datamodel: DmmfDatamodel): SchemaShape {
  const tables: SchemaShape = new Map();
  const models = new Map(datamodel.models.map((m) => [m.name, m]));
  const enums = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
  const columnOf = (model: DmmfModel, fieldName: string) => {
    const field = model.fields.find((f) => f.name === fieldName);
    if (!field) throw new Error(`model ${model.name}: unknown field ${fieldName}`);
    return field.dbName ?? field.name;
  };

  for (const model of datamodel.models) {
    const table: TableShape = {
      origin: `model ${model.name}`,
      columns: new Map(),
      indexes: new Map(),
      foreignKeys: [],
    };
    tables.set(tableOf(model), table);
    for (const field of model.fields) {
      if (field.kind === "object") continue;
      let type: string | undefined;
      if (field.kind === "enum") {
        type = enums.get(field.type) ?? field.type;
      } else if (field.nativeType) {
        type = nativeTypeToPg(field.nativeType[0], field.nativeType[1]);
      } else {
        type = SCALAR_TYPES[field.type];
      }
      if (!type) {
        throw new Error(
          `model ${model.name}.${field.name}: the drift check does not know type ${field.type}${field.nativeType ? ` @db.${field.nativeType[0]}` : ""}`,
        );
      }
      table.columns.set(field.dbName ?? field.name, {
        type: field.isList ? `${type}[]` : type,
        notNull: field.isRequired || field.isList,
        default: expectedDefault(field),
      });
    }
    for (const field of model.fields) {
      if (field.kind !== "object" || !field.relationFromFields?.length) continue;
      const target = models.get(field.type);
      if (!target) throw new Error(`model ${model.name}.${field.name}: unknown related model ${field.type}`);
      const columns = field.relationFromFields.map((f) => columnOf(model, f));
      const anyOptional = field.relationFromFields.some(
        (f) => !model.fields.find((x) => x.name === f)?.isRequired,
      );
      table.foreignKeys.push({
        name: prismaDefaultName(tableOf(model), columns, "fkey"),
        columns,
        referencedTable: tableOf(target),
        referencedColumns: (field.relationToFields ?? []).map((f) => columnOf(target, f)),
        onDelete: referentialAction(field.relationOnDelete ?? (anyOptional ? "SetNull" : "Restrict")),
        onUpdate: referentialAction(field.relationOnUpdate ?? "Cascade"),
      });
    }
  }

  for (const index of datamodel.indexes) {
    const model = models.get(index.model);
    if (!model) continue;
    const tableName = tableOf(model);
    const table = tables.get(tableName);
    if (!table) continue;
    const columns = index.fields.map((f) => ({
      column: columnOf(model, f.name),
      desc: f.sortOrder === "desc",
      opclass: f.operatorClass ? f.operatorClass.toLowerCase() : null,
    }));
    const kind = index.type === "id" ? "primary" : index.type === "unique" ? "unique" : "normal";
    const suffix = kind === "primary" ? "pkey" : kind === "unique" ? "key" : "idx";
    const name =
      index.dbName ??
      (kind === "primary"
        ? prismaDefaultName(tableName, [], suffix)
        : prismaDefaultName(
            tableName,
            columns.map((c) => c.column),
            suffix,
          ));
    if (index.type === "fulltext")
      throw new Error(`model ${model.name}: fulltext indexes are not PostgreSQL`);
    table.indexes.set(name, {
      name,
      kind,
      method: (index.algorithm ?? "BTree").toLowerCase(),
      columns,
    });
  }
  return tables;
}

function referentialAction(action: string): string {
  switch (action) {
    case "Cascade":
      return "cascade";
    case "Restrict":
      return "restrict";
    case "NoAction":
      return "no action";
    case "SetNull":
      return "set null";
    case "SetDefault":
      return "set default";
    default:
      return action.toLowerCase();
  }
}

// ---------------------------------------------------------------------------------------------
// Actual shape from pg_catalog

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

/** A COMMENT starting with this marks a table or index as SQL-only: allowed by the check. */
export const SQL_ONLY_MARK = "sql-only";

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

// ---------------------------------------------------------------------------------------------
// Comparison

function describeDefault(value: DefaultValue): string {
  switch (value.kind) {
    case "none":
      return "no default";
    case "autoincrement":
      return "autoincrement (sequence/identity)";
    case "now":
      return "now()";
    case "literal":
      return `default ${JSON.stringify(value.value)}`;
    case "expression":
      return `default ${value.text}`;
  }
}

function sameDefault(expected: DefaultValue, actual: DefaultValue): boolean {
  if (expected.kind === "expression" || actual.kind === "expression") {
    // dbgenerated(...) and SQL expressions: presence only.
    return (
      expected.kind !== "none" &&
      actual.kind !== "none" &&
      expected.kind !== "autoincrement" &&
      actual.kind !== "autoincrement"
    );
  }
  if (expected.kind !== actual.kind) return false;
  return expected.kind !== "literal" || expected.value === (actual as { value: string }).value;
}

function describeColumns(columns: readonly IndexColumn[]): string {
  return `(${columns
    .map((c) => `${c.column}${c.opclass ? ` ${c.opclass}` : ""}${c.desc ? " DESC" : ""}`)
    .join(", ")})`;
}

function describeIndex(index: IndexShape): string {
  const kind = index.kind === "primary" ? "primary key" : index.kind === "unique" ? "unique index" : "index";
  return `${kind} ${index.name} ${describeColumns(index.columns)}${index.method !== "btree" ? ` USING ${index.method}` : ""}`;
}

function describeForeignKey(fk: ForeignKeyShape): string {
  return `(${fk.columns.join(", ")}) → ${fk.referencedTable}(${fk.referencedColumns.join(", ")}) ON DELETE ${fk.onDelete.toUpperCase()} ON UPDATE ${fk.onUpdate.toUpperCase()}`;
}

/**
 * Every difference between the shape schema.prisma declares (`expected`) and the database's
 * (`actual`), as one human-readable line each, sorted; empty when they agree.
 * Allowed (not reported): CHECK constraints and other objects the comparison does not read,
 * and tables/indexes whose COMMENT starts with `sql-only`.
 * Compared: tables; columns (type, NOT NULL, default: kind and literal value; expressions
 * by presence); primary keys, unique and plain indexes (name, columns and their order, DESC,
 * operator class, method, unique/primary); foreign keys (columns, target, ON DELETE/UPDATE;
 * matched by columns, names are not compared because the DMMF does not carry `map:`).
 */
export function compareSchemas(expected: SchemaShape, actual: SchemaShape): string[] {
  const out: string[] = [];
  for (const [tableName, want] of expected) {
    const have = actual.get(tableName);
    if (!have) {
      out.push(`table ${tableName}: missing in the database (declared by ${want.origin ?? "schema.prisma"})`);
      continue;
    }
    for (const [columnName, column] of want.columns) {
      const got = have.columns.get(columnName);
      const where = `column ${tableName}.${columnName}`;
      if (!got) {
        out.push(`${where}: missing in the database`);
        continue;
      }
      if (got.type !== column.type) {
        out.push(`${where}: type is ${got.type} in the database, ${column.type} in schema.prisma`);
      }
      if (got.notNull !== column.notNull) {
        out.push(
          `${where}: ${got.notNull ? "NOT NULL" : "nullable"} in the database, ${column.notNull ? "required" : "optional"} in schema.prisma`,
        );
      }
      if (!sameDefault(column.default, got.default)) {
        out.push(
          `${where}: ${describeDefault(got.default)} in the database, ${describeDefault(column.default)} in schema.prisma`,
        );
      }
    }
    for (const columnName of have.columns.keys()) {
      if (!want.columns.has(columnName)) out.push(`column ${tableName}.${columnName}: not in schema.prisma`);
    }
    for (const [indexName, index] of want.indexes) {
      const got = have.indexes.get(indexName);
      if (!got) {
        const sameColumns = [...have.indexes.values()].find(
          (i) => describeColumns(i.columns) === describeColumns(index.columns) && i.kind === index.kind,
        );
        out.push(
          `${describeIndex(index)} on ${tableName}: missing in the database${sameColumns ? ` (the database has ${sameColumns.name} on the same columns: wrong name?)` : ""}`,
        );
        continue;
      }
      const problems: string[] = [];
      if (got.kind !== index.kind)
        problems.push(`it is a ${got.kind} index, schema.prisma declares ${index.kind}`);
      if (describeColumns(got.columns) !== describeColumns(index.columns)) {
        problems.push(
          `columns ${describeColumns(got.columns)}, schema.prisma ${describeColumns(index.columns)}`,
        );
      }
      if (got.method !== index.method) problems.push(`method ${got.method}, schema.prisma ${index.method}`);
      if (got.unsupported) problems.push(`it is a ${got.unsupported}, which schema.prisma cannot declare`);
      if (problems.length > 0) out.push(`index ${indexName} on ${tableName}: ${problems.join("; ")}`);
    }
    for (const [indexName, index] of have.indexes) {
      if (want.indexes.has(indexName) || index.sqlOnly) continue;
      out.push(
        `${describeIndex(index)} on ${tableName}: not in schema.prisma (declare it, or COMMENT ON INDEX ... IS '${SQL_ONLY_MARK}: why')`,
      );
    }
    const key = (fk: ForeignKeyShape) => fk.columns.join(",");
    for (const fk of want.foreignKeys) {
      const got = have.foreignKeys.find((f) => key(f) === key(fk));
      if (!got) {
        out.push(`foreign key ${tableName}${describeForeignKey(fk)}: missing in the database`);
      } else if (describeForeignKey(got) !== describeForeignKey(fk)) {
        out.push(
          `foreign key ${got.name} on ${tableName}: ${describeForeignKey(got)} in the database, ${describeForeignKey(fk)} in schema.prisma`,
        );
      }
    }
    for (const fk of have.foreignKeys) {
      if (!want.foreignKeys.some((f) => key(f) === key(fk))) {
        out.push(`foreign key ${fk.name} on ${tableName} ${describeForeignKey(fk)}: not in schema.prisma`);
      }
    }
  }
  for (const [tableName, table] of actual) {
    if (!expected.has(tableName) && !table.sqlOnly) out.push(`table ${tableName}: not in schema.prisma`);
  }
  return out.sort();
}
