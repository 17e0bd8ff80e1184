// The shape of a database schema as the drift check compares it (schema.prisma's expectation
// and the database's actual shape alike), and the normalization both sides share.

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

/** A COMMENT starting with this marks a table or index as SQL-only: allowed by the check. */
export const SQL_ONLY_MARK = "sql-only";

/** A default literal as compared: numbers by value (`0.0` → `0`, `-0` → `0`), anything else as is. */
export function normalizeLiteral(value: string): string {
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
