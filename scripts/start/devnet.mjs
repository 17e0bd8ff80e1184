// The devnet of `pnpm start` (devnet mode): anvil with our contracts deployed and, unless
// SIMULATE=false, simulated traders; its chain state is kept under <data>/devnet and resumed by the
// next start when the chain id is the same. Client: viem.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, http } from "viem";
import { error, fail, say, tail } from "./output.mjs";
import { BASE_URL, DATA_DIR, DEVNET_CHAIN_ID, HOST, PORTS, ROOT, SIMULATE } from "./settings.mjs";
import { shutdown, startChild } from "./supervisor.mjs";

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A viem client of the JSON-RPC node at `url` (5 s per call, no retries: the start's own waits retry).
 * @param {string} url
 */
export const chainClient = (url) =>
  createPublicClient({ transport: http(url.replace(/^ws/, "http"), { timeout: 5000, retryCount: 0 }) });

/**
 * The deployment file's chain id, if there is a readable one.
 * @param {string} file
 */
function savedChainId(file) {
  try {
    return Number(JSON.parse(readFileSync(file, "utf8")).chainId);
  } catch {
    return undefined;
  }
}

/**
 * The running devnet: its deployment (packages/devnet's JSON), where it is saved, its RPC URL and
 * a viem client, the hash of the deployment's start block (anvil makes a new genesis whenever it
 * loads a state file: this block identifies the chain), and whether a saved chain was resumed.
 * @typedef {{ deployment: any, deploymentFile: string, rpcUrl: string, client: import("viem").PublicClient,
 *   startBlockHash: string, resumed: boolean }} Devnet
 */

/**
 * Starts the devnet CLI under the supervisor and waits (90 s at most) until the deployment file
 * was written for DEVNET_CHAIN_ID and the factory has code. Copies the deployment to
 * deployments/devnet.json when TMI_DATA_DIR is not set.
 * @returns {Promise<Devnet>}
 */
export async function startDevnet() {
  const stateDir = join(DATA_DIR, "devnet");
  mkdirSync(stateDir, { recursive: true });
  const stateFile = join(stateDir, "state.json");
  // The deployment lives beside the chain state it belongs to (deployments/devnet.json may be
  // rewritten by other devnets).
  const deploymentFile = join(stateDir, "deployment.json");
  const saved = savedChainId(deploymentFile);
  // A saved chain is resumed only under the chain id it was made with (the devnet sets it aside otherwise).
  const resumed = existsSync(stateFile) && (saved === undefined || saved === DEVNET_CHAIN_ID);
  const before = mtime(deploymentFile);
  const args = [
    join(ROOT, "packages/devnet/dist/cli.js"),
    ...["--port", String(PORTS.devnet), "--chain-id", String(DEVNET_CHAIN_ID)],
    ...["--state", stateFile, "--deployment", deploymentFile],
  ];
  if (process.env.DEVNET_BLOCK_TIME) args.push("--block-time", process.env.DEVNET_BLOCK_TIME);
  if (!SIMULATE) args.push("--no-simulate");
  // The simulator uploads its distributions' trees through the gateway (wallets' rewards show proofs).
  else args.push("--api-url", BASE_URL);
  say(
    `starting the devnet on ${HOST}:${PORTS.devnet} (chain id ${DEVNET_CHAIN_ID}, ${resumed ? "resuming the saved chain" : "new chain"}${SIMULATE ? ", simulated traders" : ", no simulator"})`,
  );
  // The devnet saves its state when it stops: it gets more time than a service.
  const devnet = startChild(
    "devnet",
    process.execPath,
    args,
    { ...process.env, DEVNET_PORT: String(PORTS.devnet) },
    {
      graceMs: 20_000,
    },
  );
  const rpcUrl = `http://${HOST}:${PORTS.devnet}`;
  const client = chainClient(rpcUrl);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (devnet.child.exitCode !== null) fail(`the devnet exited during start-up (see ${devnet.file})`);
    if (Date.now() > deadline) {
      error(`the devnet was not ready after 90 s; last lines of ${devnet.file}:`);
      process.stderr.write(tail(devnet.file, 20));
      await shutdown(1);
    }
    if (mtime(deploymentFile) > before || (resumed && mtime(deploymentFile) > 0)) {
      const ready = await deployedOn(client, deploymentFile).catch(() => undefined);
      if (ready) {
        if (!process.env.TMI_DATA_DIR) {
          mkdirSync(join(ROOT, "deployments"), { recursive: true });
          writeFileSync(
            join(ROOT, "deployments/devnet.json"),
            `${JSON.stringify(ready.deployment, null, 2)}\n`,
          );
        }
        return { ...ready, deploymentFile, rpcUrl, client, resumed };
      }
    }
    await sleep(250);
  }
}

/** The deployment and its start block's hash once the chain serves it under DEVNET_CHAIN_ID (else undefined). */
async function deployedOn(client, deploymentFile) {
  const deployment = JSON.parse(readFileSync(deploymentFile, "utf8"));
  const factory = deployment.contracts?.factory;
  if (!factory) return undefined;
  const [code, chainId] = await Promise.all([client.getCode({ address: factory }), client.getChainId()]);
  if (!code || code === "0x" || chainId !== Number(deployment.chainId) || chainId !== DEVNET_CHAIN_ID)
    return undefined;
  const block = await client.getBlock({
    blockNumber: BigInt(Math.max(1, Number(deployment.startBlock ?? 1))),
  });
  return { deployment, startBlockHash: block.hash };
}
