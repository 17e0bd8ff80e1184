// `pnpm bench stream --gateway [--streams=2000] [--clients=20] [--probe-seconds=10]`: REST reads
// through the gateway while live streams open and stay open (issue 17: streams must not starve
// reads). query-api and the gateway run as their own processes (from sources, as in production:
// both trust X-Forwarded-For from loopback, so each of `clients` addresses is a client of its own).
// Per scenario: REST latency alone (baseline), then `streams` streams opened from `clients`
// addresses (batches of 100 in flight) while REST is probed, and REST again with every stream
// open. The probe is one client sending `GET /api/v1/tokens?limit=2` and `GET /readyz` in turn,
// 40 ms apart. Two scenarios: the default per-client cap (10: most streams get 429) and a cap that
// lets every stream open. Prints a table, then one JSON line per scenario:
// {"bench":"stream-gateway","scenario",...,"rest_p99_ms",...}.
import http from "node:http";
import os from "node:os";
import { cpuMsOf, printTable, rssOf } from "./oracle-gateway-lib.js";
import { serviceAddress, startGatewayProcess, startQueryApiProcess } from "./service-processes.js";

/** Settings of {@link runStreamGatewayBench}. */
export interface StreamGatewayOptions {
  /** Migrated database with a checkpoint (query-api's readiness and the stream need one). */
  databaseUrl: string;
  streams: number;
  clients: number;
  probeSeconds: number;
  log: (line: string) => void;
}

const REDIS_URL = process.env.TMI_TEST_REDIS_URL || "redis://127.0.0.1:6379";

interface Probe {
  latencies: number[];
  failures: number;
}

/** Probes REST through `base` until `stop()` resolves true: sequential GETs, 40 ms apart. */
async function probeRest(base: string, stop: () => boolean): Promise<Probe> {
  const probe: Probe = { latencies: [], failures: 0 };
  for (let i = 0; !stop(); i++) {
    const path = i % 2 === 0 ? "/api/v1/tokens?limit=2" : "/readyz";
    const started = performance.now();
    try {
      const response = await fetch(base + path, { signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      if (response.status === 200) probe.latencies.push(performance.now() - started);
      else probe.failures += 1;
    } catch {
      probe.failures += 1;
    }
    await new Promise((r) => setTimeout(r, 40));
  }
  return probe;
}

async function probeFor(base: string, ms: number): Promise<Probe> {
  const until = performance.now() + ms;
  return probeRest(base, () => performance.now() >= until);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1));
}

/** Opens one stream as client `ip`; resolves with its status once the headers arrive (the stream stays open). */
function openStream(base: string, ip: string, open: http.ClientRequest[]): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(`${base}/api/v1/stream`, {
      agent: false,
      headers: { accept: "text/event-stream", "x-forwarded-for": ip },
    });
    open.push(request);
    request.on("response", (response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    request.on("error", () => resolve(0));
    request.setTimeout(60_000, () => request.destroy());
  });
}

/** Runs the scenarios (see the file comment) and prints their figures. */
export async function runStreamGatewayBench(options: StreamGatewayOptions): Promise<void> {
  const { log, streams, clients } = options;
  const perClientAll = Math.ceil(streams / clients);
  const results: Record<string, string | number>[] = [];
  for (const perClient of [10, perClientAll]) {
    const queryApi = startQueryApiProcess({
      DATABASE_URL: options.databaseUrl,
      CURSOR_SECRET: "stream-gateway-bench-secret-0123456789",
      TRUST_PROXY: "loopback",
      STREAM_MAX_PER_CLIENT: String(perClient),
    });
    const gateway = startGatewayProcess({
      REDIS_URL,
      TRUST_PROXY: "loopback",
      QUERY_API_URL: await serviceAddress(queryApi, "query-api"),
    });
    const open: http.ClientRequest[] = [];
    try {
      const base = await serviceAddress(gateway, "gateway");
      const pids = [queryApi.child.pid, gateway.child.pid];
      await probeFor(base, 1_000); // warm-up
      const baseline = await probeFor(base, options.probeSeconds * 1000);

      // Streams open (batches of 100 in flight) while REST is probed.
      let opening = true;
      const duringOpen = probeRest(base, () => !opening);
      const openStarted = performance.now();
      const cpu0 = pids.map(cpuMsOf);
      const statuses: number[] = [];
      for (let i = 0; i < streams; i += 100) {
        const batch = Array.from({ length: Math.min(100, streams - i) }, (_, j) =>
          openStream(base, `198.51.100.${((i + j) % clients) + 1}`, open),
        );
        statuses.push(...(await Promise.all(batch)));
      }
      const openMs = performance.now() - openStarted;
      opening = false;
      const during = await duringOpen;
      const withStreams = await probeFor(base, options.probeSeconds * 1000);
      const cpuMs = pids.map((pid, k) => cpuMsOf(pid) - cpu0[k]!);
      const phaseMs = performance.now() - openStarted;

      const ok = statuses.filter((s) => s === 200).length;
      const refused = statuses.filter((s) => s === 429).length;
      const rest = [...during.latencies, ...withStreams.latencies];
      const row = {
        bench: "stream-gateway",
        scenario: `${streams} streams from ${clients} clients, cap ${perClient}/client`,
        opened_200: ok,
        refused_429: refused,
        other: statuses.length - ok - refused,
        open_s: Number((openMs / 1000).toFixed(1)),
        baseline_p50_ms: percentile(baseline.latencies, 50),
        baseline_p99_ms: percentile(baseline.latencies, 99),
        rest_requests: rest.length,
        rest_failures: during.failures + withStreams.failures,
        rest_p50_ms: percentile(rest, 50),
        rest_p99_ms: percentile(rest, 99),
        rest_max_ms: percentile(rest, 100),
        rest_open_p99_ms: percentile(during.latencies, 99),
        rest_held_p99_ms: percentile(withStreams.latencies, 99),
        query_api_cpu_cores: Number((cpuMs[0]! / phaseMs).toFixed(2)),
        gateway_cpu_cores: Number((cpuMs[1]! / phaseMs).toFixed(2)),
        gateway_rss_mb: rssOf(gateway.child.pid).rss_mb,
        query_api_rss_mb: rssOf(queryApi.child.pid).rss_mb,
        load_avg_1m: Number(os.loadavg()[0]!.toFixed(1)),
      };
      results.push(row);
      log(`${row.scenario}: ${ok} × 200, ${refused} × 429; REST p99 ${row.rest_p99_ms} ms`);
    } finally {
      for (const request of open) request.destroy();
      await gateway.stop();
      await queryApi.stop();
    }
  }
  console.log(
    `\nstreams through the gateway vs REST reads — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, ${new Date().toISOString()}`,
  );
  printTable(
    results.map((r) => ({
      scenario: r.scenario!,
      "200": r.opened_200!,
      "429": r.refused_429!,
      other: r.other!,
      "open s": r.open_s!,
      "REST p50/p99 alone": `${r.baseline_p50_ms} / ${r.baseline_p99_ms}`,
      "REST p50/p99 with streams": `${r.rest_p50_ms} / ${r.rest_p99_ms}`,
      "max ms": r.rest_max_ms!,
      failures: r.rest_failures!,
      "CPU gw/qapi": `${r.gateway_cpu_cores} / ${r.query_api_cpu_cores}`,
      "RSS gw/qapi MB": `${r.gateway_rss_mb} / ${r.query_api_rss_mb}`,
      "load 1m": r.load_avg_1m!,
    })),
  );
  for (const r of results) console.log(JSON.stringify(r));
}
