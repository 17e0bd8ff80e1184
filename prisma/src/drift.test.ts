import { describe, expect, it } from "vitest";
import { schemaShapeFromPrisma } from "./check.js";
import {
  compareSchemas,
  parsePgDefault,
  prismaDefaultName,
  type SchemaShape,
  type TableShape,
} from "./drift.js";

const SCHEMA = `
datasource db {
  provider = "postgresql"
}
model Parent {
  id        BigInt   @id @default(autoincrement())
  createdAt DateTime @default(now()) @map("created_at") @db.Timestamptz(3)
  children  Child[]
  @@map("parents")
}
model Child {
  parentId BigInt  @map("parent_id")
  rank     Int
  label    String  @default("x")
  amount   Decimal @default(0) @db.Decimal(78, 0)
  note     String? @unique
  data     Json    @db.JsonB
  parent   Parent  @relation(fields: [parentId], references: [id], onDelete: Cascade)
  @@id([parentId, rank])
  @@index([label(ops: raw("text_pattern_ops")), rank(sort: Desc)], map: "children_label_idx")
  @@map("children")
}
`;

function cloneShape(shape: SchemaShape): SchemaShape {
  const copy: SchemaShape = new Map();
  for (const [name, table] of shape) {
    const t: TableShape = {
      columns: new Map([...table.columns].map(([k, v]) => [k, { ...v }])),
      indexes: new Map(
        [...table.indexes].map(([k, v]) => [k, { ...v, columns: v.columns.map((c) => ({ ...c })) }]),
      ),
      foreignKeys: table.foreignKeys.map((f) => ({ ...f })),
    };
    copy.set(name, t);
  }
  return copy;
}

describe("schemaShapeFromPrisma", () => {
  it("default", () => {
    const shape = schemaShapeFromPrisma(SCHEMA);
    expect([...shape.keys()]).toEqual(["parents", "children"]);
    const children = shape.get("children");
    expect(children?.columns.get("parent_id")).toEqual({
      type: "bigint",
      notNull: true,
      default: { kind: "none" },
    });
    expect(children?.columns.get("label")?.default).toEqual({ kind: "literal", value: "x" });
    expect(children?.columns.get("amount")).toEqual({
      type: "numeric(78,0)",
      notNull: true,
      default: { kind: "literal", value: "0" },
    });
    expect(children?.columns.get("note")?.notNull).toBe(false);
    expect(children?.columns.get("data")?.type).toBe("jsonb");
    expect(shape.get("parents")?.columns.get("created_at")).toEqual({
      type: "timestamp(3) with time zone",
      notNull: true,
      default: { kind: "now" },
    });
    expect(shape.get("parents")?.columns.get("id")?.default).toEqual({ kind: "autoincrement" });
    expect([...(children?.indexes.keys() ?? [])].sort()).toEqual([
      "children_label_idx",
      "children_note_key",
      "children_pkey",
    ]);
    expect(children?.indexes.get("children_label_idx")?.columns).toEqual([
      { column: "label", desc: false, opclass: "text_pattern_ops" },
      { column: "rank", desc: true, opclass: null },
    ]);
    expect(children?.foreignKeys).toEqual([
      {
        name: "children_parent_id_fkey",
        columns: ["parent_id"],
        referencedTable: "parents",
        referencedColumns: ["id"],
        onDelete: "cascade",
        onUpdate: "cascade",
      },
    ]);
  });

  it("error: an invalid schema is reported with Prisma's message", () => {
    expect(() => schemaShapeFromPrisma(`${SCHEMA}\nmodel Broken { id Nope @id }`)).toThrow(
      /schema.prisma is invalid/,
    );
  });
});

describe("compareSchemas", () => {
  it("default", () => {
    const expected = schemaShapeFromPrisma(SCHEMA);
    expect(compareSchemas(expected, cloneShape(expected))).toEqual([]);
  });

  it("behavior: every kind of difference is reported", () => {
    const expected = schemaShapeFromPrisma(SCHEMA);
    const actual = cloneShape(expected);
    const children = actual.get("children") as TableShape;
    children.columns.set("amount", { type: "text", notNull: false, default: { kind: "none" } });
    children.columns.set("extra", { type: "integer", notNull: false, default: { kind: "none" } });
    children.columns.delete("data");
    children.indexes.delete("children_label_idx");
    children.indexes.set("children_label_wrong_idx", {
      name: "children_label_wrong_idx",
      kind: "normal",
      method: "btree",
      columns: [
        { column: "label", desc: false, opclass: "text_pattern_ops" },
        { column: "rank", desc: true, opclass: null },
      ],
    });
    const fk = children.foreignKeys[0];
    if (fk) fk.onDelete = "restrict";
    actual.delete("parents");
    actual.set("stray", { columns: new Map(), indexes: new Map(), foreignKeys: [] });
    actual.set("allowed", { columns: new Map(), indexes: new Map(), foreignKeys: [], sqlOnly: true });
    const lines = compareSchemas(expected, actual);
    expect(lines).toEqual([
      'column children.amount: no default in the database, default "0" in schema.prisma',
      "column children.amount: nullable in the database, required in schema.prisma",
      "column children.amount: type is text in the database, numeric(78,0) in schema.prisma",
      "column children.data: missing in the database",
      "column children.extra: not in schema.prisma",
      "foreign key children_parent_id_fkey on children: (parent_id) → parents(id) ON DELETE RESTRICT ON UPDATE CASCADE in the database, (parent_id) → parents(id) ON DELETE CASCADE ON UPDATE CASCADE in schema.prisma",
      "index children_label_idx (label text_pattern_ops, rank DESC) on children: missing in the database (the database has children_label_wrong_idx on the same columns: wrong name?)",
      "index children_label_wrong_idx (label text_pattern_ops, rank DESC) on children: not in schema.prisma (declare it, or COMMENT ON INDEX ... IS 'sql-only: why')",
      "table parents: missing in the database (declared by model Parent)",
      "table stray: not in schema.prisma",
    ]);
  });

  it("behavior: sort order, operator class and kind of an index are compared", () => {
    const expected = schemaShapeFromPrisma(SCHEMA);
    const actual = cloneShape(expected);
    const index = actual.get("children")?.indexes.get("children_label_idx");
    if (!index) throw new Error("fixture");
    index.columns = [
      { column: "label", desc: false, opclass: null },
      { column: "rank", desc: false, opclass: null },
    ];
    index.kind = "unique";
    expect(compareSchemas(expected, actual)).toEqual([
      "index children_label_idx on children: it is a unique index, schema.prisma declares normal; columns (label, rank), schema.prisma (label text_pattern_ops, rank DESC)",
    ]);
  });
});

describe("parsePgDefault", () => {
  it("default", () => {
    expect(parsePgDefault(null)).toEqual({ kind: "none" });
    expect(parsePgDefault("nextval('t_id_seq'::regclass)")).toEqual({ kind: "autoincrement" });
    expect(parsePgDefault(null, true)).toEqual({ kind: "autoincrement" });
    expect(parsePgDefault("CURRENT_TIMESTAMP")).toEqual({ kind: "now" });
    expect(parsePgDefault("now()")).toEqual({ kind: "now" });
    expect(parsePgDefault("'curve'::text")).toEqual({ kind: "literal", value: "curve" });
    expect(parsePgDefault("'it''s'::text")).toEqual({ kind: "literal", value: "it's" });
    expect(parsePgDefault("0")).toEqual({ kind: "literal", value: "0" });
    expect(parsePgDefault("'0'::numeric")).toEqual({ kind: "literal", value: "0" });
    expect(parsePgDefault("(-1)")).toEqual({ kind: "literal", value: "-1" });
    expect(parsePgDefault("1.50")).toEqual({ kind: "literal", value: "1.5" });
    expect(parsePgDefault("false")).toEqual({ kind: "literal", value: "false" });
    expect(parsePgDefault("gen_random_uuid()")).toEqual({ kind: "expression", text: "gen_random_uuid()" });
  });
});

describe("prismaDefaultName", () => {
  it("default", () => {
    expect(prismaDefaultName("tokens", ["pool_address"], "key")).toBe("tokens_pool_address_key");
    expect(prismaDefaultName("tokens", [], "pkey")).toBe("tokens_pkey");
    const long = prismaDefaultName("a".repeat(40), ["b".repeat(40)], "key");
    expect(long).toHaveLength(63);
    expect(long.endsWith("_key")).toBe(true);
  });
});
