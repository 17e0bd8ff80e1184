import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** anvil processes started here and still running: killed when this process exits. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const c of live) c.kill("SIGKILL");
  });
}

/**
 * Path of the anvil binary shipped by the `@foundry-rs/anvil` npm package (platform package
 * `@foundry-rs/anvil-<os>-<arch>`, e.g. `@foundry-rs/anvil-linux-amd64`).
 * @throws Error when the platform package is not installed.
 */
export function anvilBinaryPath(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const anvilDir = dirname(require.resolve("@foundry-rs/anvil/package.json"));
  const pkgJson = require.resolve(`${platformPackage}/package.json`, { paths: [anvilDir] });
  return join(dirname(pkgJson), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

/** A running anvil process. */
export interface AnvilProcess {
  rpcUrl: string;
  port: number;
  child: ChildProcess;
  /** Everything anvil printed (bounded). */
  output(): string;
  /** SIGTERM (anvil then dumps `--state`), waits for the exit; SIGKILL after 10 s (120 s with a state file). */
  stop(): Promise<void>;
}

/** Options of {@link startAnvil}. */
export interface AnvilOptions {
  /** TCP port on 127.0.0.1; 0 (default) lets the OS pick a free one. */
  port?: number;
  chainId?: number;
  /** Seconds between blocks (interval mining); "automine" (default) mines one block per transaction. */
  blockTime?: number | "automine";
  /** anvil `--state`: load the chain from this file if it exists, dump it there on exit. */
  stateFile?: string;
  /** Seconds between periodic state dumps (with `stateFile`; default 120: big histories dump slowly). */
  stateInterval?: number;
  /** Number of funded dev accounts (default 10). */
  accounts?: number;
  /** Block gas limit (default anvil's). */
  gasLimit?: bigint;
  /** Mirror anvil's output to this process' stderr. */
  echo?: boolean;
  /** Genesis block timestamp (Unix seconds; anvil --timestamp): the chain's clock starts there. */
  timestamp?: number;
  /** Extra command line arguments. */
  args?: string[];
  /** How long anvil may take to listen (default 30 s; loading a big `--load-state` takes longer). */
  startTimeoutMs?: number;
}

/**
 * Starts anvil on 127.0.0.1 and resolves once it listens (the port is read from its banner, so
 * port 0 works). Uses anvil's default mnemonic.
 * @throws Error when anvil exits or does not listen within `startTimeoutMs` (default 30 s).
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilProcess> {
  const args = ["--host", "127.0.0.1", "--port", String(options.port ?? 0)];
  args.push("--chain-id", String(options.chainId ?? 31337));
  args.push("--accounts", String(options.accounts ?? 10));
  if (options.blockTime !== undefined && options.blockTime !== "automine") {
    args.push("--block-time", String(options.blockTime));
  }
  if (options.stateFile) {
    args.push("--state", options.stateFile, "--state-interval", String(options.stateInterval ?? 120));
  }
  if (options.timestamp !== undefined) args.push("--timestamp", String(options.timestamp));
  if (options.gasLimit) args.push("--gas-limit", options.gasLimit.toString());
  args.push(...(options.args ?? []));
  const child = spawn(anvilBinaryPath(), args, { stdio: ["ignore", "pipe", "pipe"] });
  // No orphaned anvil when the owner exits without stop() (crash, process.exit, test worker end).
  killOnExit(child);
  let buffer = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`anvil did not start within ${timeoutMs / 1000} s:\n${buffer.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      if (buffer.length > 200_000) buffer = buffer.slice(-100_000);
      if (options.echo) process.stderr.write(chunk);
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited (${code ?? signal}) before listening:\n${buffer.slice(-2000)}`));
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    port,
    child,
    output: () => buffer,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), options.stateFile ? 120_000 : 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
