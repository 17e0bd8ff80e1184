// Scale-out as an operator runs it, on clusters of the test's own (never the machine's server): a
// PostgreSQL primary and a `pg_basebackup -R` streaming standby, the devnet with simulated traders,
// the indexer writing to the primary, two query-api replicas reading from the standby behind two
// gateways. Checks: every route answers through the standby; a stream client never reads a
// 404/missing row for an event it was sent; one query-api killed under load fails no idempotent
// request; per-client stream caps see the real client behind the gateway (two client addresses);
// paused replay fails readiness and shows in the status and in `min_block`; a stopped standby
// answers 503 in the envelope and recovers without a restart.
import { type ClientRequest, get as httpGet } from "node:http";
import { runSimulator } from "@tmi/devnet";
import {
  createClusterDatabase,
  type PostgresCluster,
  pauseReplay,
  resumeReplay,
  type ServiceProcess,
  startPostgresCluster,
  startServiceProcess,
  startStandby,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";
import { type Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type System, startSystem } from "./src/system.js";

const MAX_LAG_S = 3;
const STREAMS_PER_CLIENT = 3;

let primary: PostgresCluster;
let standby: PostgresCluster;
let system: System;
const simulation = new AbortController();
let simulator: Promise<unknown> | undefined;
const extra: ServiceProcess[] = [];
const queryApis: { url: string; proc: () => ServiceProcess }[] = [];
const gateways: string[] = [];

// biome-ignore lint/suspicious/noExplicitAny: API bodies are checked field by field
type Body = any;

async function get(
  url: string,
  init: { dispatcher?: Agent; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: Body }> {
  const response = await undiciFetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers as unknown as Headers, body };
}

/** The error code of an error body (the envelope `{"error": {...}}`, or the flat form before it). */
// biome-ignore lint/suspicious/noExplicitAny: either envelope
const codeOf = (body: any): string | undefined => body?.error?.code ?? body?.code;

const queryApiEnv = (port: number, standbyUrl: string, primaryUrl: string) => ({
  LOG_LEVEL: "warn",
  HOST: "127.0.0.1",
  NODE_ENV: "test",
  PORT: String(port),
  DATABASE_URL: primaryUrl,
  DATABASE_READ_URL: standbyUrl,
  CURSOR_SECRET: "scale-cursor-secret-0123456789abcdef",
  READ_REPLICA_MAX_LAG_S: String(MAX_LAG_S),
  // Behind the gateway on 127.0.0.1, as `pnpm start` runs it.
  TRUST_PROXY: "loopback",
  STREAM_MAX_PER_CLIENT: String(STREAMS_PER_CLIENT),
  STREAM_IDLE_STOP_MS: "500",
});

/** Connections of query-api's stream listener on the primary (`LISTEN tmi_indexed`). */
async function listenConnections(): Promise<number> {
  const client = new pg.Client({ connectionString: primary.url() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'query-api-stream-listen'",
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  primary = await startPostgresCluster();
  const database = await createClusterDatabase(primary, "tmi_scale");
  standby = await startStandby(primary);
  const standbyUrl = standby.url("tmi_scale");
  const [port2, gatewayA, gatewayB] = [await freePort(), await freePort(), await freePort()];
  const { PORT: _port, ...firstEnv } = queryApiEnv(0, standbyUrl, database.url);
  system = await startSystem({ database, env: { "query-api": firstEnv } });
  const port1 = system.ports["query-api"];
  const second = startServiceProcess({
    service: "query-api",
    env: queryApiEnv(port2, standbyUrl, database.url),
  });
  extra.push(second);
  queryApis.push(
    { url: `http://127.0.0.1:${port1}`, proc: () => system.processes.get("query-api") as ServiceProcess },
    { url: `http://127.0.0.1:${port2}`, proc: () => second },
  );
  for (const port of [gatewayA, gatewayB]) {
    extra.push(
      startServiceProcess({
        service: "gateway",
        env: {
          LOG_LEVEL: "warn",
          HOST: "127.0.0.1",
          GATEWAY_PORT: String(port),
          QUERY_API_URL: queryApis.map((q) => q.url).join(","),
          METADATA_API_URL: `http://127.0.0.1:${system.ports["metadata-api"]}`,
          ORACLE_PRICE_URL: `http://127.0.0.1:${system.ports["oracle-price"]}`,
          RATE_LIMIT_PER_MINUTE: "0",
          UPSTREAM_EJECT_MS: "1000",
          GATEWAY_MAX_EVENT_LOOP_DELAY_MS: "0",
        },
      }),
    );
    gateways.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(
    [...queryApis.map((q) => `${q.url}/readyz`), ...gateways.map((g) => `${g}/health`)].map((url) =>
      waitFor(async () => (await get(url)).status === 200, { timeoutMs: 60_000, message: `${url} ready` }),
    ),
  );
  system.startIndexer();
  simulator = runSimulator({
    rpcUrl: system.devnet.rpcUrl,
    deployment: system.devnet.deployment,
    tps: 6,
    tokens: 3,
    graduateEvery: 0,
    feedIntervalSeconds: 0,
    signal: simulation.signal,
  }).catch(() => undefined);
  await waitFor(
    async () => {
      const { status, body } = await get(`${gateways[0]}/api/v1/tokens?limit=20`);
      return (
        status === 200 &&
        body.items?.some((t: { metrics?: { trade_count?: number } }) => (t.metrics?.trade_count ?? 0) > 1)
      );
    },
    { timeoutMs: 90_000, message: "indexed trades served through the standby" },
  );
}, 300_000);

afterAll(async () => {
  simulation.abort();
  await simulator;
  await Promise.all(extra.map((p) => p.stop().catch(() => p.kill())));
  await system?.stop();
  await standby?.destroy();
  await primary?.destroy();
}, 120_000);

describe("scale-out on a streaming standby", () => {
  it("default: every route answers through the standby, from both gateways", async () => {
    // Nobody has subscribed to the stream yet: no LISTEN connection on the primary.
    expect(await listenConnections()).toBe(0);
    const status = await get(`${queryApis[0]!.url}/api/v1/status`);
    expect(status.body.read_database).toMatchObject({ replica: true, replay_paused: false });
    const { body: page } = await get(`${gateways[0]}/api/v1/tokens?limit=20`);
    const token = page.items.find(
      (t: { metrics?: { trade_count?: number } }) => (t.metrics?.trade_count ?? 0) > 0,
    );
    const { body: openapi } = await get(`${gateways[1]}/api/v1/openapi.json`);
    const paths = Object.keys(openapi.paths).filter(
      // Webhook routes need an API key (metadata-api; docs/api.md "Webhooks").
      (p) => p !== "/api/v1/stream" && !p.includes("token-metadata") && !p.startsWith("/api/v1/webhooks"),
    );
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) {
      const url = path.replace("{address}", token.address).replace("{creator}", token.creator);
      // The DEX Screener adapter's required parameters: the token, its curve (the pair), block 1
      // (never past latest-block on either replica).
      const adapterQuery: Record<string, string> = {
        "/dexscreener/asset": `?id=${token.address}`,
        "/dexscreener/pair": `?id=${token.curve.address}`,
        "/dexscreener/events": "?fromBlock=1&toBlock=1",
      };
      const query = url.includes("/chart") ? "?interval=1m" : (adapterQuery[url] ?? "");
      for (const gateway of gateways) {
        const response = await get(`${gateway}${url}${query}`);
        expect(
          response.status,
          `${gateway}${url}${query}: ${JSON.stringify(response.body).slice(0, 300)}`,
        ).toBe(200);
      }
    }
  });

  it("behavior: a stream client finds every announced trade and token over REST at once", async () => {
    const response = await undiciFetch(`${gateways[1]}/api/v1/stream?events=trade,token_created`, {
      signal: AbortSignal.timeout(60_000),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let checked = 0;
    const misses: string[] = [];
    try {
      while (checked < 12) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!event || !data) continue;
          const payload = JSON.parse(data);
          // The REST read goes to the other gateway (and whichever replica it picks).
          if (event === "trade") {
            const trades = await get(
              `${gateways[0]}/api/v1/tokens/${payload.token_address}/trades?limit=100`,
            );
            const found =
              trades.status === 200 &&
              trades.body.items.some(
                (t: { transaction_hash: string; log_index: number }) =>
                  t.transaction_hash === payload.transaction_hash && t.log_index === payload.log_index,
              );
            if (!found)
              misses.push(`trade ${payload.transaction_hash}:${payload.log_index} (${trades.status})`);
            checked++;
          } else if (event === "token_created") {
            const detail = await get(
              `${gateways[0]}/api/v1/tokens/${payload.address ?? payload.token_address}`,
            );
            if (detail.status !== 200) misses.push(`token ${payload.address} (${detail.status})`);
            checked++;
          }
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    expect(checked).toBeGreaterThanOrEqual(12);
    expect(misses).toEqual([]);
    // The last subscriber left: the LISTEN connection closes (STREAM_IDLE_STOP_MS).
    await waitFor(async () => (await listenConnections()) === 0, {
      timeoutMs: 15_000,
      message: "the stream stops listening without subscribers",
    });
  });

  it("behavior: per-client stream caps count clients behind the gateway, not the gateway", async () => {
    const open: ClientRequest[] = [];
    const gateway = new URL(gateways[0]!);
    /** Opens a stream from `localAddress` (two client addresses on one machine: 127.0.0.2 and .3). */
    const openStream = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpGet(
          {
            host: gateway.hostname,
            port: gateway.port,
            path: "/api/v1/stream?events=graduated",
            localAddress,
          },
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
      // Client A's streams spread over both replicas: past both caps, the rest are refused.
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
      expect(await openStream("127.0.0.3")).toBe(200);
    } finally {
      for (const request of open) request.destroy();
    }
  });

  it("behavior: one query-api killed under load fails no idempotent request", async () => {
    const paths = ["/api/v1/tokens?limit=5", "/api/v1/trending?limit=5", "/api/v1/status"];
    let sent = 0;
    const failures: string[] = [];
    let killed = false;
    const worker = async (gateway: string) => {
      while (sent < 240) {
        const n = sent++;
        if (n === 60 && !killed) {
          killed = true;
          await queryApis[1]!.proc().kill();
        }
        const response = await get(`${gateway}${paths[n % paths.length]}`);
        if (response.status !== 200)
          failures.push(`${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
      }
    };
    await Promise.all([0, 1, 2, 3, 4, 5].map((i) => worker(gateways[i % 2]!)));
    expect(killed).toBe(true);
    expect(failures).toEqual([]);
  });

  it("error: paused replay fails readiness, shows in the status, and min_block answers 503 not_ready", async () => {
    const queryApi = queryApis[0]!.url;
    await pauseReplay(standby);
    try {
      const status = await waitFor(
        async () => {
          const { body } = await get(`${queryApi}/api/v1/status`);
          return body.read_database?.lag_seconds > MAX_LAG_S && body.read_database.lag_blocks > 0
            ? body
            : undefined;
        },
        { timeoutMs: 30_000, message: "status shows the replica's lag" },
      );
      expect(status.read_database.replay_paused).toBe(true);
      const ready = await get(`${queryApi}/readyz`);
      expect(ready.status).toBe(503);
      const metrics = await get(`${queryApi}/metrics`);
      expect(String(metrics.body)).toMatch(/query_api_read_database_lag_seconds [1-9]/);
      const ahead = status.read_database.indexed_block + status.read_database.lag_blocks;
      const notYet = await get(`${queryApi}/api/v1/tokens?limit=1&min_block=${ahead}`);
      expect(notYet.status).toBe(503);
      expect(codeOf(notYet.body)).toBe("not_ready");
      expect(notYet.headers.get("retry-after")).toBe("1");
      const shown = await get(
        `${queryApi}/api/v1/tokens?limit=1&min_block=${status.read_database.indexed_block}`,
      );
      expect(shown.status).toBe(200);
    } finally {
      await resumeReplay(standby);
    }
    await waitFor(async () => (await get(`${queryApi}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      message: "ready again once replay resumed",
    });
  });

  it("error: a stopped standby answers 503 service_unavailable with Retry-After; recovery without restart", async () => {
    await standby.stop();
    try {
      const down = await get(`${gateways[0]}/api/v1/tokens?limit=1`);
      expect(down.status).toBe(503);
      expect(codeOf(down.body)).toBe("service_unavailable");
      expect(down.headers.get("retry-after")).toBeTruthy();
    } finally {
      await standby.start();
    }
    await waitFor(async () => (await get(`${gateways[0]}/api/v1/tokens?limit=1`)).status === 200, {
      timeoutMs: 30_000,
      message: "served again once the standby is back",
    });
  });
});
