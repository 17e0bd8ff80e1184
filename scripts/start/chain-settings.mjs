// The chain settings the services get: the devnet's deployment (devnet mode), or RPC_URL with
// FACTORY_ADDRESS + START_BLOCK or NETWORK (real-chain mode), checked against the node's chain id.
import { join } from "node:path";
import { chainClient } from "./devnet.mjs";
import { fail, warn } from "./output.mjs";
import { ROOT, SIMULATE } from "./settings.mjs";

/**
 * The services' settings of the devnet `devnet` (see devnet.mjs).
 * @param {import("./devnet.mjs").Devnet} devnet
 * @returns {Record<string, string>}
 */
export function devnetChainSettings(devnet) {
  const { deployment, deploymentFile, rpcUrl } = devnet;
  const c = deployment.contracts;
  const env = process.env;
  return {
    RPC_URL: rpcUrl,
    CHAIN_ID: String(deployment.chainId),
    FACTORY_ADDRESS: c.factory,
    START_BLOCK: String(deployment.startBlock ?? 0),
    DEPLOYMENT_FILE: deploymentFile,
    ETH_USD_FEED_ADDRESS: c.ethUsdFeed,
    ORACLE_RPC_URL: rpcUrl,
    ORACLE_CHAIN_ID: String(deployment.chainId),
    ORACLE_ETH_USD_ADDRESS: c.ethUsdFeed,
    ORACLE_SEQUENCER_UPTIME_ADDRESS: c.sequencerUptimeFeed,
    // Devnet feed rounds are written at deployment and by the simulator; allow a resumed chain's.
    ORACLE_ETH_USD_MAX_AGE: env.ORACLE_ETH_USD_MAX_AGE || String(SIMULATE ? 3600 : 30 * 86400),
    ORACLE_SEQUENCER_GRACE_PERIOD: env.ORACLE_SEQUENCER_GRACE_PERIOD || "0",
  };
}

/**
 * The services' settings of a real chain: RPC_URL with FACTORY_ADDRESS and START_BLOCK, or with
 * NETWORK (the table in packages/shared: factory, start block, chain id, feeds). Exits with a
 * message when a setting is missing or CHAIN_ID / NETWORK disagrees with the node's chain id.
 * @returns {Promise<Record<string, string>>}
 */
export async function externalChainSettings() {
  const env = process.env;
  // The table behind NETWORK (built by the install step: packages/shared/dist).
  const { NETWORKS } = await import(join(ROOT, "packages/shared/dist/env/networks.js"));
  const network = env.NETWORK ? NETWORKS[env.NETWORK] : undefined;
  if (env.NETWORK && !network)
    fail(`NETWORK=${env.NETWORK} is not known (known: ${Object.keys(NETWORKS).join(", ")})`);
  if (!env.RPC_URL)
    fail(
      "set RPC_URL (a node of the chain to index) with FACTORY_ADDRESS and START_BLOCK, or with NETWORK=base; or none of them for the devnet",
    );
  const factory = env.FACTORY_ADDRESS || network?.factory;
  if (!factory) fail("FACTORY_ADDRESS is not set (the zonk.fun V3 factory of that chain), nor NETWORK");
  const startBlock = env.START_BLOCK || (network ? String(network.startBlock) : "");
  if (!startBlock)
    fail(
      "START_BLOCK is not set: set it to the block in which the factory was deployed (indexing starts there)",
    );
  let nodeChainId;
  try {
    nodeChainId = String(await chainClient(env.RPC_URL).getChainId());
  } catch (error) {
    fail(`cannot read the chain id from RPC_URL: ${error.shortMessage ?? error.message}`);
  }
  const chainId = env.CHAIN_ID || (network ? String(network.chainId) : nodeChainId);
  if (chainId !== nodeChainId)
    fail(
      `RPC_URL serves chain ${nodeChainId}, but ${env.CHAIN_ID ? "CHAIN_ID" : `NETWORK=${env.NETWORK}`} is ${chainId}`,
    );
  // oracle-price reads the same node unless told otherwise (NETWORK fills its feed address).
  const oracleRpc = env.ORACLE_RPC_URL || (/^https?:\/\//.test(env.RPC_URL) ? env.RPC_URL : "");
  if (!oracleRpc) warn("ORACLE_RPC_URL is not set: /api/v1/prices/eth-usd answers 503 oracle_unavailable");
  else if (!env.ORACLE_ETH_USD_ADDRESS && !network)
    warn("ORACLE_ETH_USD_ADDRESS is not set: /api/v1/prices/eth-usd answers 503 oracle_unavailable");
  return {
    RPC_URL: env.RPC_URL,
    CHAIN_ID: chainId,
    FACTORY_ADDRESS: factory.toLowerCase(),
    START_BLOCK: startBlock,
    DEPLOYMENT_FILE: "",
    ...(oracleRpc ? { ORACLE_RPC_URL: oracleRpc } : {}),
    ...(env.ORACLE_CHAIN_ID || !network ? {} : { ORACLE_CHAIN_ID: chainId }),
  };
}
