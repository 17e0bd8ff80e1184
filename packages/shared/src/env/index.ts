import { z } from "zod";

/**
 * Settings every process reads. Services extend this schema with their own keys
 * (`baseEnvSchema.extend({...})`) and parse once in `main.ts` with {@link loadEnv}.
 */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  HOST: z.string().min(1).default("127.0.0.1"),
});

/** A boolean setting written `true` or `false` (never coerced from arbitrary strings). */
export function booleanFlag(defaultValue: boolean) {
  return z
    .enum(["true", "false"])
    .default(defaultValue ? "true" : "false")
    .transform((v) => v === "true");
}

/** A TCP port setting with a default. */
export function portSetting(defaultValue: number) {
  return z.coerce.number().int().min(0).max(65535).default(defaultValue);
}

/** A PostgreSQL connection URL setting. */
export const databaseUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
  .default("postgresql://postgres@127.0.0.1:5432/tmi");

/** An EVM address setting (`0x` and 40 hex digits, any case), lowercased. */
export const addressSetting = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((v) => v.toLowerCase() as `0x${string}`);

/** A Redis connection URL setting. */
export const redisUrl = z
  .string()
  .regex(/^rediss?:\/\//, "must be a redis:// URL")
  .default("redis://127.0.0.1:6379");

/** Thrown by {@link parseEnv} with every problem of the environment at once. */
export class EnvError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
    this.problems = problems;
  }
}

/**
 * Parses `source` (default `process.env`) with `schema`. Empty strings count as unset.
 * Returns a frozen object; throws {@link EnvError} listing all problems.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined> = process.env,
): Readonly<z.output<S>> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new EnvError(result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`));
  }
  return Object.freeze(result.data);
}

/** {@link parseEnv} for process entries: prints every problem and exits with status 1. */
export function loadEnv<S extends z.ZodType>(schema: S): Readonly<z.output<S>> {
  try {
    return parseEnv(schema);
  } catch (error) {
    if (error instanceof EnvError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
export * from "./networks.js";
export * from "./service-ports.js";
