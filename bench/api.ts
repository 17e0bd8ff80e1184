// `pnpm bench api`: query-api under load on a synthesized database (see api-data-lib.ts) of
// ≥ 10,000 tokens and ≥ 1,000,000 trades. query-api runs as its own process (from sources, the
// read-only pool of main.ts); autocannon 9 drives each route with 50 connections; then the same
// query functions run straight on a `pg` pool with 50 concurrent callers, for comparison.
// Prints a table, then one JSON line per route:
//   {"bench":"api","route":...,"rps":...,"p99_ms":...,"rss_mb":...,"errors":...,"pg_rps":...,"pg_p99_ms":...}
// Options: --duration=<s> (10) --pg-duration=<s> (5) --connections=<n> (50) --pool=<n> (DB_POOL_MAX, 16)
//          --tokens=<n> (10000) --trades=<n> (1000000) --rebuild --only=<route,...>
//          --pnl-cache-positions=<n> (query-api's TRADERS_PNL_CACHE_POSITIONS, 100000; 0: every pnl page
//          sorted in SQL, the statement before the rankings) --database=<name> (qapi_bench_v4)
//          --cache (query-api's response cache on, QUERY_CACHE_ENABLED; off by default so the figures
//          are those of computing every request; with it, each route's share of cache hits is printed:
//          the data does not move during the run, so it shows the cost of serving a kept answer)
//          --mix (one run of the traffic mix of api-mix-lib.ts instead of route by route: 200 connections,
//          tokens by Zipf --zipf=<s> (1.1), the response cache on and a new block every --block-ms=<ms>
//          (2000, Base's block time); prints req/s, p50/p99, CPU per request and the cache's share)
//          --mix-kinds (with --mix: then each kind of the mix alone, same settings, --duration each:
//          req/s, CPU per request and cache share per kind, to see which kinds cost the mix its CPU)
// CPU per request: query-api's and its PostgreSQL backends' (from /proc) over each route's run.
import { readFileSync } from "node:fs";
import os from "node:os";
import { startServiceProcess, waitFor } from "@tmi/testkit";
import autocannon from "autocannon";
import type pg from "pg";
import { createCursorCodec } from "../packages/shared/src/codec/index.js";
import { DEFAULT_TRADERS_PNL_CACHE_POSITIONS } from "../services/query-api/src/config.js";
import { createReadPool } from "../services/query-api/src/db.js";
import { createPnlRankings } from "../services/query-api/src/tokens/traders/pnl-ranking.js";
import { BENCH_CHAIN_ID } from "./api-data-lib.js";
import { mixPaths, seededRandom, simulateBlocks, trafficMix } from "./api-mix-lib.js";
import { apiRoutes, type RouteBench, TARGETS } from "./api-routes-lib.js";
import { openBenchData, pickApiSamples } from "./api-samples-lib.js";
import { parseBenchArgs } from "./bench-args-lib.js";
import { sampleProcess } from "./indexer-history-lib.js";

const args = parseBenchArgs();
const { num } = args;
const DURATION = num("duration", 10);
const PG_DURATION = num("pg-duration", 5);
const MIX = args.has("mix");
const MIX_KINDS = args.has("mix-kinds");
const CONNECTIONS = num("connections", MIX ? 200 : 50);
const POOL = num("pool", 16);
const ONLY = args.only;
const PNL_CACHE_POSITIONS = num("pnl-cache-positions", DEFAULT_TRADERS_PNL_CACHE_POSITIONS);
const SECRET = "bench-cursor-secret-0123456789abcdef";
const CACHE = args.has("cache") || MIX;

const log = (line: string) => process.stderr.write(`${line}\n`);

// The default name follows the data set version (other branches may keep an older qapi_bench).
const data = await openBenchData(args, "qapi_bench_v4", log);
log(
  data.built
    ? `database built in ${data.seconds.toFixed(0)} s`
    : "database already built (pass --rebuild to rebuild)",
);

const codec = createCursorCodec(SECRET);
const samples = await pickApiSamples(data.url, codec);
const { sizes } = samples;
// The pnl sort as query-api reads it, with rankings of the same size as the server's.
const routes = apiRoutes(samples, codec, createPnlRankings({ maxPositions: PNL_CACHE_POSITIONS }));

// query-api as its own process, on the read-only pool of main.ts.
const server = startServiceProcess({
  service: "query-api",
  env: {
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    DATABASE_URL: data.url,
    CURSOR_SECRET: SECRET,
    DB_POOL_MAX: String(POOL),
    TRADERS_PNL_CACHE_POSITIONS: String(PNL_CACHE_POSITIONS),
    QUERY_CACHE_ENABLED: String(CACHE),
    // The heap settings of the service's start script (services/query-api/package.json).
    NODE_OPTIONS: args.get("node-options") ?? "--max-old-space-size=192",
  },
});
const address = await waitFor(
  () => {
    if (server.child.exitCode !== null) throw new Error(`query-api exited: ${server.output()}`);
    const match = /"address":"(http:\/\/[^"]+)"/.exec(server.output());
    return match?.[1];
  },
  { timeoutMs: 60_000, message: "query-api did not start" },
);
const pid = server.child.pid!;
const rssMb = () => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

/** query-api's response cache hits and misses so far (`/metrics`). */
async function cacheCounts(): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${address}/metrics`)).text();
  const count = (result: string) =>
    Number(
      new RegExp(`query_api_response_cache_requests_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ??
        0,
    );
  return { hit: count("hit"), miss: count("miss") };
}

async function load(path: () => string, seconds: number) {
  const cacheBefore = await cacheCounts();
  const cpu = await sampleProcess(() => [pid], data.url);
  const cpuBefore = await cpu.figures();
  let peak = rssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 200);
  const result = await autocannon({
    url: address,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: path() }) }],
  });
  clearInterval(timer);
  peak = Math.max(peak, rssMb());
  const cpuAfter = await cpu.stop();
  const cacheAfter = await cacheCounts();
  const hits = cacheAfter.hit - cacheBefore.hit;
  const lookups = hits + cacheAfter.miss - cacheBefore.miss;
  const perRequest = (seconds: number) => (seconds * 1000) / Math.max(1, result.requests.total);
  return {
    result,
    peak,
    cpuApiMs: perRequest(cpuAfter.cpuSecondsProcess - cpuBefore.cpuSecondsProcess),
    cpuPgMs: perRequest(cpuAfter.cpuSecondsPostgres - cpuBefore.cpuSecondsPostgres),
    hitShare: lookups > 0 ? hits / lookups : null,
  };
}

async function rawPg(run: (db: pg.Pool) => Promise<unknown>, seconds: number) {
  const db = createReadPool({ url: data.url, max: POOL });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        await run(db);
        latencies.push(performance.now() - started);
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await db.end();
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  return { rps: latencies.length / seconds, p99, errors };
}

interface Row {
  route: string;
  group: RouteBench["group"];
  rps: number;
  /** Best one-second rate of the run (less sensitive to other load on the machine). */
  rpsMax: number;
  /** 1-minute load average when the route's run ended. */
  load: number;
  p50: number;
  p99: number;
  errors: number;
  rss: number;
  pgRps: number;
  pgP99: number;
  /** CPU ms per request of query-api and of its PostgreSQL backends during the route's run. */
  cpuApiMs: number;
  cpuPgMs: number;
  /** Share of the run's requests answered from query-api's response cache (null: cache off). */
  hitShare: number | null;
}
const rows: Row[] = [];
const loadBefore = os.loadavg();

/** `--mix`: the traffic mix in one run, new blocks simulated; prints its figures and returns. */
async function runMix(): Promise<void> {
  const mix = await trafficMix(data.url, samples, { exponent: num("zipf", 1.1), seed: 1 });
  const path = mixPaths(mix, seededRandom(2));
  for (const entry of mix) {
    const response = await fetch(`${address}${entry.path()}`);
    if (response.status !== 200)
      throw new Error(`${entry.kind}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  }
  await load(path, 2); // warm-up
  const stopBlocks = await simulateBlocks(data.url, num("block-ms", 2000));
  let figures: Awaited<ReturnType<typeof load>>;
  try {
    figures = await load(path, DURATION);
  } finally {
    await stopBlocks();
  }
  const kinds: string[] = [];
  if (MIX_KINDS) {
    for (const entry of mix) {
      const stop = await simulateBlocks(data.url, num("block-ms", 2000));
      try {
        const alone = await load(mixPaths([entry], seededRandom(3)), DURATION);
        const total = alone.result.requests.total;
        const errors = alone.result.errors + alone.result.timeouts + alone.result.non2xx;
        kinds.push(
          `  ${entry.kind.padEnd(9)} ${alone.result.requests.average.toFixed(0).padStart(6)} req/s  ` +
            `CPU ${alone.cpuApiMs.toFixed(3)} + ${alone.cpuPgMs.toFixed(3)} ms/request  ` +
            `cache ${alone.hitShare === null ? "-" : `${(alone.hitShare * 100).toFixed(1)} %`}  ` +
            `errors ${errors}/${total}`,
        );
      } finally {
        await stop();
      }
    }
  }
  const { result, peak, cpuApiMs, cpuPgMs, hitShare } = figures;
  const errors = result.errors + result.timeouts + result.non2xx;
  const ok = result.requests.average >= 3000 && result.latency.p99 <= 50 && errors === 0;
  console.log(
    `\nquery-api traffic mix — ${new Date().toISOString()} — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}; load (1 min) ${loadBefore[0]!.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}`,
  );
  console.log(
    `data: ${sizes.tokens} tokens, ${sizes.trades} trades; ${CONNECTIONS} connections, ${DURATION} s, Zipf ${num("zipf", 1.1)} over ${samples.tokens.length} tokens, a block every ${num("block-ms", 2000)} ms`,
  );
  console.log(
    `mix: ${mix.map((entry) => `${entry.kind} ${entry.weight}`).join(", ")} (weights)\n` +
      `${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}, RSS ${peak.toFixed(0)} MB, ` +
      `CPU ${cpuApiMs.toFixed(3)} + ${cpuPgMs.toFixed(3)} ms/request (query-api + PostgreSQL), cache share ${hitShare === null ? "-" : `${(hitShare * 100).toFixed(1)} %`} — ` +
      `${ok ? "ok" : "MISS"} (goal ≥ 3000 req/s at p99 ≤ 50 ms)`,
  );
  if (kinds.length > 0)
    console.log(`each kind alone (${DURATION} s, same connections and blocks):\n${kinds.join("\n")}`);
  console.log(
    JSON.stringify({
      bench: "api-mix",
      rps: Math.round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      errors,
      rss_mb: Math.round(peak),
      cpu_api_ms_per_req: Number(cpuApiMs.toFixed(3)),
      cpu_pg_ms_per_req: Number(cpuPgMs.toFixed(3)),
      cache_hit_share: hitShare === null ? null : Number(hitShare.toFixed(3)),
      connections: CONNECTIONS,
    }),
  );
}
try {
  // Sanity: every route answers 200 before it is measured.
  for (const r of routes) {
    const response = await fetch(`${address}${r.path()}`);
    if (response.status !== 200) throw new Error(`${r.route}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer().catch(() => {});
  }
  if (MIX) await runMix();
  for (const r of MIX ? [] : routes) {
    if (ONLY && !ONLY.includes(r.route)) continue;
    await load(r.path, 2); // warm-up
    const { result, peak, cpuApiMs, cpuPgMs, hitShare } = await load(r.path, DURATION);
    const pgResult = r.raw ? await rawPg(r.raw, PG_DURATION) : { rps: 0, p99: 0, errors: 0 };
    const row: Row = {
      route: r.route,
      group: r.group,
      rps: result.requests.average,
      rpsMax: result.requests.max,
      load: os.loadavg()[0]!,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      rss: peak,
      pgRps: pgResult.rps,
      pgP99: pgResult.p99,
      cpuApiMs,
      cpuPgMs,
      hitShare,
    };
    rows.push(row);
    log(
      `  ${r.route}: ${row.rps.toFixed(0)} req/s p99 ${row.p99} ms errors ${row.errors} rss ${row.rss.toFixed(0)} MB cpu/req ${row.cpuApiMs.toFixed(2)} + ${row.cpuPgMs.toFixed(2)} ms${row.hitShare === null ? "" : ` cache hits ${(row.hitShare * 100).toFixed(1)} %`} | pg ${row.pgRps.toFixed(0)}/s p99 ${row.pgP99.toFixed(1)} ms`,
    );
  }
} finally {
  await server.stop();
}

// The route-by-route table (the mix printed its own figures).
if (!MIX) {
  const pad = (value: string, width: number) => value.padStart(width);
  console.log(
    `\nquery-api benchmark — ${new Date().toISOString()} — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
  );
  console.log(
    `load average (1 min) at start ${loadBefore[0]!.toFixed(2)}, at end ${os.loadavg()[0]!.toFixed(2)} (other work on the machine skews the figures)`,
  );
  console.log(
    `data: ${sizes.tokens} tokens, ${sizes.trades} trades, ${sizes.events} chain events, ${sizes.candles} candles (chain ${BENCH_CHAIN_ID}); ${CONNECTIONS} connections, ${DURATION} s per route, DB_POOL_MAX ${POOL}, TRADERS_PNL_CACHE_POSITIONS ${PNL_CACHE_POSITIONS}, response cache ${CACHE ? "on" : "off"}\n`,
  );
  console.log(
    `${"route".padEnd(16)}${pad("req/s", 9)}${pad("best/s", 8)}${pad("load", 6)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("errors", 8)}${pad("RSS MB", 8)}${pad("pg q/s", 9)}${pad("pg p99", 8)}${pad("api/pg", 8)}${pad("cpu ms/req", 12)}${CACHE ? pad("hits", 7) : ""}  target`,
  );
  for (const row of rows) {
    const target = TARGETS[row.group];
    const ok = row.rps >= target.rps && row.p99 <= target.p99 && row.errors === 0 && row.rss <= 300;
    console.log(
      `${row.route.padEnd(16)}${pad(row.rps.toFixed(0), 9)}${pad(row.rpsMax.toFixed(0), 8)}${pad(row.load.toFixed(1), 6)}${pad(String(row.p50), 8)}${pad(String(row.p99), 8)}${pad(String(row.errors), 8)}${pad(row.rss.toFixed(0), 8)}${pad(row.pgRps.toFixed(0), 9)}${pad(row.pgP99.toFixed(1), 8)}${pad(row.pgRps > 0 ? (row.rps / row.pgRps).toFixed(2) : "-", 8)}${pad(`${row.cpuApiMs.toFixed(2)}+${row.cpuPgMs.toFixed(2)}`, 12)}${row.hitShare === null ? "" : pad(`${(row.hitShare * 100).toFixed(0)}%`, 7)}  ${ok ? "ok" : "MISS"} (≥ ${target.rps}/s, p99 ≤ ${target.p99} ms)`,
    );
  }
  console.log("");
  for (const row of rows) {
    console.log(
      JSON.stringify({
        bench: "api",
        route: row.route,
        rps: Math.round(row.rps),
        rps_best_1s: Math.round(row.rpsMax),
        load_1m: Number(row.load.toFixed(2)),
        p99_ms: row.p99,
        rss_mb: Math.round(row.rss),
        errors: row.errors,
        pg_rps: Math.round(row.pgRps),
        pg_p99_ms: Number(row.pgP99.toFixed(1)),
        cpu_api_ms_per_req: Number(row.cpuApiMs.toFixed(3)),
        cpu_pg_ms_per_req: Number(row.cpuPgMs.toFixed(3)),
        ...(row.hitShare === null ? {} : { cache_hit_share: Number(row.hitShare.toFixed(3)) }),
      }),
    );
  }
}
