// @tmi/db: the one database schema (schema.prisma), its committed SQL migrations, and the
// factories of the clients every service uses.
//
// - createDb / createReadOnlyDb: Prisma 7 clients (driver adapter @prisma/adapter-pg).
// - createPgPool: a plain pg.Pool (int8 → bigint, numeric → string) for hot paths and bulk writes.
// - migrate: applies prisma/migrations/*.sql (node-pg-migrate), creating the database if needed.
// - Generated types: PrismaClient, Prisma (Prisma.Decimal, input types), model types (Token, Trade, ...).

export * from "./client.js";
export * from "./generated/client.js";
export * from "./migrate.js";
export * from "./pool.js";
