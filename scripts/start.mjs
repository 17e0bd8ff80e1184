#!/usr/bin/env node
// `pnpm start`: the whole system on one machine (docs/operations.md).
//
// Devnet mode (default): installs what is missing, builds what is stale, checks PostgreSQL and
// Redis, starts the devnet (anvil + deployment + traffic simulator unless SIMULATE=false) with its
// state kept under .data/, makes sure the database belongs to that chain (a new chain gets a new
// database, never an old one), applies migrations, starts the indexer, query-api, metadata-api and
// its worker, oracle-price and the gateway, waits until the gateway serves indexed trades and
// prints the base URL with a few example requests. Ctrl-C (SIGINT) or SIGTERM stops the services,
// then the devnet (which saves its state).
//
// Real-chain mode: with RPC_URL set and either FACTORY_ADDRESS + START_BLOCK (CHAIN_ID optional:
// read from the node) or NETWORK=base (the Base mainnet deployment: factory, start block, chain id,
// WETH, managers, Chainlink ETH/USD for oracle-price), no devnet and no simulator: the same services
// index and serve that chain.
//
// Plain Node ESM; third-party modules (pg) are loaded from the workspace after the install step.
// Settings of this script (every other variable is passed through to the services):
//   SIMULATE=false        devnet without the traffic simulator
//   VERBOSE=true          print every service log line (default: only errors; all lines go to
//                         .data/logs/<service>.log)
//   TMI_DATA_DIR          state directory (default .data): devnet state, logs, objects, secrets
//   DEVNET_CHAIN_ID       chain id of the devnet (default 31337; 8453 makes it look like Base to
//                         clients that accept only Base). A saved chain of another id is set
//                         aside (.data/devnet/state.json.chain-<id>) and a new chain started.
//   DEVNET_PORT (8545), GATEWAY_PORT (8080), QUERY_API_PORT (3001), METADATA_API_PORT (3002),
//   ORACLE_PRICE_PORT (3003), INDEXER_PORT (3004)
//   DEVNET_BLOCK_TIME     seconds between devnet blocks (default: the devnet's own default)
//   START_READY_TIMEOUT   seconds to wait for indexed trades before giving up the wait (default 120)
//   QUERY_API_REPLICAS, METADATA_API_REPLICAS, ORACLE_PRICE_REPLICAS
//                         processes of each service (default 1); replica k (k = 2, 3, ...) listens on the
//                         service's port + 100 × (k - 1); the gateway balances them
//   QUERY_API_URL, METADATA_API_URL, ORACLE_PRICE_URL
//                         when set, the gateway's upstreams (comma-separated) instead of the local replicas
//   QUERY_API_TRUST_PROXY which X-Forwarded-For hops query-api trusts (default `loopback`: the gateway on
//                         127.0.0.1, so the stream's per-client cap sees the real client)
//   READ_REPLICA=1        query-api reads from a streaming replica of DATABASE_URL's server made here with
//                         pg_basebackup under <TMI_DATA_DIR>/pg-replica (port READ_REPLICA_PORT, 5433);
//                         PG_BIN: PostgreSQL server binaries (default /usr/lib/postgresql/15/bin)
// Once the system is ready, a service process that dies is restarted (backoff 1 s doubling to 30 s)
// while the others keep serving; before that, any exit stops the start with its log.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const env = process.env;
const started = performance.now();
const isTty = Boolean(process.stdout.isTTY) && !env.NO_COLOR;

// ---------------------------------------------------------------------------------------------
// Settings

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

const VERBOSE = flag(env.VERBOSE, false) || process.argv.includes("--verbose");
const SIMULATE = flag(env.SIMULATE, true);
const DATA_DIR = resolve(ROOT, env.TMI_DATA_DIR || ".data");
const LOG_DIR = join(DATA_DIR, "logs");
const EXTERNAL = Boolean(env.RPC_URL || env.FACTORY_ADDRESS || env.NETWORK);
const HOST = "127.0.0.1";
const PORTS = {
  devnet: portOf("DEVNET_PORT", 8545),
  gateway: portOf("GATEWAY_PORT", 8080),
  "query-api": portOf("QUERY_API_PORT", 3001),
  "metadata-api": portOf("METADATA_API_PORT", 3002),
  "oracle-price": portOf("ORACLE_PRICE_PORT", 3003),
  indexer: portOf("INDEXER_PORT", 3004),
};
const replicasOf = (name) => {
  const raw = env[name];
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 9) fail(`${name}=${raw} must be an integer from 1 to 9`);
  return n;
};
const REPLICAS = {
  "query-api": replicasOf("QUERY_API_REPLICAS"),
  "metadata-api": replicasOf("METADATA_API_REPLICAS"),
  "oracle-price": replicasOf("ORACLE_PRICE_REPLICAS"),
};
/** Name and port of replica `k` (0-based) of `service`: `query-api`, `query-api-2` (port + 100), ... */
const replicaOf = (service, k) => ({
  name: k === 0 ? service : `${service}-${k + 1}`,
  port: PORTS[service] + 100 * k,
});
const READ_REPLICA = flag(env.READ_REPLICA, false);
const READ_REPLICA_PORT = portOf("READ_REPLICA_PORT", 5433);
const PG_BIN = env.PG_BIN || "/usr/lib/postgresql/15/bin";
const REDIS_URL = env.REDIS_URL || "redis://127.0.0.1:6379";
const READY_TIMEOUT_MS = Number(env.START_READY_TIMEOUT || 120) * 1000;
const BASE_URL = `http://${HOST}:${PORTS.gateway}`;

// ---------------------------------------------------------------------------------------------
// Output

const COLORS = [36, 35, 33, 32, 34, 96, 95, 93];
const colorOf = new Map();
const paint = (code, text) => (isTty ? `\u001b[${code}m${text}\u001b[0m` : text);
const tag = (name) => {
  if (!colorOf.has(name)) colorOf.set(name, COLORS[colorOf.size % COLORS.length]);
  return paint(colorOf.get(name), `[${name}]`.padEnd(15));
};
const say = (message) => process.stdout.write(`${tag("start")} ${message}\n`);
const warn = (message) => process.stderr.write(`${tag("start")} ${paint(33, "warning:")} ${message}\n`);
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

/** Prints `message` and exits 1 (before anything was started; later failures go through shutdown). */
function fail(message) {
  process.stderr.write(`${tag("start")} ${paint(31, "error:")} ${message}\n`);
  process.exit(1);
}

/** The devnet's chain id: DEVNET_CHAIN_ID, default 31337 (anvil's). */
const DEVNET_CHAIN_ID = (() => {
  const raw = (env.DEVNET_CHAIN_ID ?? "").trim();
  if (raw === "") return 31337;
  const id = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1)
    fail(`DEVNET_CHAIN_ID=${raw} is not a chain id (a positive integer, e.g. 31337 or 8453)`);
  return id;
})();

// ---------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs a command in the foreground (output inherited); exits with a message when it fails. */
function runOrFail(command, args, what, options = {}) {
  say(`${what}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env, ...options });
  if (result.error) fail(`${what} failed: ${result.error.message}`);
  if (result.status !== 0) fail(`${what} failed (exit ${result.status}); see the output above`);
}

/** Newest modification time (ms) of the files under `dir` (recursive; skips node_modules, dist). */
function newestMtime(dir, skip = () => false) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
      // Tests are not part of the build.
      if (entry.name.endsWith(".test.ts")) continue;
      const full = join(path, entry.name);
      if (skip(full)) continue;
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  walk(dir);
  return newest;
}
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** Resolves true when something accepts TCP connections on host:port within `timeoutMs`. */
function canConnect(host, port, timeoutMs = 1500) {
  return new Promise((done) => {
    const socket = net.connect({ host, port });
    const finish = (ok) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
  });
}

/** Resolves true when `port` on 127.0.0.1 can be bound (nobody listens there). */
function portIsFree(port) {
  return new Promise((done) => {
    const server = net.createServer();
    server.once("error", () => done(false));
    server.listen({ host: HOST, port, exclusive: true }, () => server.close(() => done(true)));
  });
}

/** One JSON-RPC call; throws on transport errors and JSON-RPC errors. */
async function rpc(url, method, params = []) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(5000),
  });
  const body = await response.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** GET returning {status, body} (body parsed as JSON when possible); never throws. */
async function httpGet(url, timeoutMs = 3000) {
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

/** Minimal Redis command over RESP (no dependency); resolves with the raw reply text. */
function redisCommand(url, ...args) {
  const parsed = new URL(url);
  return new Promise((done, reject) => {
    const socket = net.connect({ host: parsed.hostname || HOST, port: Number(parsed.port || 6379) });
    let reply = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("timed out"));
    }, 2000);
    const send = (parts) =>
      socket.write(
        `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join("")}`,
      );
    socket.once("connect", () => {
      if (parsed.password) {
        send(
          parsed.username
            ? ["AUTH", decodeURIComponent(parsed.username), decodeURIComponent(parsed.password)]
            : ["AUTH", decodeURIComponent(parsed.password)],
        );
      }
      send(args);
    });
    socket.on("data", (chunk) => {
      reply += chunk.toString("utf8");
      const complete = parsed.password ? reply.split("\r\n").length > 2 : reply.endsWith("\r\n");
      if (complete) {
        clearTimeout(timer);
        socket.end();
        done(parsed.password ? reply.slice(reply.indexOf("\r\n") + 2) : reply);
      }
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Install and build what is missing

function ensureNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 18))
    fail(`Node ${process.versions.node} is too old: Node >= 20.18 is needed`);
}

function ensureInstalled() {
  const marker = join(ROOT, "node_modules", ".modules.yaml");
  const lock = join(ROOT, "pnpm-lock.yaml");
  if (existsSync(marker) && mtime(marker) >= mtime(lock) - 1000) return;
  const pnpm = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (pnpm.error || pnpm.status !== 0) {
    fail(
      "pnpm is not installed. Install it with `npm install -g pnpm@12` (or `corepack enable`) and run `pnpm start` again.",
    );
  }
  runOrFail("pnpm", ["install", "--frozen-lockfile"], "installing dependencies");
}

/** The projects the running system needs, in build order, with the files that must exist. */
const SERVICE_PROJECTS = [
  "services/indexer",
  "services/query-api",
  "services/metadata-api",
  "services/oracle-price",
  "services/gateway",
];
const REQUIRED_OUTPUTS = [
  "prisma/dist/index.js",
  "packages/devnet/dist/cli.js",
  ...SERVICE_PROJECTS.map((p) => `${p}/dist/main.js`),
  "services/metadata-api/dist/worker.js",
];

function ensureBuilt() {
  const reasons = [];
  // Contracts: ABIs and bytecode generated under packages/contracts/src/generated (ignored by git).
  // The build script compares a hash of its inputs and returns at once when nothing changed.
  const contractsBuild = spawnSync(
    process.execPath,
    [join(ROOT, "packages/contracts/scripts/build.mjs"), "--quiet"],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
  if (contractsBuild.status !== 0)
    fail("compiling the contracts failed (packages/contracts/scripts/build.mjs); see above");
  // Prisma client (generated, ignored by git) newer than the schema.
  const generated = join(ROOT, "prisma/src/generated");
  if (!existsSync(generated) || newestMtime(generated) < mtime(join(ROOT, "prisma/schema.prisma")))
    reasons.push("prisma client");
  // TypeScript projects: outputs present and build info newer than every source file.
  const projects = [
    "packages/shared",
    "prisma",
    "packages/contracts",
    "packages/devnet",
    ...SERVICE_PROJECTS,
  ];
  const staleProjects = projects.filter((project) => {
    const info = join(ROOT, project, "dist/.tsbuildinfo");
    return !existsSync(info) || newestMtime(join(ROOT, project, "src")) > mtime(info);
  });
  const missing = REQUIRED_OUTPUTS.filter((file) => !existsSync(join(ROOT, file)));
  if (staleProjects.length || missing.length)
    reasons.push(...new Set([...staleProjects, ...missing.map((f) => f.split("/dist/")[0])]));
  if (!reasons.length) return;
  say(`building (${[...new Set(reasons)].join(", ")})`);
  if (reasons.includes("prisma client"))
    runOrFail("pnpm", ["--filter", "@tmi/db", "generate"], "generating the Prisma client");
  // Only the projects the system runs (tests and benchmarks are not needed to start it).
  say(`compiling TypeScript: tsc -b ${projects.join(" ")}`);
  const tsc = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-b", ...projects], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (tsc.error) fail(`compiling TypeScript failed: ${tsc.error.message}`);
  // tsc emits JavaScript despite type errors: start with it (a work-in-progress tree), but say so.
  if (tsc.status !== 0) warn("TypeScript reported errors (above); starting with the JavaScript it emitted");
  const stillMissing = REQUIRED_OUTPUTS.filter((file) => !existsSync(join(ROOT, file)));
  if (stillMissing.length) fail(`the build did not produce ${stillMissing.join(", ")}`);
}

// ---------------------------------------------------------------------------------------------
// 2. PostgreSQL and Redis

const workspaceRequire = () => createRequire(join(ROOT, "prisma/package.json"));

async function checkPostgres(databaseUrl) {
  const url = new URL(databaseUrl);
  const host = url.hostname || HOST;
  const port = Number(url.port || 5432);
  if (!(await canConnect(host, port))) {
    fail(
      `PostgreSQL is not reachable at ${host}:${port} (DATABASE_URL).\n` +
        "  Start it (e.g. `sudo service postgresql start`, or `docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16`)\n" +
        "  or point DATABASE_URL at a running server, then run `pnpm start` again.",
    );
  }
  const pg = workspaceRequire()("pg");
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  try {
    await admin.connect();
    await admin.query("SELECT 1");
  } catch (error) {
    fail(
      `PostgreSQL at ${host}:${port} refused the connection: ${error.message}\n  Check the user/password in DATABASE_URL (default user postgres, trust authentication).`,
    );
  } finally {
    await admin.end().catch(() => {});
  }
}

async function checkRedis(redisUrl) {
  const url = new URL(redisUrl);
  const host = url.hostname || HOST;
  const port = Number(url.port || 6379);
  let reply;
  try {
    reply = await redisCommand(redisUrl, "PING");
  } catch (error) {
    fail(
      `Redis is not reachable at ${host}:${port} (REDIS_URL): ${error.message}.\n` +
        "  Start it (e.g. `sudo service redis-server start`, or `docker run -d -p 6379:6379 redis:7 --maxmemory-policy noeviction`)\n" +
        "  or point REDIS_URL at a running server, then run `pnpm start` again.",
    );
  }
  if (!reply.startsWith("+PONG"))
    fail(`Redis at ${host}:${port} answered PING with ${JSON.stringify(reply.trim())}`);
  const policy = await redisCommand(redisUrl, "CONFIG", "GET", "maxmemory-policy").catch(() => "");
  if (policy && !policy.includes("noeviction")) {
    warn(
      `Redis maxmemory-policy is not noeviction (${policy.split("\r\n")[4] ?? "?"}): BullMQ jobs can be evicted under memory pressure`,
    );
  }
}

function withDatabase(databaseUrl, name) {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}
const databaseNameOf = (databaseUrl) => decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ""));
const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;
const quoteLiteral = (text) => `'${text.replaceAll("'", "''")}'`;

/**
 * Makes sure the database belongs to the running devnet. The chain's identity (chain id,
 * factory, hash of the deployment's start block) is recorded as the database's comment; when it differs, or when
 * the indexer's checkpoint block is not on the chain, the database is dropped so that it is
 * rebuilt from the new chain (never a new chain over an old database).
 * @returns true when the database was reset.
 */
async function ensureDatabaseMatchesChain(databaseUrl, identity, rpcUrl) {
  const pg = workspaceRequire()("pg");
  const name = databaseNameOf(databaseUrl);
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  await admin.connect();
  try {
    const found = await admin.query(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [name],
    );
    const expected = JSON.stringify(identity);
    let reason = null;
    if (found.rowCount) {
      const recorded = found.rows[0].comment;
      if (recorded && recorded !== expected) {
        reason =
          "the devnet is a new chain (its chain id, deployment block or factory differs from the indexed one)";
      } else {
        reason = await checkpointMismatch(pg, databaseUrl, identity.chainId, rpcUrl);
        if (!reason && !recorded) reason = await unrecordedDataReason(pg, databaseUrl);
      }
      if (reason) {
        say(`resetting database ${name}: ${reason}`);
        await admin.query(`DROP DATABASE ${quoteIdent(name)} WITH (FORCE)`);
      }
    }
    const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount;
    if (!exists) await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS ${quoteLiteral(expected)}`);
    return Boolean(reason);
  } finally {
    await admin.end().catch(() => {});
  }
}

/** Why the indexed checkpoint does not belong to the chain behind `rpcUrl` (null when it does or there is none). */
async function checkpointMismatch(pg, databaseUrl, chainId, rpcUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const table = await client.query("SELECT to_regclass('public.indexer_checkpoints') AS t");
    if (!table.rows[0].t) return null;
    const rows = await client.query(
      "SELECT block_number::text AS n, block_hash AS h FROM indexer_checkpoints WHERE chain_id = $1",
      [chainId],
    );
    const checkpoint = rows.rows[0];
    if (!checkpoint) return null;
    const block = await rpc(rpcUrl, "eth_getBlockByNumber", [
      `0x${BigInt(checkpoint.n).toString(16)}`,
      false,
    ]);
    if (!block)
      return `the indexed block ${checkpoint.n} is beyond the devnet's head (its saved state is older)`;
    if (block.hash.toLowerCase() !== checkpoint.h.toLowerCase())
      return `the indexed block ${checkpoint.n} is not on the devnet's chain`;
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A database with indexed data but no recorded chain identity cannot be trusted to match. */
async function unrecordedDataReason(pg, databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const table = await client.query("SELECT to_regclass('public.tokens') AS t");
    if (!table.rows[0].t) return null;
    const rows = await client.query("SELECT EXISTS (SELECT 1 FROM tokens) AS any");
    return rows.rows[0].any ? "it holds indexed data of an unknown chain" : null;
  } finally {
    await client.end().catch(() => {});
  }
}

async function migrateDatabase(databaseUrl) {
  const { migrate } = await import(new URL("../prisma/dist/index.js", import.meta.url).href);
  const result = await migrate({
    databaseUrl,
    logger: { info: () => {}, warn: (m) => warn(`db: ${m}`), error: (m) => warn(`db: ${m}`) },
  });
  const name = databaseNameOf(databaseUrl);
  say(
    result.applied.length
      ? `database ${name}: applied ${result.applied.length} migration(s)`
      : `database ${name}: schema up to date`,
  );
}

// ---------------------------------------------------------------------------------------------
// 3. Child processes

/** @type {Map<string, {name: string, child: import("node:child_process").ChildProcess, exited: Promise<number|null>, critical: boolean}>} */
const children = new Map();
let stopping = false;
/** Set once every service answered: from then on, a service process that dies is restarted. */
let systemReady = false;

const LEVELS = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** Formats one output line of a child for the terminal (pino JSON lines become `level msg`). */
function formatLine(line) {
  if (!line.startsWith("{")) return { text: line, level: 30, json: false };
  try {
    const record = JSON.parse(line);
    const level = typeof record.level === "number" ? record.level : 30;
    const { msg, level: _l, time: _t, pid: _p, hostname: _h, service: _s, err, ...rest } = record;
    // Errors: the message and code (the stack stays in the log file unless VERBOSE).
    if (err && typeof err === "object") {
      rest.error = err.message;
      if (err.code) rest.code = err.code;
      if (VERBOSE && err.stack) rest.stack = err.stack;
    }
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    const levelText = level >= 40 ? `${paint(level >= 50 ? 31 : 33, LEVELS[level] ?? level)} ` : "";
    return { text: `${levelText}${msg ?? ""}${extra}`, level, json: true };
  } catch {
    return { text: line, level: 30, json: false };
  }
}

function logFileOf(name) {
  const file = join(LOG_DIR, `${name}.log`);
  // Keep one previous log of each service; start each run with a fresh file.
  if (existsSync(file)) renameSync(file, `${file}.1`);
  return file;
}

/**
 * Starts `command args` as a child in its own process group (a terminal Ctrl-C reaches only this
 * script, which then stops the children in order). Output goes to `.data/logs/<name>.log`; error
 * lines (and every line with VERBOSE=true) are also printed, prefixed with the name.
 */
function startChild(
  name,
  command,
  args,
  childEnv,
  { critical = true, stopSignal = "SIGTERM", showLine = undefined } = {},
) {
  const file = logFileOf(name);
  const entry = { name, child: undefined, exited: undefined, critical, file, stopSignal, restarts: 0 };
  const spawnOnce = () => {
    appendFileSync(file, `# ${new Date().toISOString()} ${command} ${args.join(" ")}\n`);
    const child = spawn(command, args, {
      cwd: ROOT,
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const onLine = (stream) => (line) => {
      appendFileSync(file, `${line}\n`);
      const { text, level, json } = formatLine(line);
      const show =
        VERBOSE ||
        (showLine ? showLine(line) : level >= 50 || (!json && stream === "stderr" && line.trim() !== ""));
      if (show) process.stdout.write(`${tag(name)} ${text}\n`);
    };
    createInterface({ input: child.stdout }).on("line", onLine("stdout"));
    createInterface({ input: child.stderr }).on("line", onLine("stderr"));
    const exited = new Promise((done) => {
      child.once("exit", (code, signal) => done(code ?? (signal ? 128 : null)));
      child.once("error", (error) => {
        appendFileSync(file, `spawn failed: ${error.message}\n`);
        done(127);
      });
    });
    const spawnedAt = Date.now();
    entry.child = child;
    entry.exited = exited;
    exited.then((code) => {
      if (stopping || entry.child !== child || entry.retired) return;
      process.stderr.write(
        `${tag("start")} ${paint(31, `${name} exited (code ${code})`)}; last lines of ${file}:\n`,
      );
      process.stderr.write(tail(file, 15));
      // Before the system is ready every exit is fatal (a bad setting fails fast); after, a
      // non-critical process is restarted with backoff while the others keep serving.
      if (critical || !systemReady) {
        void shutdown(1);
        return;
      }
      if (Date.now() - spawnedAt > 60_000) entry.restarts = 0;
      const delay = Math.min(30_000, 1000 * 2 ** entry.restarts);
      entry.restarts++;
      warn(`restarting ${name} in ${delay / 1000} s (restart ${entry.restarts})`);
      setTimeout(() => {
        if (!stopping) spawnOnce();
      }, delay).unref();
    });
  };
  spawnOnce();
  children.set(name, entry);
  return entry;
}

function tail(file, lines) {
  try {
    const text = readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines);
    return `${text.map((l) => `    ${l}`).join("\n")}\n`;
  } catch {
    return "";
  }
}

/** SIGTERM, then SIGKILL (whole process group) after `graceMs`. */
async function stopChild(entry, graceMs) {
  const { child } = entry;
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill(entry.stopSignal ?? "SIGTERM");
    } catch {}
    const timedOut = await Promise.race([entry.exited.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      warn(`${entry.name} did not stop within ${graceMs / 1000}s: killing it`);
      killGroup(child.pid);
      await entry.exited;
    }
  }
  // Whatever the child left behind in its process group (e.g. anvil under the devnet CLI).
  killGroup(child.pid);
}

function killGroup(pid) {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {}
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  say("stopping services...");
  const services = [...children.values()].filter((c) => c.name !== "devnet" && c.name !== "read-replica");
  const gateway = services.find((c) => c.name === "gateway");
  if (gateway) await stopChild(gateway, 10_000);
  await Promise.all(services.filter((c) => c !== gateway).map((c) => stopChild(c, 12_000)));
  const replica = children.get("read-replica");
  if (replica) await stopChild(replica, 30_000);
  const devnet = children.get("devnet");
  if (devnet) {
    say("stopping the devnet (saving its state)...");
    await stopChild(devnet, 20_000);
  }
  say(code === 0 ? "stopped" : "stopped (after an error)");
  process.exit(code);
}

let firstSignalAt = 0;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    // One Ctrl-C can arrive twice (from the terminal and forwarded by `pnpm`/`timeout`): only a
    // signal more than a second after the first one means "kill now".
    if (firstSignalAt === 0) firstSignalAt = Date.now();
    else if (Date.now() - firstSignalAt < 1000) return;
    else {
      warn("second signal: killing everything now");
      for (const c of children.values()) killGroup(c.child.pid);
      process.exit(130);
    }
    void shutdown(0);
  });
}
process.on("exit", () => {
  for (const c of children.values())
    if (c.child.exitCode === null && c.child.signalCode === null) killGroup(c.child.pid);
});

// ---------------------------------------------------------------------------------------------
// 4. The devnet

async function startDevnet() {
  const stateDir = join(DATA_DIR, "devnet");
  mkdirSync(stateDir, { recursive: true });
  const stateFile = join(stateDir, "state.json");
  // The deployment lives beside the chain state it belongs to (deployments/devnet.json may be
  // rewritten by other devnets); it is copied to deployments/devnet.json once the devnet is up.
  const deploymentFile = join(stateDir, "deployment.json");
  // A saved chain is resumed only under the chain id it was made with (the devnet sets it aside otherwise).
  const savedChainId = (() => {
    try {
      return Number(JSON.parse(readFileSync(deploymentFile, "utf8")).chainId);
    } catch {
      return undefined;
    }
  })();
  const resumed = existsSync(stateFile) && (savedChainId === undefined || savedChainId === DEVNET_CHAIN_ID);
  const before = mtime(deploymentFile);
  const args = [
    join(ROOT, "packages/devnet/dist/cli.js"),
    "--port",
    String(PORTS.devnet),
    "--chain-id",
    String(DEVNET_CHAIN_ID),
    "--state",
    stateFile,
    "--deployment",
    deploymentFile,
  ];
  if (env.DEVNET_BLOCK_TIME) args.push("--block-time", env.DEVNET_BLOCK_TIME);
  if (!SIMULATE) args.push("--no-simulate");
  say(
    `starting the devnet on ${HOST}:${PORTS.devnet} (chain id ${DEVNET_CHAIN_ID}, ${resumed ? "resuming the saved chain" : "new chain"}${SIMULATE ? ", simulated traders" : ", no simulator"})`,
  );
  const devnet = startChild("devnet", process.execPath, args, { ...env, DEVNET_PORT: String(PORTS.devnet) });
  const rpcUrl = `http://${HOST}:${PORTS.devnet}`;
  // Ready when the deployment file has been (re)written for this chain id and the factory has code.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (devnet.child.exitCode !== null) fail(`the devnet exited during start-up (see ${devnet.file})`);
    if (Date.now() > deadline) {
      process.stderr.write(tail(devnet.file, 20));
      await shutdown(1);
    }
    if (mtime(deploymentFile) > before || (resumed && mtime(deploymentFile) > 0)) {
      try {
        const deployment = JSON.parse(readFileSync(deploymentFile, "utf8"));
        const factory = deployment.contracts?.factory;
        const code = factory ? await rpc(rpcUrl, "eth_getCode", [factory, "latest"]) : "0x";
        const chainId = Number(await rpc(rpcUrl, "eth_chainId"));
        if (code && code !== "0x" && chainId === Number(deployment.chainId) && chainId === DEVNET_CHAIN_ID) {
          // anvil makes a new genesis block whenever it loads a state file: the block of the
          // deployment identifies the chain instead.
          const startBlock = Math.max(1, Number(deployment.startBlock ?? 1));
          const first = await rpc(rpcUrl, "eth_getBlockByNumber", [`0x${startBlock.toString(16)}`, false]);
          if (!env.TMI_DATA_DIR) {
            mkdirSync(join(ROOT, "deployments"), { recursive: true });
            writeFileSync(join(ROOT, "deployments/devnet.json"), `${JSON.stringify(deployment, null, 2)}\n`);
          }
          return { deployment, deploymentFile, rpcUrl, startBlockHash: first.hash, resumed };
        }
      } catch {}
    }
    await sleep(250);
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Services

/** Settings of the chain the services follow: the devnet's deployment or RPC_URL & co. */
async function chainSettings(devnet) {
  if (devnet) {
    const { deployment, deploymentFile, rpcUrl } = devnet;
    const c = deployment.contracts;
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
  // The table behind NETWORK (built by ensureBuilt: packages/shared/dist).
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
    nodeChainId = String(Number(await rpc(env.RPC_URL.replace(/^ws/, "http"), "eth_chainId")));
  } catch (error) {
    fail(`cannot read the chain id from RPC_URL: ${error.message}`);
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

function cursorSecret() {
  if (env.CURSOR_SECRET) return env.CURSOR_SECRET;
  const file = join(DATA_DIR, "cursor-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

/** Base URLs of the local replicas of `service` (comma-separated, as the gateway takes them). */
const replicaUrls = (service) =>
  Array.from({ length: REPLICAS[service] }, (_, k) => `http://${HOST}:${replicaOf(service, k).port}`).join(
    ",",
  );

function startServices(chain, databaseUrl, databaseReadUrl) {
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
    QUEUE_PREFIX: env.QUEUE_PREFIX || "tmi",
  };
  replicated("metadata-api", "main", metadata);
  startChild("worker", node, [entry("metadata-api", "worker")], metadata, service);
  replicated("oracle-price", "main", common);
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
    service,
  );
}

// ---------------------------------------------------------------------------------------------
// Read replica (READ_REPLICA=1)

const runningAsRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary in the foreground (as `postgres` via runuser when root); returns {status, output}. */
function runPg(binary, args, extraEnv = {}) {
  const [cmd, argv] = runningAsRoot()
    ? ["runuser", ["-u", "postgres", "--", join(PG_BIN, binary), ...args]]
    : [join(PG_BIN, binary), args];
  const result = spawnSync(cmd, argv, { encoding: "utf8", env: { ...env, ...extraEnv }, timeout: 600_000 });
  return {
    status: result.error ? -1 : result.status,
    output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error?.message ?? ""}`,
  };
}

/** A folder the PostgreSQL server may own (chowned to `postgres` when root), mode 0700. */
function serverDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runningAsRoot()) {
    // The server runs as `postgres`: it must be able to traverse the data folder (no listing).
    chmodSync(DATA_DIR, statSync(DATA_DIR).mode | 0o011);
    const ids = (flag) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, ids("-u"), ids("-g"));
  }
  chmodSync(dir, 0o700);
}

/** Resolves with the rows of `sql` on `url`, or null when the server does not answer. */
async function pgQuery(url, sql) {
  const pg = workspaceRequire()("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return (await client.query(sql)).rows;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * READ_REPLICA=1: a hot standby of DATABASE_URL's server under <data>/pg-replica, made once with
 * `pg_basebackup -R -X stream` (no replication slot: nothing is left on the primary), run as a
 * child of this script on READ_REPLICA_PORT and restarted like the services when it dies. A
 * replica that cannot stream from the primary any more (e.g. the primary was re-created) is made
 * again. Returns the replica's URL of the same database.
 */
async function startReadReplica(databaseUrl) {
  const primary = new URL(databaseUrl);
  const root = join(DATA_DIR, "pg-replica");
  const data = join(root, "data");
  const replicaUrl = new URL(databaseUrl);
  replicaUrl.hostname = HOST;
  replicaUrl.port = String(READ_REPLICA_PORT);
  const adminUrl = withDatabase(replicaUrl.toString(), "postgres");
  if (!existsSync(join(PG_BIN, "postgres")))
    fail(`READ_REPLICA=1 needs the PostgreSQL server binaries in ${PG_BIN} (set PG_BIN)`);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!existsSync(join(data, "PG_VERSION"))) {
      rmSync(data, { recursive: true, force: true });
      serverDir(root);
      say(
        `making the read replica: pg_basebackup from ${primary.hostname}:${primary.port || 5432} into ${data}`,
      );
      const made = runPg(
        "pg_basebackup",
        [
          "-h",
          primary.hostname || HOST,
          "-p",
          primary.port || "5432",
          "-U",
          decodeURIComponent(primary.username || "postgres"),
          "-D",
          data,
          "-R",
          "-X",
          "stream",
          "-c",
          "fast",
        ],
        primary.password ? { PGPASSWORD: decodeURIComponent(primary.password) } : {},
      );
      if (made.status !== 0) {
        rmSync(data, { recursive: true, force: true });
        fail(
          `pg_basebackup failed:\n${made.output.trim()}\n  The primary must allow replication connections from ${HOST} (pg_hba.conf: \`host replication all 127.0.0.1/32 trust\`, or your auth method) with wal_level=replica and max_wal_senders > 0.`,
        );
      }
      appendFileSync(
        join(data, "postgresql.auto.conf"),
        `port = ${READ_REPLICA_PORT}\nlisten_addresses = '${HOST}'\nunix_socket_directories = '${root}'\nhot_standby = on\nhot_standby_feedback = on\nlogging_collector = off\n`,
      );
      if (runningAsRoot()) spawnSync("chown", ["-R", "postgres:postgres", root]);
    }
    const argv = runningAsRoot()
      ? [
          "setpriv",
          ["--reuid=postgres", "--regid=postgres", "--init-groups", join(PG_BIN, "postgres"), "-D", data],
        ]
      : [join(PG_BIN, "postgres"), ["-D", data]];
    // SIGINT: PostgreSQL's fast shutdown (SIGTERM would wait for every client to leave).
    const child = startChild("read-replica", argv[0], argv[1], env, {
      critical: false,
      stopSignal: "SIGINT",
    });
    const streaming = await waitUntil(
      "read replica",
      async () => {
        if (child.child.exitCode !== null) return "exited";
        const rows = await pgQuery(adminUrl, "SELECT status FROM pg_stat_wal_receiver");
        return rows?.[0]?.status === "streaming" ? "streaming" : undefined;
      },
      30_000,
    );
    if (streaming === "streaming") {
      say(`read replica streaming on ${HOST}:${READ_REPLICA_PORT}`);
      return replicaUrl.toString();
    }
    child.retired = true;
    await stopChild(child, 20_000);
    children.delete("read-replica");
    if (attempt === 0) {
      warn(
        `the read replica in ${data} does not stream from the primary (see ${child.file}): making it again`,
      );
      rmSync(data, { recursive: true, force: true });
    }
  }
  fail(`the read replica does not stream from the primary; see ${join(LOG_DIR, "read-replica.log")}`);
}

async function waitUntil(_what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stopping) return false;
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
}

async function waitForServices() {
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
      await waitUntil(name, async () => (await httpGet(url)).status === 200, 60_000),
    ]),
  );
  // Then the gateway's readiness (relayed from query-api), once its upstreams listen.
  if (results.every(([, ok]) => ok)) {
    const ok = await waitUntil(
      "gateway",
      async () => (await httpGet(`${BASE_URL}/readyz`)).status === 200,
      30_000,
    );
    results.push(["gateway", ok]);
  }
  const notReady = results.filter(([, ok]) => !ok).map(([name]) => name);
  if (stopping) return;
  if (notReady.length) {
    for (const name of notReady) {
      const entry = children.get(name);
      process.stderr.write(
        `${tag("start")} ${paint(31, `${name} is not ready after 60 s`)}; last lines of ${entry?.file}:\n`,
      );
      if (entry) process.stderr.write(tail(entry.file, 15));
    }
    await shutdown(1);
  }
}

/** Waits until the gateway lists a token with indexed trades; returns that token (or undefined). */
async function waitForIndexedTrades() {
  return waitUntil(
    "indexed trades",
    async () => {
      const { status, body } = await httpGet(`${BASE_URL}/api/v1/tokens?limit=20`);
      if (status !== 200 || !Array.isArray(body?.items)) return undefined;
      return body.items.find((t) => (t.metrics?.trade_count ?? 0) > 0);
    },
    READY_TIMEOUT_MS,
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

// ---------------------------------------------------------------------------------------------
// Main

let externalChainId = "";

async function main() {
  ensureNode();
  mkdirSync(LOG_DIR, { recursive: true });
  ensureInstalled();
  ensureBuilt();

  const busy = [];
  const needed = EXTERNAL ? Object.entries(PORTS).filter(([n]) => n !== "devnet") : Object.entries(PORTS);
  for (const service of Object.keys(REPLICAS))
    for (let k = 1; k < REPLICAS[service]; k++) {
      const { name, port } = replicaOf(service, k);
      needed.push([name, port]);
    }
  if (READ_REPLICA) needed.push(["read-replica", READ_REPLICA_PORT]);
  for (const [name, port] of needed) if (!(await portIsFree(port))) busy.push(`${port} (${name})`);
  if (busy.length) {
    fail(
      `port(s) already in use: ${busy.join(", ")}.\n  Is another \`pnpm start\` running? Stop it, or choose other ports (GATEWAY_PORT, DEVNET_PORT, QUERY_API_PORT, METADATA_API_PORT, ORACLE_PRICE_PORT, INDEXER_PORT, READ_REPLICA_PORT).`,
    );
  }

  let devnet;
  let databaseUrl = env.DATABASE_URL;
  if (EXTERNAL) {
    const chain = await chainSettings(undefined);
    externalChainId = chain.CHAIN_ID;
    databaseUrl ||= `postgresql://postgres@127.0.0.1:5432/tmi_chain_${chain.CHAIN_ID}`;
    await Promise.all([checkPostgres(databaseUrl), checkRedis(REDIS_URL)]);
    await migrateDatabase(databaseUrl);
    const readUrl = READ_REPLICA ? await startReadReplica(databaseUrl) : undefined;
    say(
      `indexing chain ${chain.CHAIN_ID} at ${chain.RPC_URL} (factory ${chain.FACTORY_ADDRESS} from block ${chain.START_BLOCK}${env.NETWORK ? `, NETWORK=${env.NETWORK}` : ""}); no devnet, no simulator`,
    );
    startServices(chain, databaseUrl, readUrl);
  } else {
    databaseUrl ||= "postgresql://postgres@127.0.0.1:5432/tmi";
    await Promise.all([checkPostgres(databaseUrl), checkRedis(REDIS_URL)]);
    devnet = await startDevnet();
    const { deployment, startBlockHash, rpcUrl } = devnet;
    say(
      `devnet ready: chain ${deployment.chainId}, factory ${deployment.contracts.factory} (${seconds()} s)`,
    );
    const identity = {
      chainId: Number(deployment.chainId),
      factory: deployment.contracts.factory.toLowerCase(),
      startBlock: Number(deployment.startBlock ?? 0),
      startBlockHash,
    };
    const reset = await ensureDatabaseMatchesChain(databaseUrl, identity, rpcUrl);
    if (reset)
      await redisCommand(
        REDIS_URL,
        "EVAL",
        DELETE_PREFIX_SCRIPT,
        "0",
        // The finalize queue of metadata-api (BullMQ keys `<prefix>:metadata-finalize:*`): its jobs
        // name drafts of the dropped database.
        `${env.QUEUE_PREFIX || "tmi"}:metadata-finalize:*`,
      ).catch(() => {});
    await migrateDatabase(databaseUrl);
    const readUrl = READ_REPLICA ? await startReadReplica(databaseUrl) : undefined;
    startServices(await chainSettings(devnet), databaseUrl, readUrl);
  }
  const counts = Object.entries(REPLICAS)
    .filter(([, n]) => n > 1)
    .map(([name, n]) => `${name} ×${n}`);
  say(
    `starting indexer, query-api, metadata-api, worker, oracle-price, gateway${counts.length ? ` (${counts.join(", ")})` : ""}${READ_REPLICA ? "; query-api reads from the read replica" : ""}`,
  );
  await waitForServices();
  if (stopping) return;
  systemReady = true;
  say(`services ready (${seconds()} s)`);
  let token;
  if (!EXTERNAL && SIMULATE) {
    token = await waitForIndexedTrades();
    if (stopping) return;
    if (token) say(`the gateway serves indexed trades (${seconds()} s after start)`);
    else
      warn(
        `no indexed trades after ${READY_TIMEOUT_MS / 1000} s: check ${LOG_DIR}/indexer.log and devnet.log`,
      );
  } else {
    const { body } = await httpGet(`${BASE_URL}/api/v1/tokens?limit=1`);
    token = body?.items?.[0];
  }
  printBanner(
    token,
    EXTERNAL
      ? `chain ${externalChainId} at ${env.RPC_URL}`
      : `devnet ${devnet.rpcUrl}${SIMULATE ? ", simulated traders" : ", no simulator"}`,
  );
  writeFileSync(
    join(DATA_DIR, "start.json"),
    `${JSON.stringify({ startedAt: new Date().toISOString(), readySeconds: Number(seconds()), baseUrl: BASE_URL, pids: Object.fromEntries([...children].map(([n, c]) => [n, c.child.pid])) }, null, 2)}\n`,
  );
}

// Deletes the keys matching ARGV[1] (BullMQ queues of a reset database), in batches.
const DELETE_PREFIX_SCRIPT = `
local cursor = "0"
repeat
  local r = redis.call("SCAN", cursor, "MATCH", ARGV[1], "COUNT", 1000)
  cursor = r[1]
  for _, key in ipairs(r[2]) do redis.call("DEL", key) end
until cursor == "0"
return 0`;

main().catch(async (error) => {
  process.stderr.write(`${tag("start")} ${paint(31, "error:")} ${error?.stack ?? error}\n`);
  await shutdown(1);
});
