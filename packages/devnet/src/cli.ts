#!/usr/bin/env node
// `pnpm devnet`: anvil + deployment + traffic simulator (packages/devnet/README.md). See --help.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseDevnetChainId } from "./accounts.js";
import { type BackgroundOptions, startBackground } from "./background.js";
import { rpc } from "./clients.js";
import { type Deployment, isDeploymentLive, readDeployment } from "./deploy.js";
import { startDevnet } from "./devnet.js";
import { loadHistory } from "./history-loader.js";
import { runSimulator } from "./simulator.js";

const HELP = `Usage: pnpm devnet [options]

Starts anvil on 127.0.0.1 (chain id 31337 unless DEVNET_CHAIN_ID or --chain-id says otherwise;
anvil's default mnemonic), deploys the zonk.fun V3 contracts (factory, graduation manager, fee
manager), WETH9, Uniswap V3 and the feeds (or reuses them when --state resumes a chain), writes
deployments/devnet.json and runs the traffic simulator until SIGINT/SIGTERM.

  --port <n>                  RPC port (default 8545; 0 = any free port)
  --chain-id <n>              chain id (default DEVNET_CHAIN_ID, else 31337; 8453 looks like Base);
                              a --state saved under another chain id is set aside, not resumed
  --block-time <seconds>      interval mining (default 1)
  --automine                  one block per transaction instead
  --state <file>              anvil state file: resume the same chain across restarts
  --deployment <file>         deployment JSON (default deployments/devnet.json at the workspace root)
  --load-history <trades>     first mine this many trades quickly (benchmarks)
  --history-days <days>       spread that history over the last days (default 7; fresh chains only)
  --background [<transfers>,<swaps>]
                              Base-like background traffic on every block: unrelated ERC-20
                              Transfer and Uniswap V3 Swap logs (default 1000,100 per block), also in
                              the --load-history blocks; needs interval mining
  --launches <n>              tokens the history launches (default trades / 2000, at most 100000;
                              most are never traded again)
  --no-simulate               no simulated traders (also SIMULATE=false)
  --seed <n>                  simulator seed (default 1)
  --tokens <n>                tokens on the curve at a time (default 6)
  --traders <n>               simulated wallets (default 8)
  --tps <n>                   average simulated actions per second (default 2)
  --duration <seconds>        stop after this long (default 0 = run until interrupted)
  --api-url <url>             upload each published distribution's tree to this API (the gateway)
  --help
`;

const WORKSPACE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function log(message: string): void {
  process.stdout.write(`[devnet] ${message}\n`);
}

function numberOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`--${name}: expected a non-negative number, got "${value}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      "chain-id": { type: "string" },
      "block-time": { type: "string" },
      automine: { type: "boolean" },
      state: { type: "string" },
      deployment: { type: "string" },
      "load-history": { type: "string" },
      "history-days": { type: "string" },
      background: { type: "string" },
      launches: { type: "string" },
      "no-simulate": { type: "boolean" },
      seed: { type: "string" },
      tokens: { type: "string" },
      traders: { type: "string" },
      tps: { type: "string" },
      duration: { type: "string" },
      "api-url": { type: "string" },
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const blockTime = values.automine ? "automine" : numberOption(values["block-time"], "block-time", 1);
  const simulate =
    !values["no-simulate"] && !["false", "0", "no"].includes((process.env.SIMULATE ?? "").toLowerCase());
  const duration = numberOption(values.duration, "duration", 0);
  const deploymentFile = values.deployment ?? join(WORKSPACE_ROOT, "deployments", "devnet.json");
  const historyTrades = numberOption(values["load-history"], "load-history", 0);
  const background = parseBackground(values.background);
  if (background && blockTime === "automine")
    throw new Error("--background needs interval mining, not --automine");
  const chainId =
    values["chain-id"] !== undefined
      ? parseDevnetChainId(values["chain-id"], "--chain-id")
      : parseDevnetChainId(process.env.DEVNET_CHAIN_ID);

  const controller = new AbortController();
  let devnet: { rpcUrl: string; deployment: Deployment; stop(): Promise<void> } | undefined;
  let stopping = false;
  let attached = false;
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log(`${reason}: stopping`);
    controller.abort();
    // Still starting: main() stops anvil as soon as startDevnet returns.
    if (!devnet) return;
    await devnet.stop();
    log(attached ? "detached (the devnet keeps running)" : "anvil stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  const started = performance.now();
  const port = numberOption(values.port, "port", 8545);
  const existing = readDeployment(deploymentFile);
  if (
    existing &&
    port !== 0 &&
    existing.rpcUrl === `http://127.0.0.1:${port}` &&
    (await isDeploymentLive(existing.rpcUrl, existing))
  ) {
    // Without an explicit chain id, attach to whatever chain runs there.
    const explicitChainId =
      values["chain-id"] !== undefined || (process.env.DEVNET_CHAIN_ID ?? "").trim() !== "";
    if (explicitChainId && existing.chainId !== chainId)
      throw new Error(
        `a devnet with chain id ${existing.chainId} already runs at ${existing.rpcUrl}: stop it before starting one with chain id ${chainId}`,
      );
    // Never a second chain under the same deployment: reuse the running one.
    devnet = { rpcUrl: existing.rpcUrl, deployment: existing, stop: async () => {} };
    attached = true;
    log(`a devnet with this deployment already runs at ${existing.rpcUrl}: attaching to it (no new anvil)`);
  } else {
    const fresh = await startDevnet({
      port,
      chainId,
      blockTime: "automine",
      stateFile: values.state,
      deploymentFile,
      timestamp:
        historyTrades > 0
          ? Math.floor(Date.now() / 1000 - numberOption(values["history-days"], "history-days", 7) * 86_400)
          : undefined,
    });
    devnet = fresh;
    if (fresh.setAsideState)
      log(
        fresh.setAsideState.endsWith(".devnet-addresses")
          ? `the saved chain has WETH and the Uniswap V3 factory at the devnet's own addresses, not Base's: set aside as ${fresh.setAsideState}; starting a new chain`
          : `the saved chain had another chain id: set aside as ${fresh.setAsideState}; starting a new chain`,
      );
    if (stopping) {
      await devnet.stop();
      log("anvil stopped");
      process.exit(0);
    }
    log(
      `${fresh.resumed ? "resumed chain from" : "deployed on a fresh chain"} ${devnet.rpcUrl} (chain id ${fresh.chainId}) in ${(
        (performance.now() - started) / 1000
      ).toFixed(2)} s; deployment written to ${deploymentFile}`,
    );
  }
  process.stdout.write(`${JSON.stringify(devnet.deployment, null, 2)}\n`);

  if (historyTrades > 0) {
    await loadHistory({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      trades: historyTrades,
      graduations: Math.min(10, Math.floor(historyTrades / 20_000)),
      ...(values.launches !== undefined ? { tokens: numberOption(values.launches, "launches", 5) } : {}),
      ...(background ? { background } : {}),
      seed: numberOption(values.seed, "seed", 1),
      logger: { info: log },
    });
  }
  if (!attached) {
    if (blockTime !== "automine") await rpc(devnet.rpcUrl, "evm_setIntervalMining", [blockTime]);
    log(`mining: ${blockTime === "automine" ? "automine" : `a block every ${blockTime} s`}`);
  }
  if (background) {
    const running = await startBackground(devnet.rpcUrl, devnet.deployment.chainId, background);
    const stopDevnet = devnet.stop;
    devnet.stop = async () => {
      await running.stop();
      await stopDevnet();
    };
    log(
      `background: ${background.transfersPerBlock} Transfer and ${background.swapsPerBlock} Swap logs per block from ${running.emitter}`,
    );
  }

  if (simulate) {
    log("simulator running (Ctrl-C to stop)");
    await runSimulator({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      // Attached to a devnet that may run its own simulator (seed 1): other wallets, no nonce clashes.
      seed: numberOption(values.seed, "seed", attached ? 1001 : 1),
      tokens: numberOption(values.tokens, "tokens", 6),
      traders: numberOption(values.traders, "traders", 8),
      tps: numberOption(values.tps, "tps", 2),
      durationSeconds: duration,
      signal: controller.signal,
      logger: { info: log },
      ...(values["api-url"] ? { apiUrl: values["api-url"] } : {}),
    });
    if (!stopping) await shutdown("simulation finished");
  } else if (duration > 0) {
    await new Promise((resolve) => setTimeout(resolve, duration * 1000));
    await shutdown("duration elapsed");
  } else {
    log("idle chain (no simulator); Ctrl-C to stop");
  }
}

/** `--background` value: "" (defaults) or "<transfers>,<swaps>"; undefined when absent. */
function parseBackground(value: string | undefined): Required<BackgroundOptions> | undefined {
  if (value === undefined) return undefined;
  const [transfers, swaps] = value === "" ? [] : value.split(",");
  return {
    transfersPerBlock: numberOption(transfers, "background", 1_000),
    swapsPerBlock: numberOption(swaps, "background", 100),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[devnet] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
