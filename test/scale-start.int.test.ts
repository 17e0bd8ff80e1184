// `pnpm start` scaled out as docs/operations.md describes it: QUERY_API_REPLICAS=2 and
// READ_REPLICA=1 over a PostgreSQL primary of the test's own (never the machine's server: the read
// replica is a pg_basebackup of DATABASE_URL's server). Checks: both query-api replicas serve and
// read from the replica; the stream's per-client cap sees the real client behind the gateway (two
// client addresses); a killed replica is restarted while the gateway keeps answering; SIGTERM stops
// everything, the replica included.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type ClientRequest, get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PostgresCluster, startPostgresCluster, WORKSPACE_ROOT, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./src/system.js";

const dataDir = mkdtempSync(join(tmpdir(), "tmi-scale-start-"));
const STREAMS_PER_CLIENT = 2;
let primary: PostgresCluster;
let child: ChildProcess | undefined;
let text = "";
let env: Record<string, string>;

/** A free port whose +100 (the second query-api replica) is free too. */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 100 > 65535) continue;
    const probe = await import("node:net").then(
      (net) =>
        new Promise<boolean>((resolve) => {
          const server = net.createServer();
          server.once("error", () => resolve(false));
          server.listen(port + 100, "127.0.0.1", () => server.close(() => resolve(true)));
        }),
    );
    if (probe) return port;
  }
}

const gateway = () => `http://127.0.0.1:${env.GATEWAY_PORT}`;

beforeAll(async () => {
  primary = await startPostgresCluster();
  env = {
    TMI_DATA_DIR: dataDir,
    DATABASE_URL: primary.url("tmi"),
    QUEUE_PREFIX: `tmi-test-scale-start-${process.pid}`,
    DEVNET_PORT: String(await freePort()),
    GATEWAY_PORT: String(await freePort()),
    QUERY_API_PORT: String(await freePortPair()),
    METADATA_API_PORT: String(await freePort()),
    ORACLE_PRICE_PORT: String(await freePort()),
    INDEXER_PORT: String(await freePort()),
    READ_REPLICA_PORT: String(await freePort()),
    QUERY_API_REPLICAS: "2",
    READ_REPLICA: "1",
    STREAM_MAX_PER_CLIENT: String(STREAMS_PER_CLIENT),
    RATE_LIMIT_PER_MINUTE: "0",
    SIMULATE: "false",
    NO_COLOR: "1",
  };
  const base = { ...process.env };
  for (const key of [
    "RPC_URL",
    "LAUNCHPAD_ADDRESS",
    "FACTORY_ADDRESS",
    "NETWORK",
    "CHAIN_ID",
    "START_BLOCK",
    "VERBOSE",
  ])
    delete base[key];
  child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: WORKSPACE_ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const outcome = await waitFor(
    () => (child?.exitCode !== null ? "exited" : text.includes("Stop: Ctrl-C") ? "ready" : undefined),
    { timeoutMs: 300_000, intervalMs: 250, message: "pnpm start not ready" },
  ).catch(() => "timeout");
  if (outcome !== "ready") throw new Error(`pnpm start ${outcome} (${child?.exitCode}):\n${text}`);
}, 330_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 60_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  await primary?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe("pnpm start with QUERY_API_REPLICAS=2 and READ_REPLICA=1", () => {
  it("default: two query-api replicas read from the streaming replica, behind the gateway", async () => {
    expect(text).toContain("read replica streaming");
    expect(text).toContain("query-api ×2");
    for (const port of [Number(env.QUERY_API_PORT), Number(env.QUERY_API_PORT) + 100]) {
      const status = (await (await fetch(`http://127.0.0.1:${port}/api/v1/status`)).json()) as {
        read_database: unknown;
      };
      expect(status.read_database).toMatchObject({ replica: true });
    }
    expect((await fetch(`${gateway()}/api/v1/tokens?limit=5`)).status).toBe(200);
  });

  it("behavior: the stream's per-client cap sees the client behind the gateway (two client addresses)", async () => {
    const url = new URL(gateway());
    const open: ClientRequest[] = [];
    const openStream = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpGet(
          { host: url.hostname, port: url.port, path: "/api/v1/stream?events=graduated", localAddress },
          (response) => {
            if (response.statusCode !== 200) response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on("error", reject);
        open.push(request);
      });
    try {
      const statuses = [];
      for (let i = 0; i < STREAMS_PER_CLIENT * 2 + 1; i++) statuses.push(await openStream("127.0.0.2"));
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      expect(await openStream("127.0.0.3")).toBe(200);
    } finally {
      for (const request of open) request.destroy();
    }
  });

  it("behavior: a killed query-api replica is restarted while the gateway keeps answering", async () => {
    const pids = JSON.parse(readFileSync(join(dataDir, "start.json"), "utf8")).pids as Record<string, number>;
    const pid = pids["query-api-2"];
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, "SIGKILL");
    for (let i = 0; i < 20; i++) expect((await fetch(`${gateway()}/api/v1/tokens?limit=1`)).status).toBe(200);
    await waitFor(() => text.includes("restarting query-api-2"), { timeoutMs: 30_000, message: text });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${Number(env.QUERY_API_PORT) + 100}/readyz`)).status === 200,
      { timeoutMs: 60_000, message: "query-api-2 back" },
    );
  });

  it("behavior: SIGTERM stops every process, the read replica included", async () => {
    child?.kill("SIGTERM");
    const [code] = (await once(child as ChildProcess, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(text).toMatch(/stopping services[\s\S]*stopped/);
    const net = await import("node:net");
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: "127.0.0.1", port: Number(env.READ_REPLICA_PORT) });
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
