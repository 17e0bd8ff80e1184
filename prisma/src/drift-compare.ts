// The comparison of the drift check: every difference between two schema shapes, as messages.
import {
  type DefaultValue,
  type ForeignKeyShape,
  type IndexColumn,
  type IndexShape,
  type SchemaShape,
  SQL_ONLY_MARK,
} from "./drift-shape.js";

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
