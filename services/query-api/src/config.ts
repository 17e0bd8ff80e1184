import { baseEnvSchema, databaseUrl, parseEnv, portSetting } from "@tmi/shared/env";
import { z } from "zod";

/** Cursor secret used outside production when `CURSOR_SECRET` is unset (never in production). */
export const DEV_CURSOR_SECRET = "tmi-dev-cursor-secret-not-for-production";

/**
 * Environment of query-api (`services/query-api/src/main.ts`):
 * `PORT` (3001), `DATABASE_URL`, `DATABASE_READ_URL` (read replica, falls back to `DATABASE_URL`),
 * `CURSOR_SECRET` (≥ 16 characters; required when `NODE_ENV=production`), `CORS_ORIGINS`
 * (`*` or a comma-separated list of origins, default `*`), `DB_POOL_MAX` (default 10).
 */
export const queryApiEnvSchema = baseEnvSchema
  .extend({
    PORT: portSetting(3001),
    DATABASE_URL: databaseUrl,
    DATABASE_READ_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
      .optional(),
    CURSOR_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
    CORS_ORIGINS: z.string().default("*"),
    DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && env.CURSOR_SECRET === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["CURSOR_SECRET"],
        message: "is required when NODE_ENV=production",
      });
    }
  });

/** What `buildApp` needs from the configuration. */
export interface QueryApiConfig {
  /** HMAC key of pagination cursors. */
  cursorSecret: string;
  /** `"*"` (any origin) or the allowed origins. */
  corsOrigins: "*" | string[];
}

/** The whole process configuration (`main.ts`). */
export interface QueryApiSettings extends QueryApiConfig {
  nodeEnv: "development" | "production" | "test";
  logLevel: string;
  host: string;
  port: number;
  databaseUrl: string;
  /** The read replica (or `databaseUrl` when `DATABASE_READ_URL` is unset). */
  databaseReadUrl: string;
  poolMax: number;
  /** True when `CURSOR_SECRET` was unset and {@link DEV_CURSOR_SECRET} is used (warned about at start). */
  cursorSecretIsDefault: boolean;
}

/** Parses `CORS_ORIGINS`: `*` or comma-separated origins (blank entries dropped). */
export function parseCorsOrigins(value: string): "*" | string[] {
  const trimmed = value.trim();
  if (trimmed === "*" || trimmed === "") return "*";
  return trimmed
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0);
}

/**
 * Parses the environment (`source`, default `process.env`) into {@link QueryApiSettings}.
 * @throws EnvError listing every problem.
 */
export function loadQueryApiSettings(
  source: Record<string, string | undefined> = process.env,
): QueryApiSettings {
  const env = parseEnv(queryApiEnvSchema, source);
  return Object.freeze({
    nodeEnv: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    host: env.HOST,
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    databaseReadUrl: env.DATABASE_READ_URL ?? env.DATABASE_URL,
    poolMax: env.DB_POOL_MAX,
    cursorSecret: env.CURSOR_SECRET ?? DEV_CURSOR_SECRET,
    cursorSecretIsDefault: env.CURSOR_SECRET === undefined,
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
  });
}
