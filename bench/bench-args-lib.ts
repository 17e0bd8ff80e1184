// The command line of every `pnpm bench <name>`: `--key=value` options and `--flag`s.

/** The options of a bench run, read from `process.argv`. */
export interface BenchArgs {
  /** Whether `--key` (with or without a value) was given. */
  has(key: string): boolean;
  /** The value of `--key=value` (`"true"` for a bare `--key`), or undefined. */
  get(key: string): string | undefined;
  /** `--key` as a number, or `fallback` when absent. */
  num(key: string, fallback: number): number;
  /** `--only=a,b`: the names to run (undefined: all). */
  only: string[] | undefined;
}

/** Parses `--key=value` and `--flag` arguments (default: `process.argv` after the script). */
export function parseBenchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  const args = new Map(
    argv.map((arg) => {
      const [key, value] = arg.replace(/^--/, "").split("=");
      return [key ?? "", value ?? "true"] as const;
    }),
  );
  return {
    has: (key) => args.has(key),
    get: (key) => args.get(key),
    num: (key, fallback) => (args.has(key) ? Number(args.get(key)) : fallback),
    only: args.get("only")?.split(","),
  };
}
