import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/** Root of the workspace (where `services/` lives). */
export const WORKSPACE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A service started as its own process by {@link startServiceProcess}. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process printed (stdout and stderr), for assertions and failure messages. */
  output(): string;
  /** Sends SIGTERM (or `signal`) and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Sends SIGKILL and waits for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts `services/<service>/src/<entry>.ts` in a child process from TypeScript sources
 * (tsx, workspace packages resolved through the `tmi-source` export condition), with
 * `env` added to the current environment. Nothing is built first. With `compiled`, runs the
 * built `services/<service>/dist/<entry>.js` with plain node instead, as deployed (`pnpm build`
 * first): no loader transpiling modules at start, which a benchmark counting the process' CPU
 * from its start would otherwise include.
 */
export function startServiceProcess(options: {
  service: string;
  entry?: string;
  env: Record<string, string | undefined>;
  /** Also mirror the output to this process' stderr (debugging). */
  echo?: boolean;
  /** Run the built JavaScript (`dist/`) instead of the TypeScript sources. */
  compiled?: boolean;
}): ServiceProcess {
  const name = options.entry ?? "main";
  const args = options.compiled
    ? [`services/${options.service}/dist/${name}.js`]
    : ["--conditions=tmi-source", "--import", "tsx", `services/${options.service}/src/${name}.ts`];
  const child = spawn(process.execPath, args, {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buffer = "";
  const collect = (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    if (buffer.length > 2_000_000) buffer = buffer.slice(-1_000_000);
    if (options.echo) process.stderr.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return {
    child,
    output: () => buffer,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * Polls `check` every `intervalMs` until it returns a truthy value, then returns it.
 * @throws Error with `message` (and the last error) after `timeoutMs`.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as T;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${options.message ?? "condition not met"} (timed out)${lastError ? `: ${String(lastError)}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
}

/**
 * Returns `resource` once `ready(resource)` resolves; when it throws, releases the resource with
 * `release` (whose own error is ignored) and rethrows: a resource is handed out ready or not at all.
 */
export async function readyOrReleased<T>(
  resource: T,
  ready: (resource: T) => Promise<unknown>,
  release: (resource: T) => Promise<unknown>,
): Promise<T> {
  try {
    await ready(resource);
  } catch (error) {
    await release(resource).catch(() => undefined);
    throw error;
  }
  return resource;
}
