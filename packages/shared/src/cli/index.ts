import { type ParseArgsConfig, parseArgs } from "node:util";
import { databaseUrl } from "../env/index.js";

/** The options of an operator CLI, as `node:util` `parseArgs` takes them (`--help`/`-h` is added). */
export type OperatorCliOptions = NonNullable<ParseArgsConfig["options"]>;

/**
 * Writes `message` to stderr and exits with `status`: 2 (the default) for a usage error, which
 * also prints the usage text, 1 for a failure of the work itself. Declare the variable with this
 * type (`const fail: CliFail = cli.fail`) so TypeScript narrows after a call.
 */
export type CliFail = (message: string, status?: 1 | 2) => never;

/** What {@link operatorCli} hands to a command: parsed values, positionals and the exits. */
export interface OperatorCli<T extends OperatorCliOptions> {
  /** Option values (`parseArgs` `values`; `help` already handled). */
  values: ReturnType<typeof parseArgs<{ options: T; allowPositionals: true }>>["values"];
  /** Positional arguments (the command first); a lone `--` (pnpm's separator) is dropped. */
  positionals: string[];
  /** See {@link CliFail}. */
  fail: CliFail;
  /** `DATABASE_URL` (default `postgresql://postgres@127.0.0.1:5432/tmi`); exits 1 when it is not a postgres URL. */
  databaseUrl(): string;
  /** The last line of an error's message (Prisma's messages start with the call site; the cause is last). */
  cause(error: unknown): string;
}

/**
 * The shared front of the operator CLIs (`pnpm api-keys`, `pnpm exclusions`, `pnpm metadata`):
 * parses `process.argv` with `options` (strict: an unknown option is a usage error), prints
 * `usage` and exits 0 on `--help`/`-h`, and gives the command its arguments and the exit rules
 * (0 done, 1 failure, 2 usage). `usage` should end with the environment the command reads.
 */
export function operatorCli<T extends OperatorCliOptions>(usage: string, options: T): OperatorCli<T> {
  const fail: CliFail = (message, status = 2) => {
    process.stderr.write(`${message}\n${status === 2 ? `${usage}\n` : ""}`);
    process.exit(status);
  };
  let parsed: ReturnType<typeof parseArgs<{ options: T; allowPositionals: true }>>;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2).filter((arg) => arg !== "--"),
      allowPositionals: true,
      options: { ...options, help: { type: "boolean", short: "h" } } as T,
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  if ((parsed.values as Record<string, unknown>).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return {
    values: parsed.values,
    positionals: parsed.positionals,
    fail,
    databaseUrl() {
      const url = databaseUrl.safeParse(process.env.DATABASE_URL || undefined);
      return url.success ? url.data : fail("DATABASE_URL must be a postgres:// or postgresql:// URL", 1);
    },
    cause(error: unknown) {
      const lines = (error instanceof Error ? error.message : String(error)).trim().split("\n");
      return lines[lines.length - 1] ?? "";
    },
  };
}
