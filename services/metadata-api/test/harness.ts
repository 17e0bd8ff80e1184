// Shared harness of metadata-api's integration tests: a fresh migrated database, real Redis with
// a per-test prefix, fs or s3 (s3rver) storage, a local HTTPS image server with a self-signed
// certificate made "public" only through the injected resolver and address policy.
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createDb, createPgPool, type Db } from "@tmi/db";
import { erc20Abi } from "@tmi/shared/chain";
import { createLogger } from "@tmi/shared/logger";
import {
  createTestDatabase,
  flushPrefix,
  redisTestPrefix,
  type S3TestServer,
  startS3Server,
  type TestDatabase,
  testRedisUrl,
} from "@tmi/testkit";
import { Redis } from "ioredis";
import { type PublicClient, TransactionReceiptNotFoundError } from "viem";
import { buildApp, type MetadataAppDeps } from "../src/app.js";
import { WORKSPACE_ROOT } from "../src/env.js";
import type { ReceiptReader } from "../src/finalize/finalize-service.js";
import { createImageFetcher, type ImageFetcher, type Resolver } from "../src/images/image-fetcher.js";
import { createJobProducer, type JobProducer } from "../src/jobs/job-catalog.js";
import { isPublicAddress } from "../src/net/address-policy.js";
import { createFsStorage } from "../src/storage/fs-storage.js";
import type { ObjectStorage } from "../src/storage/object-storage.js";
import { createS3Storage } from "../src/storage/s3-storage.js";
import type { WebhookRoutesDeps } from "../src/webhooks/webhook-routes.js";

export const FACTORY = "0x00000000000000000000000000000000000000aa" as const;

/** A self-signed certificate for the test host names (openssl, made once per call). */
export async function makeCertificate(): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), "tmi-meta-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=img.test",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-addext",
        "subjectAltName=DNS:img.test,DNS:rebind.test,DNS:mixed.test,DNS:private.test,DNS:localhost,IP:127.0.0.1,IP:::1",
      ],
      { stdio: "ignore" },
    );
    return {
      key: await readFile(join(dir, "key.pem"), "utf8"),
      cert: await readFile(join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The local HTTPS image server: routes are set per test; `hits` counts requests received. */
export interface ImageServer {
  port: number;
  cert: string;
  hits: string[];
  routes: Map<
    string,
    (res: import("node:http").ServerResponse, req: import("node:http").IncomingMessage) => void
  >;
  url(host: string, path: string): string;
  close(): Promise<void>;
}

export async function startImageServer(): Promise<ImageServer> {
  const { key, cert } = await makeCertificate();
  const hits: string[] = [];
  const routes: ImageServer["routes"] = new Map();
  const server: Server = createServer({ key, cert }, (req, res) => {
    hits.push(`${req.headers.host}${req.url}`);
    const route = routes.get((req.url ?? "/").split("?")[0]!);
    if (route) route(res, req);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    cert,
    hits,
    routes,
    url: (host, path) => `https://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Test DNS: `img.test` (and `localhost`) → 127.0.0.1; `mixed.test` → 127.0.0.1 and 10.0.0.7;
 * `private.test` → 10.0.0.8; `rebind.test` → 127.0.0.1 (a host the policy does not trust).
 * `lookups` records every query.
 */
export function testResolver(): Resolver & { lookups: string[] } {
  const table: Record<string, string[]> = {
    "img.test": ["127.0.0.1"],
    localhost: ["127.0.0.1"],
    "mixed.test": ["127.0.0.1", "10.0.0.7"],
    "private.test": ["10.0.0.8"],
    "rebind.test": ["127.0.0.1"],
  };
  const lookups: string[] = [];
  const resolver = (async (hostname: string) => {
    lookups.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  }) as Resolver & { lookups: string[] };
  resolver.lookups = lookups;
  return resolver;
}

/** The test policy: public addresses, plus 127.0.0.1 but only when reached as `img.test` or `mixed.test`. */
export function testPolicy(address: string, hostname: string): boolean {
  if (address === "127.0.0.1" && (hostname === "img.test" || hostname === "mixed.test")) return true;
  return isPublicAddress(address);
}

export interface Harness {
  database: TestDatabase;
  /** Plain pool for the tests' own SQL. */
  sql: ReturnType<typeof createPgPool>;
  /** The app's Prisma client. */
  db: Db;
  storage: ObjectStorage;
  s3: S3TestServer | null;
  redis: Redis;
  prefix: string;
  jobs: JobProducer;
  fetcher: ImageFetcher;
  app: Awaited<ReturnType<typeof buildApp>>;
  storageDir: string;
  close(): Promise<void>;
}

/** Starts the app over a fresh database with the chosen storage driver (call `close` in `afterAll`). */
export async function createHarness(options: {
  driver?: "fs" | "s3";
  imageServer?: ImageServer;
  receipts?: MetadataAppDeps["receipts"];
  factory?: `0x${string}`;
  chainId?: number;
  imageMaxBytes?: number;
  fetchTimeoutMs?: number;
  backoffDelayMs?: number;
  database?: TestDatabase;
  /** Serve the webhook routes with these dependencies (the harness's `sql` pool is theirs). */
  webhooks?: Omit<WebhookRoutesDeps, "pool">;
  /** `REWARD_TREE_MAX_LEAVES` of the app (default: the app's). */
  rewardTreeMaxLeaves?: number;
}): Promise<Harness> {
  const database = options.database ?? (await createTestDatabase());
  const sql = createPgPool({ url: database.url, max: 3 });
  const db = createDb({ url: database.url, max: 5 });
  const storageDir = await mkdtemp(join(tmpdir(), "tmi-meta-objects-"));
  let s3: S3TestServer | null = null;
  let storage: ObjectStorage;
  if (options.driver === "s3") {
    s3 = await startS3Server();
    const s3Storage = createS3Storage({ ...s3, bucket: "tmi-objects-test" });
    await s3Storage.ensureBucket();
    storage = s3Storage;
  } else {
    storage = createFsStorage(join(storageDir, "objects"));
  }
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  const prefix = redisTestPrefix("metadata-api");
  const jobs = createJobProducer(redis, prefix.slice(0, -1), {
    backoffDelayMs: options.backoffDelayMs ?? 300,
  });
  const fetcher = createImageFetcher({
    timeoutMs: options.fetchTimeoutMs ?? 10_000,
    maxBytes: options.imageMaxBytes ?? 5 * 1024 * 1024,
    resolver: testResolver(),
    policy: testPolicy,
    ...(options.imageServer ? { ca: options.imageServer.cert } : {}),
  });
  const app = await buildApp({
    logger: createLogger({ service: "metadata-api-test", level: "silent" }),
    db,
    storage,
    fetcher,
    jobs,
    receipts: options.receipts ?? { getReceipt: async () => null },
    chainId: options.chainId ?? 31337,
    factory: options.factory ?? FACTORY,
    spoolDir: join(storageDir, "spool"),
    imageMaxBytes: options.imageMaxBytes ?? 5 * 1024 * 1024,
    imageMaxPixels: 40_000_000,
    ...(options.webhooks ? { webhooks: { ...options.webhooks, pool: sql } } : {}),
    ...(options.rewardTreeMaxLeaves ? { rewardTreeMaxLeaves: options.rewardTreeMaxLeaves } : {}),
  });
  return {
    database,
    sql,
    db,
    storage,
    s3,
    redis,
    prefix,
    jobs,
    fetcher,
    app,
    storageDir,
    async close() {
      await app.close();
      await fetcher.close();
      await jobs.close();
      await flushPrefix(redis, prefix);
      redis.disconnect();
      await sql.end();
      await db.$disconnect();
      await s3?.stop();
      await rm(storageDir, { recursive: true, force: true });
      if (!options.database) await database.drop();
    },
  };
}

/** Builds a multipart body with `FormData` (as a browser would) for `app.inject` or fetch. */
export async function multipart(
  fields: Record<string, string>,
  files: { field?: string; bytes: Buffer; filename?: string; type?: string }[] = [],
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) {
    form.append(
      file.field ?? "image",
      new Blob([file.bytes], { type: file.type ?? "image/png" }),
      file.filename ?? "image.png",
    );
  }
  const response = new Response(form);
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { "content-type": response.headers.get("content-type")! },
  };
}

export const BASE_FIELDS = {
  name: "Moon Cat",
  symbol: "MCAT",
  initial_supply: "1000000000000000000000000000",
};

/**
 * The error object of an error response body, in the platform's envelope (`{"error": {...}}`)
 * or flat (before the envelope): `code`, `message`, `request_id`, `details`.
 */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are untyped JSON
export function errorOf(body: any): any {
  return body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : body;
}

/**
 * The finalize's chain reads over `client` (a devnet's public client), as the tests use them: the
 * receipt of a hash (null while the chain has none) and the token's ERC-20 `name()`/`symbol()`.
 * No wallet-signature check (add `verifyMessage` for smart-wallet signatures).
 */
export function chainReceipts(client: PublicClient): ReceiptReader {
  return {
    async getReceipt(hash) {
      try {
        return await client.getTransactionReceipt({ hash });
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return null;
        throw error;
      }
    },
    async getTokenNames(token) {
      const read = (functionName: "name" | "symbol") =>
        client.readContract({ address: token, abi: erc20Abi, functionName });
      return { name: await read("name"), symbol: await read("symbol") };
    },
  };
}

/** Runs `pnpm metadata <args>` (the operator command) on the database at `databaseUrl`; resolves with its stdout. */
export async function metadataCli(databaseUrl: string, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=tmi-source", "--import", "tsx", "services/metadata-api/src/metadata-cli.ts", ...args],
    { cwd: WORKSPACE_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } },
  );
  return stdout;
}
