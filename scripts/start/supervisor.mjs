// Process supervision of `pnpm start`: starts each child, logs its lines, restarts a dead service
// once the system is ready, and stops everything in order on Ctrl-C / SIGTERM / SIGHUP.
//
// Each child runs in a process group of its own (a terminal Ctrl-C reaches only the supervisor,
// which then stops the children in order) and holds an IPC channel to the supervisor. The kernel
// closes that channel however the supervisor ends, `kill -9` included: a Node child loads
// exit-with-supervisor.mjs, other commands run under supervised-command.mjs, and either stops its
// process group when the channel closes. No child outlives the supervisor holding a port.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { formatLine, paint, say, tag, tail, warn } from "./output.mjs";
import { LOG_DIR, ROOT, VERBOSE } from "./settings.mjs";

const EXIT_WITH_SUPERVISOR = new URL("./exit-with-supervisor.mjs", import.meta.url).href;
const SUPERVISED_COMMAND = new URL("./supervised-command.mjs", import.meta.url).pathname;

/**
 * A supervised child: its name (also its log file's), the running process, a promise of its exit
 * code, and how it stops.
 * @typedef {{ name: string, child: import("node:child_process").ChildProcess, exited: Promise<number | null>,
 *   file: string, critical: boolean, stopSignal: NodeJS.Signals, graceMs: number, restarts: number,
 *   retired?: boolean }} Child
 */

/** @type {Map<string, Child>} */
const children = new Map();
let stopping = false;
let systemReady = false;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** True once a shutdown began (waits give up). */
export const isStopping = () => stopping;

/** From now on a service process that dies is restarted with backoff instead of stopping the start. */
export function markReady() {
  systemReady = true;
}

/** The supervised child `name`, if started. */
export const childOf = (name) => children.get(name);

/** Process ids by child name (written to `<data>/start.json`). */
export const childPids = () => Object.fromEntries([...children].map(([name, c]) => [name, c.child.pid]));

function logFileOf(name) {
  const file = join(LOG_DIR, `${name}.log`);
  // Keep one previous log of each process; each run starts a fresh file.
  if (existsSync(file)) renameSync(file, `${file}.1`);
  return file;
}

/**
 * Starts `command args` as a supervised child. A Node child (`command` is this Node binary) loads
 * exit-with-supervisor.mjs; any other command runs under supervised-command.mjs. Output goes to
 * `<data>/logs/<name>.log`; error lines (every line with VERBOSE=true, or those `showLine` picks)
 * are printed too, tagged with the name. Before {@link markReady} any exit stops the start; after,
 * a non-critical child is restarted (backoff 1 s doubling to 30 s, reset after a minute up).
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} childEnv
 * @param {{ critical?: boolean, stopSignal?: NodeJS.Signals, graceMs?: number, showLine?: (line: string) => boolean }} [options]
 *   `graceMs`: how long a stop may take before the process group is killed (default 12 s).
 * @returns {Child}
 */
export function startChild(name, command, args, childEnv, options = {}) {
  const { critical = true, stopSignal = "SIGTERM", graceMs = 12_000, showLine } = options;
  const file = logFileOf(name);
  const [program, argv] =
    command === process.execPath
      ? [command, ["--import", EXIT_WITH_SUPERVISOR, ...args]]
      : [process.execPath, [SUPERVISED_COMMAND, stopSignal, command, ...args]];
  // `child` and `exited` are set by spawnOnce below, before the entry is used.
  /** @type {Child} */
  const entry = {
    name,
    child: /** @type {any} */ (undefined),
    exited: /** @type {any} */ (undefined),
    critical,
    file,
    stopSignal,
    graceMs,
    restarts: 0,
  };
  const spawnOnce = () => {
    appendFileSync(file, `# ${new Date().toISOString()} ${command} ${args.join(" ")}\n`);
    const child = spawn(program, argv, {
      cwd: ROOT,
      env: { ...childEnv, TMI_STOP_GRACE_MS: String(graceMs) },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      detached: true,
    });
    const onLine = (stream) => (line) => {
      appendFileSync(file, `${line}\n`);
      const { text, level, json } = formatLine(line, VERBOSE);
      const show =
        VERBOSE ||
        (showLine ? showLine(line) : level >= 50 || (!json && stream === "stderr" && line.trim() !== ""));
      if (show) process.stdout.write(`${tag(name)} ${text}\n`);
    };
    // Both are pipes (stdio above).
    const [stdout, stderr] =
      /** @type {[import("node:stream").Readable, import("node:stream").Readable]} */ ([
        child.stdout,
        child.stderr,
      ]);
    createInterface({ input: stdout }).on("line", onLine("stdout"));
    createInterface({ input: stderr }).on("line", onLine("stderr"));
    const exited = new Promise((done) => {
      child.once("exit", (code, signal) => done(code ?? (signal ? 128 : null)));
      child.once("error", (error) => {
        appendFileSync(file, `spawn failed: ${error.message}\n`);
        done(127);
      });
    });
    const spawnedAt = Date.now();
    entry.child = child;
    entry.exited = exited;
    exited.then((code) => {
      if (stopping || entry.child !== child || entry.retired) return;
      process.stderr.write(
        `${tag("start")} ${paint(31, `${name} exited (code ${code})`)}; last lines of ${file}:\n`,
      );
      process.stderr.write(tail(file, 15));
      if (critical || !systemReady) {
        void shutdown(1);
        return;
      }
      if (Date.now() - spawnedAt > 60_000) entry.restarts = 0;
      const delay = Math.min(30_000, 1000 * 2 ** entry.restarts);
      entry.restarts++;
      warn(`restarting ${name} in ${delay / 1000} s (restart ${entry.restarts})`);
      setTimeout(() => {
        if (!stopping) spawnOnce();
      }, delay).unref();
    });
  };
  spawnOnce();
  children.set(name, entry);
  return entry;
}

function killGroup(pid) {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {}
}

/** Sends the child its stop signal, kills its process group after its grace time, and forgets it. */
export async function stopChild(entry) {
  const { child } = entry;
  entry.retired = true;
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill(entry.stopSignal);
    } catch {}
    const timedOut = await Promise.race([
      entry.exited.then(() => false),
      sleep(entry.graceMs).then(() => true),
    ]);
    if (timedOut) {
      warn(`${entry.name} did not stop within ${entry.graceMs / 1000}s: killing it`);
      killGroup(child.pid);
      await entry.exited;
    }
  }
  // Whatever the child left behind in its process group (e.g. anvil under the devnet CLI).
  killGroup(child.pid);
  if (children.get(entry.name) === entry) children.delete(entry.name);
}

/**
 * Stops everything and exits with `code`: the gateway first (no new requests), then the other
 * services, then the read replica, then the devnet (which saves its state).
 */
export async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  say("stopping services...");
  const all = [...children.values()];
  const services = all.filter((c) => c.name !== "devnet" && c.name !== "read-replica");
  const gateway = services.find((c) => c.name === "gateway");
  if (gateway) await stopChild(gateway);
  await Promise.all(services.filter((c) => c !== gateway).map((c) => stopChild(c)));
  const replica = children.get("read-replica");
  if (replica) await stopChild(replica);
  const devnet = children.get("devnet");
  if (devnet) {
    say("stopping the devnet (saving its state)...");
    await stopChild(devnet);
  }
  say(code === 0 ? "stopped" : "stopped (after an error)");
  process.exit(code);
}

let firstSignalAt = 0;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    // One Ctrl-C can arrive twice (from the terminal and forwarded by `pnpm`/`timeout`): only a
    // signal more than a second after the first one means "kill now".
    if (firstSignalAt === 0) firstSignalAt = Date.now();
    else if (Date.now() - firstSignalAt < 1000) return;
    else {
      warn("second signal: killing everything now");
      for (const c of children.values()) killGroup(c.child.pid);
      process.exit(130);
    }
    void shutdown(0);
  });
}
// Any exit of the supervisor (fail(), an uncaught error): no child keeps running.
process.on("exit", () => {
  for (const c of children.values())
    if (c.child.exitCode === null && c.child.signalCode === null) killGroup(c.child.pid);
});
