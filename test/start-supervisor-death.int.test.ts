// `pnpm start` killed with SIGKILL (no chance to stop anything): every child stops by itself, the
// devnet saving its state, and every port is free again — no orphaned gateway answers the next
// start. The read replica (a `postgres`, not a Node program) is among the children. Own ports,
// PostgreSQL cluster, data folder and queue prefix: runs beside the other integration tests.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresCluster, startPostgresCluster, WORKSPACE_ROOT, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./src/system.js";

const dataDir = mkdtempSync(join(tmpdir(), "tmi-start-death-"));
let primary: PostgresCluster;
let child: ChildProcess | undefined;
let text = "";
let env: Record<string, string>;
/** The children of the run (start.json), for the cleanup of a failed test. */
let pids: Record<string, number> = {};

/** True while `pid` runs (a zombie has stopped: nothing may reap the orphans of a killed supervisor). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** True when nothing listens on `port` of 127.0.0.1 (it can be bound). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

beforeAll(async () => {
  primary = await startPostgresCluster();
  env = {
    TMI_DATA_DIR: dataDir,
    DATABASE_URL: primary.url("tmi"),
    QUEUE_PREFIX: `tmi-test-start-death-${process.pid}`,
    DEVNET_PORT: String(await freePort()),
    GATEWAY_PORT: String(await freePort()),
    QUERY_API_PORT: String(await freePort()),
    METADATA_API_PORT: String(await freePort()),
    ORACLE_PRICE_PORT: String(await freePort()),
    INDEXER_PORT: String(await freePort()),
    READ_REPLICA_PORT: String(await freePort()),
    READ_REPLICA: "1",
    SIMULATE: "false",
    NO_COLOR: "1",
  };
  const base = { ...process.env };
  // A real chain's settings in the caller's environment would switch modes.
  for (const key of [
    "RPC_URL",
    "FACTORY_ADDRESS",
    "NETWORK",
    "CHAIN_ID",
    "START_BLOCK",
    "VERBOSE",
    "DEVNET_CHAIN_ID",
  ])
    delete base[key];
  child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: WORKSPACE_ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const collect = (chunk: Buffer) => {
    text += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const outcome = await waitFor(
    () => (child?.exitCode !== null ? "exited" : text.includes("Stop: Ctrl-C") ? "ready" : undefined),
    { timeoutMs: 300_000, intervalMs: 250, message: "pnpm start not ready" },
  ).catch(() => "timeout");
  if (outcome !== "ready") throw new Error(`pnpm start ${outcome} (${child?.exitCode}):\n${text}`);
  pids = JSON.parse(readFileSync(join(dataDir, "start.json"), "utf8")).pids;
}, 330_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 60_000))]);
  }
  // A failed test must not leave processes behind: each child's process group, by its id.
  for (const pid of Object.values(pids))
    if (pid > 0 && running(pid))
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
  await primary?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe("pnpm start killed with SIGKILL", () => {
  it("behavior: every child stops, the devnet saves its state, and every port is free", async () => {
    const names = Object.keys(pids);
    expect(names).toEqual(
      expect.arrayContaining([
        "devnet",
        "read-replica",
        "indexer",
        "query-api",
        "metadata-api",
        "worker",
        "oracle-price",
        "gateway",
      ]),
    );
    for (const pid of Object.values(pids)) expect(running(pid)).toBe(true);
    const ports = [
      "DEVNET_PORT",
      "GATEWAY_PORT",
      "QUERY_API_PORT",
      "METADATA_API_PORT",
      "ORACLE_PRICE_PORT",
      "INDEXER_PORT",
      "READ_REPLICA_PORT",
    ].map((key) => Number(env[key]));
    for (const port of ports) expect(await portIsFree(port)).toBe(false);

    const killedAt = Date.now();
    (child as ChildProcess).kill("SIGKILL");
    await once(child as ChildProcess, "exit");

    await waitFor(
      () => {
        const left = Object.entries(pids).filter(([, pid]) => running(pid));
        if (left.length) throw new Error(`still running: ${JSON.stringify(left)}`);
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 250, message: "children outlived the supervisor" },
    );
    await waitFor(async () => (await Promise.all(ports.map(portIsFree))).every(Boolean), {
      timeoutMs: 60_000,
      intervalMs: 250,
      message: "a port is still taken",
    });
    // The devnet stopped as on Ctrl-C: anvil wrote its state on the way out.
    expect(statSync(join(dataDir, "devnet/state.json")).mtimeMs).toBeGreaterThanOrEqual(killedAt);
  }, 240_000);
});
