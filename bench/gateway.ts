// `pnpm bench gateway [--duration=8] [--connections=50] [--only=detail,list]`: the same query-api
// routes measured directly and through the gateway in one run (issue 7: the gateway may cost at
// most 35% of query-api's throughput). query-api and the gateway run as their own processes (from
// sources); query-api reads a synthesized database of its own (`gateway_bench`, built once by
// api-data-lib.ts: 2,000 tokens, 200,000 trades). The gateway runs twice: with rate limiting on
// (Redis-backed store, a limit no client reaches: the production path of a client below half its
// limit, counts added to Redis in batches) and with it off.
import { randomBytes } from "node:crypto";
import type { ServiceProcess } from "@tmi/testkit";
import pg from "pg";
import { ensureBenchDatabase } from "./api-data-lib.js";
import { type LoadFigures, loadArgs, printTable, rssOf, runLoad } from "./oracle-gateway-lib.js";
import { serviceAddress, startGatewayProcess, startQueryApiProcess } from "./service-processes.js";

/** `rounds`: over every (route, target) pair, interleaved in time; each pair keeps its best round. */
const args = loadArgs({ duration: 6 });
const { durationSeconds, rounds, connections } = args;
const only = process.argv
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",");
const ADMIN_URL = process.env.TMI_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TMI_TEST_REDIS_URL || "redis://127.0.0.1:6379";
const SECRET = "gateway-bench-cursor-secret-0123456789";
const log = (line: string) => process.stderr.write(`${line}\n`);

const data = await ensureBenchDatabase({
  adminUrl: ADMIN_URL,
  name: "gateway_bench",
  tokens: 2_000,
  trades: 200_000,
  log,
});
const setup = new pg.Pool({ connectionString: data.url, max: 2 });
const tokens: string[] = (
  await setup.query("SELECT address FROM tokens WHERE trade_count > 0 ORDER BY md5(address) LIMIT 500")
).rows.map((r) => r.address);
await setup.end();
let counter = 0;
const rotate = (list: string[]) => list[counter++ % list.length]!;

const routes: { route: string; path: () => string }[] = [
  { route: "detail", path: () => `/api/v1/tokens/${rotate(tokens)}` },
  { route: "pricing", path: () => `/api/v1/tokens/${rotate(tokens)}/pricing` },
  { route: "trades", path: () => `/api/v1/tokens/${rotate(tokens)}/trades` },
  { route: "list", path: () => "/api/v1/tokens" },
  { route: "trending", path: () => "/api/v1/trending" },
].filter((r) => !only || only.includes(r.route));

const redisPrefix = `tmi-bench:gateway:${randomBytes(4).toString("hex")}:`;
const queryApi = startQueryApiProcess({ DATABASE_URL: data.url, CURSOR_SECRET: SECRET });
const startGateway = (rateLimit: boolean, queryUrl: string) =>
  startGatewayProcess({
    QUERY_API_URL: queryUrl,
    RATE_LIMIT_PER_MINUTE: rateLimit ? "1000000000" : "0",
    RATE_LIMIT_REDIS_PREFIX: redisPrefix,
    REDIS_URL,
  });

type Row = LoadFigures & { route: string; via: string; rss_mb: number; peak_rss_mb: number };
const rows: Row[] = [];
let gatewayOn: ServiceProcess | undefined;
let gatewayOff: ServiceProcess | undefined;
try {
  const direct = await serviceAddress(queryApi, "query-api");
  gatewayOn = startGateway(true, direct);
  gatewayOff = startGateway(false, direct);
  const targets = [
    { via: "direct", base: direct, pid: undefined as number | undefined },
    {
      via: "gateway (rate limit on)",
      base: await serviceAddress(gatewayOn, "gateway"),
      pid: gatewayOn.child.pid,
    },
    {
      via: "gateway (rate limit off)",
      base: await serviceAddress(gatewayOff, "gateway"),
      pid: gatewayOff.child.pid,
    },
  ];
  for (const route of routes) {
    for (const target of targets) {
      const check = await fetch(target.base + route.path());
      if (check.status !== 200)
        throw new Error(`${route.route} via ${target.via}: ${check.status} ${await check.text()}`);
      await check.arrayBuffer();
    }
  }
  const best = new Map<string, Row>();
  for (let round = 1; round <= rounds; round++) {
    for (const route of routes) {
      for (const target of targets) {
        const figures = await runLoad({
          url: target.base,
          path: route.path,
          connections,
          durationSeconds,
          warmupSeconds: round === 1 ? 2 : 1,
          cpuPids: [queryApi.child.pid, target.pid],
        });
        const rss = rssOf(target.pid ?? queryApi.child.pid);
        const key = `${route.route}|${target.via}`;
        const previous = best.get(key);
        if (!previous || figures.rps > previous.rps)
          best.set(key, { route: route.route, via: target.via, ...figures, ...rss });
        log(
          `  round ${round} ${route.route} ${target.via}: ${figures.rps} req/s p99 ${figures.p99_ms} ms (load ${figures.loadavg_1m})`,
        );
      }
    }
  }
  rows.push(...best.values());
} finally {
  // The rate-limit counters expire by themselves 60 s after their window started.
  await Promise.all([gatewayOn?.stop(), gatewayOff?.stop(), queryApi.stop()]);
}

const directOf = (route: string) => rows.find((r) => r.route === route && r.via === "direct");
console.log(
  `\ngateway overhead: ${data.tokens} tokens, ${data.trades} trades; ${connections} connections, ${durationSeconds} s per run, best of ${rounds} interleaved rounds; all processes on this machine\n`,
);
printTable(
  rows.map((r) => {
    const base = directOf(r.route);
    const drop = base && r.via !== "direct" ? Math.round((1 - r.rps / base.rps) * 100) : undefined;
    return {
      route: r.route,
      via: r.via,
      "req/s": r.rps,
      "p50 ms": r.p50_ms,
      "p99 ms": r.p99_ms,
      errors: r.errors + r.timeouts + r.non_2xx,
      "drop %": drop ?? "",
      target: drop === undefined ? "" : drop <= 35 ? "met" : "MISSED",
      "gw cpu ms/req": r.cpu_ms_per_req[1] ?? "",
      "gw rss MB": r.via === "direct" ? "" : r.rss_mb,
      load: r.loadavg_1m,
    };
  }),
);
console.log("");
for (const r of rows) {
  const base = directOf(r.route);
  console.log(
    JSON.stringify({
      bench: "gateway",
      route: r.route,
      via: r.via,
      ...args.record(r),
      errors: r.errors + r.timeouts + r.non_2xx,
      statuses: r.statuses,
      drop_pct: base && r.via !== "direct" ? Math.round((1 - r.rps / base.rps) * 1000) / 10 : null,
      query_api_cpu_ms_per_req: r.cpu_ms_per_req[0],
      gateway_cpu_ms_per_req: r.cpu_ms_per_req[1] ?? null,
      rss_mb: r.rss_mb,
      loadavg_1m: r.loadavg_1m,
    }),
  );
}
