import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BASE_MAINNET } from "@tmi/shared/chain";
import {
  addressSetting,
  baseEnvSchema,
  booleanFlag,
  databaseUrl,
  portSetting,
  redisUrl,
  SERVICE_PORTS,
} from "@tmi/shared/env";
import { z } from "zod";

/** Root of the workspace (`services/metadata-api/src/` is three levels below). */
export const WORKSPACE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const address = addressSetting;

/**
 * Settings of the metadata-api server and its finalize worker (issue 5). Parsed once by the
 * process entries; `FACTORY_ADDRESS` falls back to the Base mainnet factory when `CHAIN_ID` is 8453,
 * else to `DEPLOYMENT_FILE` (`deployments/devnet.json`).
 */
export const metadataEnvSchema = baseEnvSchema.extend({
  PORT: portSetting(SERVICE_PORTS["metadata-api"]),
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  /** BullMQ key prefix (one per deployment, or per test). */
  QUEUE_PREFIX: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9:_-]+$/)
    .default("tmi"),
  RPC_URL: z.string().url().default("http://127.0.0.1:8545"),
  /** Chain of the launches; checked against the RPC's `eth_chainId` at start. */
  CHAIN_ID: z.coerce.number().int().positive().default(31337),
  /** The zonk.fun V3 factory whose `TokenLaunchedV3` a finalize's receipt must show. */
  FACTORY_ADDRESS: address.optional(),
  DEPLOYMENT_FILE: z.string().min(1).default("deployments/devnet.json"),
  STORAGE_DRIVER: z.enum(["fs", "s3"]).default("fs"),
  STORAGE_DIR: z.string().min(1).default(".data/objects"),
  /** Scratch folder for uploads being checked (default: `<STORAGE_DIR>/../spool`). */
  SPOOL_DIR: z.string().min(1).optional(),
  S3_ENDPOINT: z.string().min(1).default("127.0.0.1"),
  S3_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  S3_USE_SSL: booleanFlag(false),
  S3_ACCESS_KEY: z.string().default("S3RVER"),
  S3_SECRET_KEY: z.string().default("S3RVER"),
  S3_BUCKET: z.string().min(3).max(63).default("tmi-objects"),
  S3_REGION: z.string().min(1).default("us-east-1"),
  IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  IMAGE_MAX_PIXELS: z.coerce.number().int().positive().default(40_000_000),
  IMAGE_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Gas limit of the `eth_call` that checks a smart-contract wallet's finalize signature (ERC-1271,
   * ERC-6492): bounds what a wallet or an ERC-6492 factory may burn on the node per finalize.
   */
  SIGNATURE_VERIFY_GAS: z.coerce.number().int().min(100_000).max(100_000_000).default(3_000_000),
  /**
   * In production, refuse to start unless Redis reports `appendonly yes` (`false`: only warn, for
   * a Redis that persists otherwise or hides `CONFIG`).
   */
  REDIS_REQUIRE_AOF: booleanFlag(true),
  /** Period of the worker's sweep of `pending` drafts whose finalize job is gone (0 disables it). */
  PENDING_SWEEP_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  /** Most leaves of one reward tree upload (`POST /api/v1/rewards/distributions/{id}/tree`). */
  REWARD_TREE_MAX_LEAVES: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Webhook targets may be private or loopback addresses (local use and tests only; docs/api.md "Webhooks"). */
  WEBHOOK_ALLOW_PRIVATE: booleanFlag(false),
  /** Whole-request timeout of a webhook delivery. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Delay before a delivery's 2nd attempt; doubles per attempt (the 3rd comes 3× this after the 1st). */
  WEBHOOK_BACKOFF_BASE_MS: z.coerce.number().int().min(10).default(2_000),
  /** Longest delay between two attempts of a delivery. */
  WEBHOOK_BACKOFF_MAX_MS: z.coerce.number().int().min(10).default(7_200_000),
  /** A webhook failing without a success for this long is disabled (with the reason). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().min(1_000).default(86_400_000),
  /** Concurrent deliveries per worker process. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /** Pause between polls of the webhook outbox while it is empty. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(200),
  /** Period of the re-enqueue of due deliveries from PostgreSQL (after a Redis wipe or a crash). */
  WEBHOOK_RECONCILE_MS: z.coerce.number().int().min(100).default(5_000),
  /** Dispatched webhook events (and their deliveries) are kept this many days. */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).default(7),
  /** The worker process runs the webhook dispatcher (`false`: another process does). */
  WEBHOOK_DISPATCHER: booleanFlag(true),
  /** Port of the worker's `/health` and `/metrics` (the dispatcher's metrics); 0: no HTTP. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
});

/** Parsed settings of {@link metadataEnvSchema}. */
export type MetadataEnv = z.output<typeof metadataEnvSchema>;

/** Resolves a path setting against the workspace root when it is relative. */
export function workspacePath(path: string): string {
  return isAbsolute(path) ? path : join(WORKSPACE_ROOT, path);
}

/**
 * The launch contract of finalize receipts: `FACTORY_ADDRESS`; else, on Base mainnet
 * (`CHAIN_ID` 8453), the platform's factory; else `contracts.factory` of the deployment file.
 * @throws Error when none gives a valid address.
 */
export function resolveFactoryAddress(
  env: Pick<MetadataEnv, "FACTORY_ADDRESS" | "DEPLOYMENT_FILE" | "CHAIN_ID">,
): `0x${string}` {
  if (env.FACTORY_ADDRESS) return env.FACTORY_ADDRESS;
  if (env.CHAIN_ID === BASE_MAINNET.chainId) return BASE_MAINNET.contracts.factory as `0x${string}`;
  const file = workspacePath(env.DEPLOYMENT_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`FACTORY_ADDRESS is unset and ${file} cannot be read: ${String(error)}`);
  }
  const contracts = (parsed as { contracts?: { factory?: unknown } }).contracts;
  const result = address.safeParse(contracts?.factory);
  if (!result.success) throw new Error(`${file} has no valid contracts.factory`);
  return result.data;
}
