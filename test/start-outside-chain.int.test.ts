// `pnpm start` pointed at a chain of someone else's: an anvil chain with chain id 8453 and the V3
// contracts, started on its own; `pnpm start` gets only RPC_URL, FACTORY_ADDRESS, START_BLOCK and
// CHAIN_ID, starts no devnet and no simulator, and serves that chain's tokens through the gateway.
// Own ports, database, data folder and queue prefix.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTrader, type Devnet, startDevnet } from "@tmi/devnet";
import { dropDatabase, testPostgresUrl, WORKSPACE_ROOT, withDatabase } from "@tmi/testkit";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./src/system.js";

const dataDir = mkdtempSync(join(tmpdir(), "tmi-start-outside-"));
// `tmi_test_<base-36 ms>_…`: the testkit cleanup reads the creation time from the name (other names look stale).
const databaseName = `tmi_test_${Date.now().toString(36)}_start_outside_${process.pid}`;

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Every run started, so that afterAll stops any left (a timed-out test skips its own cleanup). */
const runs: Run[] = [];

function start(env: Record<string, string>): Run {
  const base = { ...process.env };
  for (const key of [
    "RPC_URL",
    "FACTORY_ADDRESS",
    "NETWORK",
    "CHAIN_ID",
    "START_BLOCK",
    "SIMULATE",
    "VERBOSE",
  ])
    delete base[key];
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: WORKSPACE_ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const collect = (chunk: Buffer) => {
    text += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const run = { child, output: () => text, exited };
  runs.push(run);
  return run;
}

describe("pnpm start on an outside chain", () => {
  let devnet: Devnet;
  let token: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, chainId: 8453, blockTime: "automine" });
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
    const launched = await trader.createToken("Outside Start", "OUTS", { value: parseEther("0.05") });
    token = launched.token;
    env = {
      TMI_DATA_DIR: dataDir,
      DATABASE_URL: withDatabase(testPostgresUrl(), databaseName),
      QUEUE_PREFIX: `tmi-test-start-outside-${process.pid}`,
      GATEWAY_PORT: String(await freePort()),
      QUERY_API_PORT: String(await freePort()),
      METADATA_API_PORT: String(await freePort()),
      ORACLE_PRICE_PORT: String(await freePort()),
      INDEXER_PORT: String(await freePort()),
      NO_COLOR: "1",
      RPC_URL: devnet.rpcUrl,
      FACTORY_ADDRESS: devnet.deployment.contracts.factory,
      START_BLOCK: String(devnet.deployment.startBlock),
      CHAIN_ID: "8453",
    };
  });
  afterAll(async () => {
    for (const run of runs) {
      if (run.child.exitCode !== null || run.child.signalCode !== null) continue;
      run.child.kill("SIGTERM"); // pnpm start stops its services (and waits for a build in progress) first
      await Promise.race([run.exited, new Promise((r) => setTimeout(r, 120_000))]);
    }
    await devnet?.stop();
    await dropDatabase(databaseName).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("default", async () => {
    const run = start(env);
    try {
      const deadline = Date.now() + 240_000;
      while (!run.output().includes("Stop: Ctrl-C")) {
        if (run.child.exitCode !== null)
          throw new Error(`pnpm start exited (${run.child.exitCode}):\n${run.output()}`);
        if (Date.now() > deadline) throw new Error(`pnpm start not ready:\n${run.output()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(run.output()).toContain("no devnet, no simulator");
      const response = await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/api/v1/tokens?limit=10`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { items: { address: string; name: string; symbol: string }[] };
      expect(body.items).toEqual([
        expect.objectContaining({ address: token, name: "Outside Start", symbol: "OUTS" }),
      ]);
    } finally {
      // SIGTERM (never SIGKILL first): pnpm start stops its services before it exits.
      if (run.child.exitCode === null) run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    }
  }, 900_000); // builds first when dist/ is stale

  it("error: a CHAIN_ID the node does not serve is refused before anything starts", async () => {
    const run = start({ ...env, CHAIN_ID: "31337" });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("RPC_URL serves chain 8453, but CHAIN_ID is 31337");
  }, 600_000);
});
