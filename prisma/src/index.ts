// @tmi/db: the one database schema (schema.prisma), its committed SQL migrations and client factories.
export * from "./migrate.js";
