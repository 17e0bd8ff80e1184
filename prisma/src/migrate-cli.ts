// `pnpm db:migrate`: applies the pending SQL migrations to DATABASE_URL
// (default postgresql://postgres@127.0.0.1:5432/tmi), creating the database if needed.
import { DEFAULT_DATABASE_URL, migrate } from "./migrate.js";

const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const logger = {
  info: (message: string) => console.log(`[db:migrate] ${message}`),
  warn: (message: string) => console.warn(`[db:migrate] ${message}`),
  error: (message: string) => console.error(`[db:migrate] ${message}`),
  debug:
    process.env.LOG_LEVEL === "debug"
      ? (message: string) => console.log(`[db:migrate] ${message}`)
      : undefined,
};

try {
  await migrate({ databaseUrl, logger });
} catch (error) {
  console.error(`[db:migrate] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
