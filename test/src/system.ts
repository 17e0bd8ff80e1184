// The whole system as real processes for end-to-end tests: a devnet (automine), a migrated test
// database, a Redis key prefix, fs object storage in a temporary folder, and query-api,
// metadata-api, its worker, oracle-price and the gateway started from sources on free ports.
// The indexer is started separately ({@link System.startIndexer}) so that tests can observe the
// system before it indexes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Devnet, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  flushPrefix,
  freeTcpPort,
  type IndexerProcess,
  redisTestPrefix,
  type ServiceProcess,
  startIndexer,
  startServiceProcess,
  type TestDatabase,
  testRedisUrl,
  waitFor,
} from "@tmi/testkit";
import { Redis } from "ioredis";

/** A free TCP port on 127.0.0.1 for a server started later (testkit's `freeTcpPort`). */
export const freePort = freeTcpPort;

/** A response read through {@link System.request}: status, headers and the parsed JSON body. */
export interface JsonResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: API bodies are checked field by field in the tests
  body: any;
}

/** The running system of {@link startSystem}. */
export interface System {
  /** Gateway base URL, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  devnet: Devnet;
  database: TestDatabase;
  redisUrl: string;
  /** BullMQ prefix of metadata-api and its worker (also the gateway's rate-limit prefix root). */
  queuePrefix: string;
  storageDir: string;
  /** Processes by name: query-api, metadata-api, metadata-worker, oracle-price, gateway (and indexer once started). */
  processes: Map<string, ServiceProcess>;
  /** Ports of the HTTP services (127.0.0.1). */
  ports: Record<"query-api" | "metadata-api" | "oracle-price" | "gateway", number>;
  /**
   * Stops `name` (if running) and starts it again with its settings plus `env` (unset a setting
   * with an empty string); resolves once it answers `/health`.
   */
  restartService(name: string, env?: Record<string, string>): Promise<ServiceProcess>;
  /** Starts the indexer on the devnet (once); resolves when it is running (not caught up). */
  startIndexer(): IndexerProcess;
  /** The running indexer (throws before {@link System.startIndexer}). */
  indexer(): IndexerProcess;
  /** Waits until the indexer has committed the devnet's current head. */
  indexToHead(timeoutMs?: number): Promise<void>;
  /** A JSON request to the gateway (`path` starts with `/`). */
  request(path: string, init?: RequestInit): Promise<JsonResponse>;
  /** Everything the processes printed (for failure messages). */
  output(): string;
  /** Stops every process, the devnet, and removes the database, queue keys and objects. */
  stop(): Promise<void>;
}

/**
 * Starts the system (see the file comment). `env` adds settings per process name.
 * @throws Error with the processes' output when a service does not become ready within 60 s.
 */
export async function startSystem(
  options: {
    env?: Record<string, Record<string, string>>;
    echo?: boolean;
    /** A migrated database to use instead of a new test database (e.g. on a cluster of the test's own). */
    database?: TestDatabase;
  } = {},
): Promise<System> {
  const devnet = await startDevnet({ port: 0, blockTime: "automine" });
  const database = options.database ?? (await createTestDatabase());
  const redisUrl = testRedisUrl();
  const queuePrefix = redisTestPrefix("e2e").slice(0, -1);
  const storageDir = mkdtempSync(join(tmpdir(), "tmi-e2e-objects-"));
  const { deployment } = devnet;
  const ports = {
    "query-api": await freePort(),
    "metadata-api": await freePort(),
    "oracle-price": await freePort(),
    gateway: await freePort(),
  };
  const processes = new Map<string, ServiceProcess>();
  const launchSpecs = new Map<string, { service: string; env: Record<string, string>; entry?: string }>();
  const common = { LOG_LEVEL: "info", HOST: "127.0.0.1", NODE_ENV: "test" };
  const metadataEnv = {
    ...common,
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: queuePrefix,
    RPC_URL: devnet.rpcUrl,
    CHAIN_ID: String(devnet.chainId),
    // metadata-api reads launches (`TokenLaunchedV3`) from the factory's receipts.
    FACTORY_ADDRESS: deployment.contracts.factory,
    STORAGE_DRIVER: "fs",
    STORAGE_DIR: storageDir,
  };
  const start = (name: string, service: string, env: Record<string, string>, entry?: string) => {
    launchSpecs.set(name, { service, env, entry });
    processes.set(
      name,
      startServiceProcess({ service, entry, echo: options.echo, env: { ...env, ...options.env?.[name] } }),
    );
  };
  start("query-api", "query-api", {
    ...common,
    PORT: String(ports["query-api"]),
    DATABASE_URL: database.url,
    CURSOR_SECRET: "e2e-cursor-secret-0123456789abcdef",
  });
  start("metadata-api", "metadata-api", { ...metadataEnv, PORT: String(ports["metadata-api"]) });
  start("metadata-worker", "metadata-api", metadataEnv, "worker");
  start("oracle-price", "oracle-price", {
    ...common,
    PORT: String(ports["oracle-price"]),
    ORACLE_RPC_URL: devnet.rpcUrl,
    ORACLE_CHAIN_ID: String(devnet.chainId),
    ORACLE_ETH_USD_ADDRESS: deployment.contracts.ethUsdFeed,
    ORACLE_SEQUENCER_UPTIME_ADDRESS: deployment.contracts.sequencerUptimeFeed,
    ORACLE_ETH_USD_MAX_AGE: "3600",
    ORACLE_SEQUENCER_GRACE_PERIOD: "600",
  });
  start("gateway", "gateway", {
    ...common,
    GATEWAY_PORT: String(ports.gateway),
    QUERY_API_URL: `http://127.0.0.1:${ports["query-api"]}`,
    METADATA_API_URL: `http://127.0.0.1:${ports["metadata-api"]}`,
    ORACLE_PRICE_URL: `http://127.0.0.1:${ports["oracle-price"]}`,
    REDIS_URL: redisUrl,
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_REDIS_PREFIX: `${queuePrefix}:rate-limit:`,
    // API keys are looked up there (only for requests that send one).
    DATABASE_URL: database.url,
  });
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  let indexer: IndexerProcess | undefined;

  const output = () =>
    [...processes].map(([name, p]) => `----- ${name}\n${p.output().slice(-3000)}`).join("\n");

  const stop = async () => {
    await Promise.all([...processes.values()].map((p) => p.stop().catch(() => p.kill())));
    await devnet.stop().catch(() => {});
    await database.drop().catch(() => {});
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis
      .connect()
      .then(() => flushPrefix(redis, `${queuePrefix}:`))
      .catch(() => {})
      .finally(() => redis.disconnect());
    rmSync(storageDir, { recursive: true, force: true });
  };

  const request = async (path: string, init?: RequestInit): Promise<JsonResponse> => {
    const response = await fetch(`${baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, headers: response.headers, body };
  };

  try {
    const probes: [string, string][] = [
      ["query-api", `http://127.0.0.1:${ports["query-api"]}/readyz`],
      ["metadata-api", `http://127.0.0.1:${ports["metadata-api"]}/readyz`],
      ["oracle-price", `http://127.0.0.1:${ports["oracle-price"]}/health`],
      ["gateway", `${baseUrl}/health`],
    ];
    await Promise.all(
      probes.map(([name, url]) =>
        waitFor(
          async () => {
            const proc = processes.get(name)!;
            if (proc.child.exitCode !== null)
              throw new Error(`${name} exited:\n${proc.output().slice(-3000)}`);
            const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
            return response.ok;
          },
          { timeoutMs: 180_000, intervalMs: 200, message: `${name} not ready` },
        ),
      ),
    );
  } catch (error) {
    const text = output();
    await stop();
    throw new Error(`${(error as Error).message}\n${text}`);
  }

  return {
    baseUrl,
    devnet,
    database,
    redisUrl,
    queuePrefix,
    storageDir,
    processes,
    ports,
    async restartService(name, env = {}) {
      const spec = launchSpecs.get(name);
      if (!spec) throw new Error(`unknown service ${name}`);
      // A quick kill: these restarts test settings, not graceful shutdown.
      await processes.get(name)?.kill();
      const proc = startServiceProcess({
        service: spec.service,
        entry: spec.entry,
        echo: options.echo,
        env: { ...spec.env, ...options.env?.[name], ...env },
      });
      processes.set(name, proc);
      const port = ports[name as keyof typeof ports];
      if (port) {
        await waitFor(
          async () => {
            if (proc.child.exitCode !== null)
              throw new Error(`${name} exited:\n${proc.output().slice(-3000)}`);
            return (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) })).ok;
          },
          { timeoutMs: 180_000, intervalMs: 200, message: `${name} not restarted` },
        );
      }
      return proc;
    },
    startIndexer() {
      if (indexer) return indexer;
      indexer = startIndexer({
        ...devnetIndexerOptions(devnet, database.url, { ethUsdFeed: true }),
        echo: options.echo,
        env: { LOG_LEVEL: "info", ...options.env?.indexer },
      });
      processes.set("indexer", indexer);
      return indexer;
    },
    indexer() {
      if (!indexer) throw new Error("the indexer is not started");
      return indexer;
    },
    async indexToHead(timeoutMs = 30_000) {
      if (!indexer) throw new Error("the indexer is not started");
      const block = await chainHead(devnet.rpcUrl);
      await indexer.waitForBlock(block, timeoutMs);
    },
    request,
    output,
    stop,
  };
}
