import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { baseEnvSchema, databaseUrl, parseEnv, portSetting } from "@tmi/shared/env";
import { z } from "zod";

/** Root of the workspace (relative `DEPLOYMENT_FILE` paths resolve from here). */
export const WORKSPACE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((v) => v.toLowerCase());
const positiveInt = (d: number) => z.coerce.number().int().positive().default(d);
const nonNegativeInt = (d: number) => z.coerce.number().int().min(0).default(d);

/** Environment of the indexer (see docs/indexer.md). */
export const indexerEnvSchema = baseEnvSchema.extend({
  PORT: portSetting(3004),
  DATABASE_URL: databaseUrl,
  RPC_URL: z
    .string()
    .regex(/^(https?|wss?):\/\//, "must be an http(s):// or ws(s):// URL")
    .default("http://127.0.0.1:8545"),
  CHAIN_ID: z.coerce.number().int().positive().default(31337),
  LAUNCHPAD_ADDRESS: address.optional(),
  START_BLOCK: z.coerce.number().int().min(0).optional(),
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
  MAX_CONCURRENT_REQUESTS: positiveInt(4),
  /** Block ranges fetched ahead of the one being written. */
  PREFETCH_RANGES: positiveInt(2),
  RPC_TIMEOUT_MS: positiveInt(30_000),
  READY_MAX_LAG_BLOCKS: nonNegativeInt(5),
  /** How the logs of launched tokens and pools are fetched: one topic-filtered query per range, or by address. */
  LOG_FILTER_MODE: z.enum(["topics", "addresses"]).default("topics"),
});

export type IndexerEnv = z.output<typeof indexerEnvSchema>;

/** The resolved settings: env plus defaults from the deployment file. */
export interface IndexerConfig
  extends Omit<IndexerEnv, "LAUNCHPAD_ADDRESS" | "START_BLOCK" | "ETH_USD_FEED_ADDRESS"> {
  LAUNCHPAD_ADDRESS: string;
  START_BLOCK: number;
  ETH_USD_FEED_ADDRESS: string | null;
}

interface DeploymentFile {
  chainId?: number;
  startBlock?: number;
  contracts?: { launchpad?: string; ethUsdFeed?: string };
}

/**
 * Parses the environment; `LAUNCHPAD_ADDRESS`/`START_BLOCK` default from `DEPLOYMENT_FILE`
 * (relative to the workspace root) when unset, and `ETH_USD_FEED_ADDRESS` from its `ethUsdFeed`
 * when the file describes the same launchpad.
 * @throws EnvError (invalid settings) or Error (no launchpad/start block available).
 */
export function loadIndexerConfig(source: Record<string, string | undefined> = process.env): IndexerConfig {
  const env = parseEnv(indexerEnvSchema, source);
  const path = isAbsolute(env.DEPLOYMENT_FILE)
    ? env.DEPLOYMENT_FILE
    : resolve(WORKSPACE_ROOT, env.DEPLOYMENT_FILE);
  let deployment: DeploymentFile | null = null;
  if (existsSync(path)) deployment = JSON.parse(readFileSync(path, "utf8")) as DeploymentFile;
  const fileLaunchpad = deployment?.contracts?.launchpad?.toLowerCase();
  const launchpad = env.LAUNCHPAD_ADDRESS ?? fileLaunchpad;
  const startBlock = env.START_BLOCK ?? (launchpad === fileLaunchpad ? deployment?.startBlock : undefined);
  if (!launchpad) throw new Error(`LAUNCHPAD_ADDRESS is not set and ${path} does not name a launchpad`);
  if (startBlock === undefined)
    throw new Error(`START_BLOCK is not set and ${path} does not give one for this launchpad`);
  const feed =
    env.ETH_USD_FEED_ADDRESS ??
    (launchpad === fileLaunchpad ? (deployment?.contracts?.ethUsdFeed?.toLowerCase() ?? null) : null);
  return { ...env, LAUNCHPAD_ADDRESS: launchpad, START_BLOCK: startBlock, ETH_USD_FEED_ADDRESS: feed };
}
