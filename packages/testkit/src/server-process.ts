// Owner: scale. The operating-system side of the test servers of `postgres-cluster.ts` and
// `pgbouncer.ts`: binaries, free ports, the `postgres` user when running as root, owned folders,
// and what to stop when the process exits.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Folder of the PostgreSQL server binaries (`PG_BIN`, default Debian's PostgreSQL 15). */
export function postgresBinDir(): string {
  return process.env.PG_BIN || "/usr/lib/postgresql/15/bin";
}

/** Path of the PgBouncer binary (`PGBOUNCER_BIN`, default Debian's `/usr/sbin/pgbouncer`). */
export function pgBouncerBin(): string {
  return process.env.PGBOUNCER_BIN || "/usr/sbin/pgbouncer";
}

/** Ports tests hand out: below Linux's default ephemeral range (32768–60999). */
const TEST_PORT_LOW = 20_000;
const TEST_PORT_HIGH = 32_000;

/** True when `port` on 127.0.0.1 can be bound now (bound, then released). */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port nothing listens on right now, for a server a test starts later. Drawn at random below
 * the kernel's ephemeral range, so the outgoing connections of the other tests running in parallel
 * (which take their local ports from that range) cannot take it between this call and the server's
 * `listen` — the race a kernel-chosen port (`listen(0)`) had under load (`EADDRINUSE` in `pnpm start`).
 * Falls back to a kernel-chosen port after 50 taken draws.
 */
export async function freeTcpPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = TEST_PORT_LOW + Math.floor(Math.random() * (TEST_PORT_HIGH - TEST_PORT_LOW));
    if (await canBind(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** True when this process runs as root (the servers then run as `postgres`). */
export const isRoot = () => process.getuid?.() === 0;
let postgresIds: { uid: number; gid: number } | undefined;

/** uid/gid of the `postgres` user (servers refuse to run as root). */
function postgresUser(): { uid: number; gid: number } {
  if (postgresIds) return postgresIds;
  const id = (flag: string) => {
    const result = spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
    if (result.status !== 0) throw new Error("running as root needs a `postgres` user to own test clusters");
    return Number(result.stdout.trim());
  };
  postgresIds = { uid: id("-u"), gid: id("-g") };
  return postgresIds;
}

/**
 * Runs a PostgreSQL/PgBouncer command as `postgres` when this process is root (`runuser`), else
 * as is; returns its stdout. @throws naming `what`, with the end of its output, when it fails or
 * outlasts 2 minutes.
 */
export function runAsServerUser(command: string, args: string[], what: string): string {
  const [cmd, argv] = isRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const result = spawnSync(cmd as string, argv as string[], { encoding: "utf8", timeout: 120_000 });
  if (result.error || result.status !== 0) {
    throw new Error(
      `${what} failed (${result.error?.message ?? `exit ${result.status}`}): ${`${result.stdout}\n${result.stderr}`.trim().slice(-2000)}`,
    );
  }
  return result.stdout;
}

/** A new folder under the OS temp folder named `prefix…`, readable by the server's user (0755). */
export function tempRoot(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(root, 0o755);
  return root;
}

/** A folder owned by the server's user (mode 0700, as PostgreSQL requires for data folders). */
export function ownedDir(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(parent, uid, gid);
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

/** Writes `text` to `file`, owned by the server's user when this process is root. */
export function writeAsOwner(file: string, text: string): void {
  writeFileSync(file, text);
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(file, uid, gid);
  }
}

/** `key = value` lines of a configuration file (values as written there). */
export function settingLines(settings: Record<string, string>): string[] {
  return Object.entries(settings).map(([k, v]) => `${k} = ${v}`);
}

/** The process id in a pid file (0 when the file is missing or empty). */
export function pidIn(file: string): number {
  try {
    return Number(readFileSync(file, "utf8").trim() || "0");
  } catch {
    return 0;
  }
}

/** The last `chars` characters of a log file ("" when there is none). */
export function logTail(file: string, chars: number): string {
  return spawnSync("tail", ["-c", String(chars), file], { encoding: "utf8" }).stdout ?? "";
}

const atExit = new Set<() => void>();
let exitHookInstalled = false;

/**
 * Runs `stop` (synchronous, errors ignored) if this process exits before the returned function
 * is called: servers a test forgot are stopped, the last started first.
 */
export function stopAtExit(stop: () => void): () => void {
  atExit.add(stop);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const step of [...atExit].reverse()) {
        try {
          step();
        } catch {}
      }
    });
  }
  return () => atExit.delete(stop);
}
