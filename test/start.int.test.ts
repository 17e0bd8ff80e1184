// `pnpm start` (scripts/start.mjs) as a user runs it: the whole system comes up on a devnet with
// simulated traders and serves indexed trades through the gateway; SIGTERM stops it cleanly; a
// restart resumes the same chain over the same database; a new chain (state removed) never runs
// over the old database; another DEVNET_CHAIN_ID is a new chain too (the saved one is set aside). Own ports, database, data folder and queue prefix: runs beside the other
// integration tests. Builds first when dist/ is stale (CI builds before the tests).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabase, testPostgresUrl, WORKSPACE_ROOT, withDatabase } from "@tmi/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./src/system.js";

const dataDir = mkdtempSync(join(tmpdir(), "tmi-start-"));
// `tmi_test_<base-36 ms>_…`: the testkit cleanup reads the creation time from the name (other names look stale).
const databaseName = `tmi_test_${Date.now().toString(36)}_start_${process.pid}`;

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

async function settings(): Promise<Record<string, string>> {
  return {
    TMI_DATA_DIR: dataDir,
    DATABASE_URL: withDatabase(testPostgresUrl(), databaseName),
    QUEUE_PREFIX: `tmi-test-start-${process.pid}`,
    DEVNET_PORT: String(await freePort()),
    GATEWAY_PORT: String(await freePort()),
    QUERY_API_PORT: String(await freePort()),
    METADATA_API_PORT: String(await freePort()),
    ORACLE_PRICE_PORT: String(await freePort()),
    INDEXER_PORT: String(await freePort()),
    NO_COLOR: "1",
  };
}

function start(env: Record<string, string>): Run {
  const base = { ...process.env };
  // A real chain's settings in the caller's environment would switch modes.
  for (const key of [
    "RPC_URL",
    "FACTORY_ADDRESS",
    "NETWORK",
    "CHAIN_ID",
    "START_BLOCK",
    "SIMULATE",
    "VERBOSE",
    "DEVNET_CHAIN_ID",
  ])
    delete base[key];
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: WORKSPACE_ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return { child, output: () => text, exited };
}

/** Waits for the banner (ready) or the exit of the run. */
async function ready(run: Run, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!run.output().includes("Stop: Ctrl-C")) {
    if (run.child.exitCode !== null)
      throw new Error(`pnpm start exited (${run.child.exitCode}):\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`pnpm start not ready:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stop(run: Run): Promise<number | null> {
  run.child.kill("SIGTERM");
  const code = await Promise.race([
    run.exited,
    new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 60_000)),
  ]);
  if (code === "timeout") {
    run.child.kill("SIGKILL");
    throw new Error(`pnpm start did not stop:\n${run.output()}`);
  }
  return code;
}

async function tokens(
  env: Record<string, string>,
  run: Run,
): Promise<{ address: string; metrics: { trade_count: number } }[]> {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/api/v1/tokens?limit=100`);
  } catch (error) {
    // Keep what `pnpm start` printed: a gateway that is gone after the banner needs its story.
    throw new Error(`gateway unreachable (${String(error)}); pnpm start printed:\n${run.output()}`);
  }
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: { address: string; metrics: { trade_count: number } }[] })
    .items;
}

describe("pnpm start", () => {
  afterAll(async () => {
    await dropDatabase(databaseName).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("behavior: starts the system on a devnet, stops on SIGTERM, resumes the same chain and database, resets the database for a new chain", async () => {
    // 1. A new chain: the gateway serves indexed trades.
    const first = await settings();
    const run1 = start(first);
    await ready(run1);
    expect(run1.output()).toContain("new chain");
    expect(run1.output()).toContain("the gateway serves indexed trades");
    expect(run1.output()).toContain(`http://127.0.0.1:${first.GATEWAY_PORT}`);
    const launched = await tokens(first, run1);
    expect(launched.some((t) => t.metrics.trade_count > 0)).toBe(true);
    const health = await fetch(`http://127.0.0.1:${first.GATEWAY_PORT}/health`);
    expect(health.status).toBe(200);
    expect(await stop(run1)).toBe(0);
    expect(run1.output()).toMatch(/stopping services[\s\S]*stopping the devnet[\s\S]*stopped/);
    expect(existsSync(join(dataDir, "devnet/state.json"))).toBe(true);
    expect(existsSync(join(dataDir, "logs/indexer.log"))).toBe(true);

    // 2. Restart: the same chain over the same database (the tokens of run 1 are still there).
    // A resume is idempotent: a start that lost one of its drawn ports to a test running beside
    // it (`EADDRINUSE`) is started again on new ports.
    let second = await settings();
    let run2 = start({ ...second, SIMULATE: "false" });
    for (let attempt = 1; ; attempt++) {
      try {
        await ready(run2);
        break;
      } catch (error) {
        if (attempt >= 3 || !run2.output().includes("EADDRINUSE")) throw error;
        await run2.exited;
        second = await settings();
        run2 = start({ ...second, SIMULATE: "false" });
      }
    }
    expect(run2.output()).toContain("resuming the saved chain");
    expect(run2.output()).not.toContain("resetting database");
    const resumed = await tokens(second, run2);
    for (const token of launched) expect(resumed.map((t) => t.address)).toContain(token.address);
    expect(await stop(run2)).toBe(0);

    // 3. The chain state is gone: a new chain, so the database is rebuilt, not reused.
    rmSync(join(dataDir, "devnet/state.json"));
    const third = await settings();
    const run3 = start({ ...third, SIMULATE: "false" });
    await ready(run3);
    expect(run3.output()).toContain("new chain");
    expect(run3.output()).toContain("resetting database");
    expect(await tokens(third, run3)).toEqual([]);
    expect(await stop(run3)).toBe(0);

    // 4. Another chain id (DEVNET_CHAIN_ID=8453, as Base): the saved 31337 chain is set aside, not
    //    loaded under the new id; a new chain and a rebuilt database.
    const fourth = await settings();
    const run4 = start({ ...fourth, SIMULATE: "false", DEVNET_CHAIN_ID: "8453" });
    await ready(run4);
    expect(run4.output()).toContain("chain id 8453, new chain");
    expect(run4.output()).toContain("resetting database");
    expect(existsSync(join(dataDir, "devnet/state.json.chain-31337"))).toBe(true);
    const chainId = await fetch(`http://127.0.0.1:${fourth.DEVNET_PORT}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    expect(((await chainId.json()) as { result: string }).result).toBe("0x2105");
    expect(await stop(run4)).toBe(0);
  }, 900_000);
});
