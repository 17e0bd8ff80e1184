// The services of `pnpm start`: indexer, query-api, metadata-api and its worker, oracle-price and
// the gateway as supervised children (replicas of a service on its port + 100 × k), and the waits
// until they answer and until the gateway serves indexed trades.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paint, tag, tail } from "./output.mjs";
import {
  BASE_URL,
  DATA_DIR,
  HOST,
  PORTS,
  QUEUE_PREFIX,
  READY_TIMEOUT_MS,
  REDIS_URL,
  REPLICAS,
  ROOT,
  replicaOf,
} from "./settings.mjs";
import { childOf, isStopping, shutdown, startChild } from "./supervisor.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CURSOR_SECRET, or one made once and kept in `<data>/cursor-secret` (so cursors survive restarts). */
function cursorSecret() {
  if (process.env.CURSOR_SECRET) return process.env.CURSOR_SECRET;
  const file = join(DATA_DIR, "cursor-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

/** Base URLs of the local replicas of `service` (comma-separated, as the gateway takes them). */
const replicaUrls = (service) =>
  Array.from({ length: REPLICAS[service] }, (_, k) => `http://${HOST}:${replicaOf(service, k).port}`).join(
    ",",
  );

/**
 * Starts every service with the chain's settings (see chain-settings.mjs). Services are not
 * critical: once the system is ready, one that dies is restarted.
 * @param {Record<string, string>} chain
 * @param {string} databaseUrl
 * @param {string | undefined} databaseReadUrl the read replica's URL (READ_REPLICA=1)
 */
export function startServices(chain, databaseUrl, databaseReadUrl) {
  const env = process.env;
  const common = {
    ...env,
    ...chain,
    NODE_ENV: env.NODE_ENV || "development",
    LOG_LEVEL: env.LOG_LEVEL || "info",
    HOST,
    DATABASE_URL: databaseUrl,
    REDIS_URL,
  };
  const node = process.execPath;
  const entry = (service, file = "main") => join(ROOT, "services", service, "dist", `${file}.js`);
  const service = { critical: false };
  const replicated = (name, file, childEnv) => {
    for (let k = 0; k < REPLICAS[name]; k++) {
      const replica = replicaOf(name, k);
      startChild(
        replica.name,
        node,
        [entry(name, file)],
        { ...childEnv, PORT: String(replica.port) },
        service,
      );
    }
  };
  startChild("indexer", node, [entry("indexer")], { ...common, PORT: String(PORTS.indexer) }, service);
  replicated("query-api", "main", {
    ...common,
    ...(databaseReadUrl ? { DATABASE_READ_URL: databaseReadUrl } : {}),
    CURSOR_SECRET: cursorSecret(),
    // Only the gateway (on 127.0.0.1) reaches query-api: believe the client address it forwards, so
    // per-client limits (live streams) count clients, not the gateway.
    TRUST_PROXY: env.QUERY_API_TRUST_PROXY || "loopback",
  });
  const metadata = {
    ...common,
    STORAGE_DRIVER: env.STORAGE_DRIVER || "fs",
    STORAGE_DIR: env.STORAGE_DIR || join(DATA_DIR, "objects"),
    QUEUE_PREFIX,
  };
  replicated("metadata-api", "main", metadata);
  startChild("worker", node, [entry("metadata-api", "worker")], metadata, service);
  replicated("oracle-price", "main", common);
  // The gateway stops first and quickest (no new requests while the others stop).
  startChild(
    "gateway",
    node,
    [entry("gateway")],
    {
      ...common,
      GATEWAY_PORT: String(PORTS.gateway),
      PORT: String(PORTS.gateway),
      QUERY_API_URL: env.QUERY_API_URL || replicaUrls("query-api"),
      METADATA_API_URL: env.METADATA_API_URL || replicaUrls("metadata-api"),
      ORACLE_PRICE_URL: env.ORACLE_PRICE_URL || replicaUrls("oracle-price"),
    },
    { ...service, graceMs: 10_000 },
  );
}

/**
 * GET `url`: the status and the body (parsed as JSON when it is JSON); status 0 and the error's
 * code when the request failed. Never throws.
 * @param {string} url
 * @returns {Promise<{ status: number, body: any }>}
 */
export async function httpGet(url, timeoutMs = 3000) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body };
  } catch (error) {
    return { status: 0, body: String(error?.cause?.code ?? error?.message ?? error) };
  }
}

/** Polls `check` every 250 ms until it returns a truthy value (returned), `timeoutMs` passes or a shutdown begins (false). */
async function waitUntil(check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (isStopping()) return false;
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
}

/**
 * Waits until every process answers its health route (60 s), then the gateway's `/readyz`
 * (relayed from query-api, 30 s); stops everything with the logs of those that did not answer.
 */
export async function waitForServices() {
  const replicaProbes = (service, path) =>
    Array.from({ length: REPLICAS[service] }, (_, k) => {
      const { name, port } = replicaOf(service, k);
      return [name, `http://${HOST}:${port}${path}`];
    });
  const probes = [
    ["indexer", `http://${HOST}:${PORTS.indexer}/health`],
    ...replicaProbes("query-api", "/readyz"),
    ...replicaProbes("metadata-api", "/readyz"),
    ...replicaProbes("oracle-price", "/health"),
    ["gateway", `${BASE_URL}/health`],
  ];
  const results = await Promise.all(
    probes.map(async ([name, url]) => [
      name,
      await waitUntil(async () => (await httpGet(url)).status === 200, 60_000),
    ]),
  );
  if (results.every(([, ok]) => ok)) {
    const ok = await waitUntil(async () => (await httpGet(`${BASE_URL}/readyz`)).status === 200, 30_000);
    results.push(["gateway", ok]);
  }
  const notReady = results.filter(([, ok]) => !ok).map(([name]) => name);
  if (isStopping() || !notReady.length) return;
  for (const name of notReady) {
    const entry = childOf(name);
    process.stderr.write(
      `${tag("start")} ${paint(31, `${name} is not ready after 60 s`)}; last lines of ${entry?.file}:\n`,
    );
    if (entry) process.stderr.write(tail(entry.file, 15));
  }
  await shutdown(1);
}

/**
 * Waits (START_READY_TIMEOUT) until the gateway lists a token with indexed trades.
 * @returns the first such token of `/api/v1/tokens`, or false
 */
export function waitForIndexedTrades() {
  return waitUntil(async () => {
    const { status, body } = await httpGet(`${BASE_URL}/api/v1/tokens?limit=20`);
    if (status !== 200 || !Array.isArray(body?.items)) return undefined;
    return body.items.find((t) => (t.metrics?.trade_count ?? 0) > 0);
  }, READY_TIMEOUT_MS);
}
