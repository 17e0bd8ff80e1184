// Drift check between schema.prisma and the database the SQL migrations produce, by concern:
// - drift-shape.ts: the compared shape (tables, columns, defaults, indexes, foreign keys);
// - drift-expected.ts: the shape schema.prisma declares, from Prisma's DMMF (pure);
// - drift-database.ts: the shape the database has, from pg_catalog (I/O);
// - drift-compare.ts: the differences between the two, as messages (pure).

export * from "./drift-compare.js";
export * from "./drift-database.js";
export * from "./drift-expected.js";
export * from "./drift-shape.js";
