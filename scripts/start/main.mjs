// `pnpm start` after the install step (scripts/start.mjs): free ports, PostgreSQL and Redis, the
// devnet or the real chain's settings, the database, the read replica, the services, the waits,
// the banner.
import { mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { devnetChainSettings, externalChainSettings } from "./chain-settings.mjs";
import { clearFinalizeQueue, ensureDatabaseMatchesChain, migrateDatabase } from "./database-setup.mjs";
import { startDevnet } from "./devnet.mjs";
import { checkPostgres, checkRedis } from "./infrastructure-check.mjs";
import { ensureBuilt } from "./install.mjs";
import { error, fail, paint, say, seconds, warn } from "./output.mjs";
import { startReadReplica } from "./read-replica.mjs";
import { httpGet, startServices, waitForIndexedTrades, waitForServices } from "./services.mjs";
import {
  BASE_URL,
  DATA_DIR,
  EXTERNAL,
  HOST,
  LOG_DIR,
  PORTS,
  QUEUE_PREFIX,
  READ_REPLICA,
  READ_REPLICA_PORT,
  READY_TIMEOUT_MS,
  REDIS_URL,
  REPLICAS,
  replicaOf,
  SIMULATE,
} from "./settings.mjs";
import { childPids, isStopping, markReady, shutdown } from "./supervisor.mjs";

/** Resolves true when `port` on 127.0.0.1 can be bound (nobody listens there). */
function portIsFree(port) {
  return new Promise((done) => {
    const server = net.createServer();
    server.once("error", () => done(false));
    server.listen({ host: HOST, port, exclusive: true }, () => server.close(() => done(true)));
  });
}

/** Exits with a message when a port the start needs is taken (another `pnpm start`?). */
async function ensurePortsFree() {
  const needed = EXTERNAL ? Object.entries(PORTS).filter(([n]) => n !== "devnet") : Object.entries(PORTS);
  for (const service of Object.keys(REPLICAS))
    for (let k = 1; k < REPLICAS[service]; k++) {
      const { name, port } = replicaOf(service, k);
      needed.push([name, port]);
    }
  if (READ_REPLICA) needed.push(["read-replica", READ_REPLICA_PORT]);
  const busy = [];
  for (const [name, port] of needed) if (!(await portIsFree(port))) busy.push(`${port} (${name})`);
  if (busy.length)
    fail(
      `port(s) already in use: ${busy.join(", ")}.\n  Is another \`pnpm start\` running? Stop it, or choose other ports (GATEWAY_PORT, DEVNET_PORT, QUERY_API_PORT, METADATA_API_PORT, ORACLE_PRICE_PORT, INDEXER_PORT, READ_REPLICA_PORT).`,
    );
}

function printBanner(token, mode) {
  const address = token?.address ?? "<token-address>";
  const creator = token?.creator ?? "<creator-address>";
  const lines = [
    "",
    `  Token market indexing API: ${paint(1, BASE_URL)}   (${mode}; ready in ${seconds()} s)`,
    "",
    "  Try:",
    `    curl -s ${BASE_URL}/health`,
    `    curl -s '${BASE_URL}/api/v1/tokens?limit=5'`,
    `    curl -s '${BASE_URL}/api/v1/trending?limit=5'`,
    `    curl -s ${BASE_URL}/api/v1/tokens/${address}`,
    `    curl -s '${BASE_URL}/api/v1/tokens/${address}/trades?limit=5'`,
    `    curl -s '${BASE_URL}/api/v1/tokens/${address}/chart?interval=1m&limit=30'`,
    `    curl -s ${BASE_URL}/api/v1/creators/${creator}`,
    `    curl -s ${BASE_URL}/api/v1/prices/eth-usd`,
    `    open ${BASE_URL}/docs            # OpenAPI reference`,
    "",
    `  Logs: ${LOG_DIR}/<service>.log (VERBOSE=true pnpm start prints them here).  Stop: Ctrl-C.`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** Real-chain mode up to the services: returns the banner's description of the chain. */
async function prepareExternal() {
  const chain = await externalChainSettings();
  const databaseUrl =
    process.env.DATABASE_URL || `postgresql://postgres@127.0.0.1:5432/tmi_chain_${chain.CHAIN_ID}`;
  await Promise.all([checkPostgres(databaseUrl), checkRedis(REDIS_URL)]);
  await migrateDatabase(databaseUrl);
  const readUrl = READ_REPLICA ? await startReadReplica(databaseUrl) : undefined;
  say(
    `indexing chain ${chain.CHAIN_ID} at ${chain.RPC_URL} (factory ${chain.FACTORY_ADDRESS} from block ${chain.START_BLOCK}${process.env.NETWORK ? `, NETWORK=${process.env.NETWORK}` : ""}); no devnet, no simulator`,
  );
  startServices(chain, databaseUrl, readUrl);
  return `chain ${chain.CHAIN_ID} at ${process.env.RPC_URL}`;
}

/** Devnet mode up to the services: returns the banner's description of the devnet. */
async function prepareDevnet() {
  const databaseUrl = process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/tmi";
  await Promise.all([checkPostgres(databaseUrl), checkRedis(REDIS_URL)]);
  const devnet = await startDevnet();
  const { deployment, startBlockHash } = devnet;
  say(`devnet ready: chain ${deployment.chainId}, factory ${deployment.contracts.factory} (${seconds()} s)`);
  const identity = {
    chainId: Number(deployment.chainId),
    factory: deployment.contracts.factory.toLowerCase(),
    startBlock: Number(deployment.startBlock ?? 0),
    startBlockHash,
  };
  if (await ensureDatabaseMatchesChain(databaseUrl, identity, devnet.client))
    await clearFinalizeQueue(REDIS_URL, QUEUE_PREFIX);
  await migrateDatabase(databaseUrl);
  const readUrl = READ_REPLICA ? await startReadReplica(databaseUrl) : undefined;
  startServices(devnetChainSettings(devnet), databaseUrl, readUrl);
  return `devnet ${devnet.rpcUrl}${SIMULATE ? ", simulated traders" : ", no simulator"}`;
}

async function main() {
  mkdirSync(LOG_DIR, { recursive: true });
  ensureBuilt();
  await ensurePortsFree();
  const mode = EXTERNAL ? await prepareExternal() : await prepareDevnet();
  const counts = Object.entries(REPLICAS)
    .filter(([, n]) => n > 1)
    .map(([name, n]) => `${name} ×${n}`);
  say(
    `starting indexer, query-api, metadata-api, worker, oracle-price, gateway${counts.length ? ` (${counts.join(", ")})` : ""}${READ_REPLICA ? "; query-api reads from the read replica" : ""}`,
  );
  await waitForServices();
  if (isStopping()) return;
  markReady();
  say(`services ready (${seconds()} s)`);
  let token;
  if (!EXTERNAL && SIMULATE) {
    token = await waitForIndexedTrades();
    if (isStopping()) return;
    if (token) say(`the gateway serves indexed trades (${seconds()} s after start)`);
    else
      warn(
        `no indexed trades after ${READY_TIMEOUT_MS / 1000} s: check ${LOG_DIR}/indexer.log and devnet.log`,
      );
  } else {
    token = (await httpGet(`${BASE_URL}/api/v1/tokens?limit=1`)).body?.items?.[0];
  }
  printBanner(token, mode);
  writeFileSync(
    join(DATA_DIR, "start.json"),
    `${JSON.stringify({ startedAt: new Date().toISOString(), readySeconds: Number(seconds()), baseUrl: BASE_URL, supervisorPid: process.pid, pids: childPids() }, null, 2)}\n`,
  );
}

main().catch(async (reason) => {
  error(reason?.stack ?? String(reason));
  await shutdown(1);
});
