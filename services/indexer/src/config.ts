import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  addressSetting,
  baseEnvSchema,
  booleanFlag,
  databaseUrl,
  NETWORK_NAMES,
  NETWORKS,
  type NetworkDeployment,
  parseEnv,
  portSetting,
  SERVICE_PORTS,
} from "@tmi/shared/env";
import { z } from "zod";

/** Root of the workspace (relative `DEPLOYMENT_FILE` paths resolve from here). */
export const WORKSPACE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const address = addressSetting;
const positiveInt = (d: number) => z.coerce.number().int().positive().default(d);
const nonNegativeInt = (d: number) => z.coerce.number().int().min(0).default(d);

/** The RPC URL the indexer uses when neither `RPC_URL` nor `NETWORK` is set (the devnet's). */
export const DEVNET_RPC_URL = "http://127.0.0.1:8545";
/** The chain id when neither `CHAIN_ID`, `NETWORK` nor the deployment file gives one (anvil's). */
export const DEVNET_CHAIN_ID = 31337;

/** Environment of the indexer (see docs/operations.md, section "indexer"). */
export const indexerEnvSchema = baseEnvSchema.extend({
  PORT: portSetting(SERVICE_PORTS.indexer),
  DATABASE_URL: databaseUrl,
  /** A public deployment whose values fill every chain setting left unset (`base`: Base mainnet). */
  NETWORK: z.enum(NETWORK_NAMES).optional(),
  RPC_URL: z
    .string()
    .regex(/^(https?|wss?):\/\//, "must be an http(s):// or ws(s):// URL")
    .optional(),
  CHAIN_ID: z.coerce.number().int().positive().optional(),
  FACTORY_ADDRESS: address.optional(),
  START_BLOCK: z.coerce.number().int().min(0).optional(),
  WETH_ADDRESS: address.optional(),
  GRADUATION_MANAGER_ADDRESS: address.optional(),
  FEE_MANAGER_ADDRESS: address.optional(),
  ETH_USD_FEED_ADDRESS: address.optional(),
  DEPLOYMENT_FILE: z.string().default("deployments/devnet.json"),
  CONFIRMATIONS: nonNegativeInt(0),
  REORG_DEPTH: positiveInt(64),
  TRENDING_WINDOW: positiveInt(86_400),
  /** Minimum time between two trending snapshots (ms). */
  TRENDING_REFRESH_MS: nonNegativeInt(2_000),
  /** Age after which older trending snapshots are deleted (seconds). */
  TRENDING_KEEP_SECONDS: positiveInt(600),
  POLL_INTERVAL_MS: positiveInt(250),
  LOG_BATCH_BLOCKS: positiveInt(20),
  MAX_LOG_BATCH_BLOCKS: positiveInt(100_000),
  /** Logs per `eth_getLogs` the range adaptation aims for. */
  TARGET_LOGS_PER_REQUEST: positiveInt(5_000),
  /** Emitter addresses per `eth_getLogs` for the per-token events (`Transfer` of tokens, `Swap` of pools). */
  LOG_ADDRESS_CHUNK: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /**
   * How the per-token events are queried per range: `emitters` (by address chunks), `topics` (by
   * topic alone, filtered in memory) or `auto` (the cheaper by measured cost; docs/indexer.md).
   */
  LOG_QUERY_STRATEGY: z.enum(["auto", "emitters", "topics"]).default("auto"),
  /**
   * Tokens whose state (contracts, curve state, graduation) the indexer keeps in memory; beyond it
   * the least recently traded are forgotten and read again from `tokens` when traded (~1 KB each).
   */
  KNOWN_TOKENS_CACHE: positiveInt(50_000),
  MAX_CONCURRENT_REQUESTS: positiveInt(4),
  /** Block ranges fetched ahead of the one being written. */
  PREFETCH_RANGES: positiveInt(2),
  RPC_TIMEOUT_MS: positiveInt(30_000),
  /** Calls per JSON-RPC batch (headers, senders, token names); a node that refuses batches gets one call each. */
  RPC_MAX_BATCH: positiveInt(50),
  READY_MAX_LAG_BLOCKS: nonNegativeInt(5),
  /**
   * No successful read of the chain head for longer than this (ms) means the node hangs or is
   * unreachable: `/readyz` fails and the lag grows with wall time. Default POLL_INTERVAL_MS + 5000.
   */
  HEAD_STALE_MS: z.coerce.number().int().positive().optional(),
  /**
   * How long the indexer waits for PostgreSQL to come back after losing it (ms) before it exits
   * with a fatal line; 0: exit at the first failed write or read.
   */
  DB_OUTAGE_MAX_MS: nonNegativeInt(300_000),
  /** Failures of the same range before it is narrowed down to the log that fails. */
  RANGE_FAILURES_BEFORE_ISOLATION: positiveInt(3),
  /** Skip a log that cannot be indexed (recorded in `indexer_failed_logs`) instead of stopping. */
  SKIP_FAILING_LOGS: booleanFlag(true),
});

/** The parsed environment (before the chain settings are resolved). */
export type IndexerEnv = z.output<typeof indexerEnvSchema>;

/** Where each chain setting came from (logged at start). */
export type SettingSource = "env" | "network" | "deployment" | "default";

/** The resolved settings: env plus the values of `NETWORK` or the deployment file. */
export interface IndexerConfig
  extends Omit<
    IndexerEnv,
    | "RPC_URL"
    | "CHAIN_ID"
    | "FACTORY_ADDRESS"
    | "START_BLOCK"
    | "WETH_ADDRESS"
    | "GRADUATION_MANAGER_ADDRESS"
    | "FEE_MANAGER_ADDRESS"
    | "ETH_USD_FEED_ADDRESS"
    | "HEAD_STALE_MS"
  > {
  /** See the env schema; resolved to POLL_INTERVAL_MS + 5000 when unset. */
  HEAD_STALE_MS: number;
  RPC_URL: string;
  CHAIN_ID: number;
  /** The V3 factory whose `TokenLaunchedV3` events discover every token (lowercase). */
  FACTORY_ADDRESS: string;
  /** First block indexed (the factory's deployment block). */
  START_BLOCK: number;
  /** Wrapped ether, the other token of the canonical pools; null: read from the graduation manager at start. */
  WETH_ADDRESS: string | null;
  /** null: read from the factory (`graduationManager()`) at start. */
  GRADUATION_MANAGER_ADDRESS: string | null;
  /** null: read from the factory (`feeManager()`) at start. */
  FEE_MANAGER_ADDRESS: string | null;
  /** Feed whose `AnswerUpdated` events are recorded (`eth_usd_answers`); null: none. */
  ETH_USD_FEED_ADDRESS: string | null;
  /** Where the chain settings came from, by setting name. */
  sources: Readonly<Record<string, SettingSource>>;
}

interface DeploymentFile {
  chainId?: number;
  rpcUrl?: string;
  startBlock?: number;
  contracts?: {
    factory?: string;
    graduationManager?: string;
    feeManager?: string;
    weth?: string;
    ethUsdFeed?: string;
  };
}

/** The deployment-file values in the shape of a network (only the fields present). */
function fromDeploymentFile(path: string): Partial<NetworkDeployment> & { rpcUrl?: string } {
  if (!existsSync(path)) return {};
  const file = JSON.parse(readFileSync(path, "utf8")) as DeploymentFile;
  const c = file.contracts ?? {};
  const lower = (v: string | undefined) => v?.toLowerCase();
  return {
    chainId: file.chainId,
    rpcUrl: file.rpcUrl,
    startBlock: file.startBlock,
    factory: lower(c.factory),
    graduationManager: lower(c.graduationManager),
    feeManager: lower(c.feeManager),
    weth: lower(c.weth),
    ethUsdFeed: lower(c.ethUsdFeed),
  };
}

/**
 * Parses the environment and resolves the chain settings. Each of `RPC_URL`, `CHAIN_ID`,
 * `FACTORY_ADDRESS`, `START_BLOCK`, `WETH_ADDRESS`, `GRADUATION_MANAGER_ADDRESS`,
 * `FEE_MANAGER_ADDRESS` and `ETH_USD_FEED_ADDRESS` is taken from the environment when set, else
 * from `NETWORK` (e.g. `base`: the Base mainnet deployment), else — without `NETWORK` — from
 * `DEPLOYMENT_FILE` (relative to the workspace root; its values other than the factory apply only
 * when it describes the same factory), else a default (the devnet's RPC URL and chain id 31337;
 * the managers and WETH are then read from the chain at start).
 * @throws EnvError (invalid settings) or Error (no factory, no start block, or `NETWORK` without `RPC_URL`).
 */
export function loadIndexerConfig(source: Record<string, string | undefined> = process.env): IndexerConfig {
  const env = parseEnv(indexerEnvSchema, source);
  const sources: Record<string, SettingSource> = {};
  let preset: Partial<NetworkDeployment> & { rpcUrl?: string } = {};
  let presetSource: SettingSource = "network";
  if (env.NETWORK) {
    preset = NETWORKS[env.NETWORK];
  } else {
    const path = isAbsolute(env.DEPLOYMENT_FILE)
      ? env.DEPLOYMENT_FILE
      : resolve(WORKSPACE_ROOT, env.DEPLOYMENT_FILE);
    const file = fromDeploymentFile(path);
    // The file's other values describe its own factory only.
    if (file.factory && (env.FACTORY_ADDRESS === undefined || env.FACTORY_ADDRESS === file.factory)) {
      preset = file;
    }
    presetSource = "deployment";
  }
  function pick<T>(name: string, fromEnv: T | undefined, fromPreset: T | undefined): T | undefined {
    if (fromEnv !== undefined) {
      sources[name] = "env";
      return fromEnv;
    }
    if (fromPreset !== undefined) {
      sources[name] = presetSource;
      return fromPreset;
    }
    return undefined;
  }
  const factory = pick("FACTORY_ADDRESS", env.FACTORY_ADDRESS, preset.factory);
  const startBlock = pick("START_BLOCK", env.START_BLOCK, preset.startBlock);
  const problems: string[] = [];
  if (!factory)
    problems.push("FACTORY_ADDRESS is not set (set it, or NETWORK=base, or provide DEPLOYMENT_FILE)");
  if (startBlock === undefined)
    problems.push("START_BLOCK is not set (the block in which the factory was deployed)");
  let rpcUrl = pick("RPC_URL", env.RPC_URL, env.NETWORK ? undefined : preset.rpcUrl);
  if (rpcUrl === undefined) {
    if (env.NETWORK) problems.push(`RPC_URL is not set (NETWORK=${env.NETWORK} needs a node of that chain)`);
    rpcUrl = DEVNET_RPC_URL;
    sources.RPC_URL = "default";
  }
  if (problems.length > 0)
    throw new Error(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  let chainId = pick("CHAIN_ID", env.CHAIN_ID, preset.chainId);
  if (chainId === undefined) {
    chainId = DEVNET_CHAIN_ID;
    sources.CHAIN_ID = "default";
  }
  const optional = (name: string, fromEnv: string | undefined, fromPreset: string | undefined) =>
    pick(name, fromEnv, fromPreset) ?? null;
  return Object.freeze({
    ...env,
    RPC_URL: rpcUrl,
    CHAIN_ID: chainId,
    FACTORY_ADDRESS: factory!,
    START_BLOCK: startBlock!,
    WETH_ADDRESS: optional("WETH_ADDRESS", env.WETH_ADDRESS, preset.weth),
    GRADUATION_MANAGER_ADDRESS: optional(
      "GRADUATION_MANAGER_ADDRESS",
      env.GRADUATION_MANAGER_ADDRESS,
      preset.graduationManager,
    ),
    FEE_MANAGER_ADDRESS: optional("FEE_MANAGER_ADDRESS", env.FEE_MANAGER_ADDRESS, preset.feeManager),
    ETH_USD_FEED_ADDRESS: optional("ETH_USD_FEED_ADDRESS", env.ETH_USD_FEED_ADDRESS, preset.ethUsdFeed),
    HEAD_STALE_MS: env.HEAD_STALE_MS ?? env.POLL_INTERVAL_MS + 5_000,
    sources: Object.freeze(sources),
  });
}
