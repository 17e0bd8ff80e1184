// Settings of `pnpm start`, read once from the environment (README "Configuration"; every other
// variable is passed through to the services). Node built-ins only (read before the install step).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fail } from "./output.mjs";

const env = process.env;

/** The workspace root (the folder of the root package.json). */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Default port of each service: the one list, `@tmi/shared/env`'s `SERVICE_PORTS` (read as JSON here). */
const SERVICE_PORTS = JSON.parse(
  readFileSync(join(ROOT, "packages/shared/src/env/service-ports.json"), "utf8"),
);

const flag = (value, fallback) => {
  if (value === undefined || value === "") return fallback;
  return !["false", "0", "no", "off"].includes(value.toLowerCase());
};
const portOf = (name, fallback) => {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`${name}=${raw} is not a TCP port`);
  return port;
};
const replicasOf = (name) => {
  const raw = env[name];
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 9) fail(`${name}=${raw} must be an integer from 1 to 9`);
  return n;
};

/** VERBOSE=true (or --verbose): every service log line is printed, not only errors. */
export const VERBOSE = flag(env.VERBOSE, false) || process.argv.includes("--verbose");
/** SIMULATE=false: the devnet runs without the traffic simulator. */
export const SIMULATE = flag(env.SIMULATE, true);
/** State folder (TMI_DATA_DIR, default `.data`): devnet state, logs, objects, secrets, the read replica. */
export const DATA_DIR = resolve(ROOT, env.TMI_DATA_DIR || ".data");
/** One log file per process: `<LOG_DIR>/<name>.log` (the previous run's as `<name>.log.1`). */
export const LOG_DIR = join(DATA_DIR, "logs");
/** Real-chain mode: RPC_URL, FACTORY_ADDRESS or NETWORK is set (no devnet, no simulator). */
export const EXTERNAL = Boolean(env.RPC_URL || env.FACTORY_ADDRESS || env.NETWORK);
/** Every process listens on this address only. */
export const HOST = "127.0.0.1";
/** Listening port of each process (replica k of a service: the port + 100 × (k - 1)). */
export const PORTS = {
  devnet: portOf("DEVNET_PORT", 8545),
  gateway: portOf("GATEWAY_PORT", SERVICE_PORTS.gateway),
  "query-api": portOf("QUERY_API_PORT", SERVICE_PORTS["query-api"]),
  "metadata-api": portOf("METADATA_API_PORT", SERVICE_PORTS["metadata-api"]),
  "oracle-price": portOf("ORACLE_PRICE_PORT", SERVICE_PORTS["oracle-price"]),
  indexer: portOf("INDEXER_PORT", SERVICE_PORTS.indexer),
};
/** Processes per replicated service (QUERY_API_REPLICAS & co, 1 to 9, default 1). */
export const REPLICAS = {
  "query-api": replicasOf("QUERY_API_REPLICAS"),
  "metadata-api": replicasOf("METADATA_API_REPLICAS"),
  "oracle-price": replicasOf("ORACLE_PRICE_REPLICAS"),
};
/** Name and port of replica `k` (0-based) of `service`: `query-api`, `query-api-2` (port + 100), ... */
export const replicaOf = (service, k) => ({
  name: k === 0 ? service : `${service}-${k + 1}`,
  port: PORTS[service] + 100 * k,
});
/** READ_REPLICA=1: query-api reads from a streaming replica made with pg_basebackup. */
export const READ_REPLICA = flag(env.READ_REPLICA, false);
/** Port of the read replica (READ_REPLICA_PORT, default 5433). */
export const READ_REPLICA_PORT = portOf("READ_REPLICA_PORT", 5433);
/** PostgreSQL server binaries for the read replica (PG_BIN). */
export const PG_BIN = env.PG_BIN || "/usr/lib/postgresql/15/bin";
/** Redis of the services (REDIS_URL). */
export const REDIS_URL = env.REDIS_URL || "redis://127.0.0.1:6379";
/** How long to wait for indexed trades before printing the banner anyway (START_READY_TIMEOUT, s). */
export const READY_TIMEOUT_MS = Number(env.START_READY_TIMEOUT || 120) * 1000;
/** The gateway's base URL: the one URL clients use. */
export const BASE_URL = `http://${HOST}:${PORTS.gateway}`;
/** BullMQ key prefix of metadata-api and its worker (QUEUE_PREFIX). */
export const QUEUE_PREFIX = env.QUEUE_PREFIX || "tmi";

/** The devnet's chain id: DEVNET_CHAIN_ID, default 31337 (anvil's). */
export const DEVNET_CHAIN_ID = (() => {
  const raw = (env.DEVNET_CHAIN_ID ?? "").trim();
  if (raw === "") return 31337;
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1)
    fail(`DEVNET_CHAIN_ID=${raw} is not a chain id (a positive integer, e.g. 31337 or 8453)`);
  return id;
})();
