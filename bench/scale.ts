// `pnpm bench scale [--duration=6] [--connections=50] [--replicas=1,2,3]`: query-api scaled out on a
// read replica. A PostgreSQL primary and a `pg_basebackup -R` streaming standby of the bench's own
// (testkit clusters on free ports; the synthesized data set of api-data-lib.ts: 2,000 tokens,
// 200,000 trades, built on the primary and copied by the base backup), then for 1, 2 and 3
// query-api replicas (reading from the standby) behind one gateway: req/s and p99 of token detail
// and the token list through the gateway, and CPU time per request of each part — the gateway, the
// query-api replicas together, the PostgreSQL primary and the standby (every process of each
// cluster). On one 2-core machine more replicas cannot add req/s; CPU per request staying flat as
// replicas grow is what shows that capacity scales with cores.
// BENCH_SCALE_CPU_PROF=<dir>: the gateway runs with the inspector's CPU profiler
// (bench/_cpu-prof-preload.mjs) and writes gateway-<pid>.cpuprofile there at the end.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type PostgresCluster, type ServiceProcess, startPostgresCluster, startStandby } from "@tmi/testkit";
import pg from "pg";
import { ensureBenchDatabase } from "./api-data-lib.js";
import { loadArgs, printTable, rssOf, runLoad } from "./oracle-gateway-lib.js";
import { serviceAddress, startGatewayProcess, startQueryApiProcess } from "./service-processes.js";

const { durationSeconds, connections } = loadArgs({ duration: 6 });
const replicaCounts = (process.argv.find((a) => a.startsWith("--replicas="))?.slice(11) ?? "1,2,3")
  .split(",")
  .map(Number)
  .filter((n) => n >= 1);
const CPU_PROF = process.env.BENCH_SCALE_CPU_PROF;
const SECRET = "scale-bench-cursor-secret-0123456789";
const log = (line: string) => process.stderr.write(`${line}\n`);

/** CPU time (ms) of every process of a cluster: the postmaster with its reaped children, plus the live ones. */
function clusterCpuMs(cluster: PostgresCluster): number {
  const postmaster = Number(readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      if (pid === postmaster) {
        // utime, stime, cutime, cstime (ticks of 10 ms): exited backends are in the last two.
        total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
      } else if (ppid === postmaster) total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {}
  }
  return total;
}

log("starting a primary and a streaming standby (own clusters)");
const primary = await startPostgresCluster({ settings: { shared_buffers: "128MB" } });
let standby: PostgresCluster | undefined;
const processes: ServiceProcess[] = [];
type Row = {
  replicas: number;
  route: string;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  gateway_us: number;
  query_api_us: number;
  primary_us: number;
  replica_us: number;
  gateway_rss_mb: number;
  loadavg_1m: number;
};
const rows: Row[] = [];
try {
  const data = await ensureBenchDatabase({
    adminUrl: primary.url(),
    name: "scale_bench",
    tokens: 2_000,
    trades: 200_000,
    log,
  });
  standby = await startStandby(primary, { settings: { shared_buffers: "128MB" } });
  const readUrl = standby.url("scale_bench");
  const setup = new pg.Pool({ connectionString: readUrl, max: 2 });
  const tokens: string[] = (
    await setup.query("SELECT address FROM tokens WHERE trade_count > 0 ORDER BY md5(address) LIMIT 500")
  ).rows.map((r) => r.address);
  await setup.end();
  let counter = 0;
  const routes = [
    { route: "detail", path: () => `/api/v1/tokens/${tokens[counter++ % tokens.length]}` },
    { route: "list", path: () => "/api/v1/tokens" },
  ];

  for (const n of replicaCounts) {
    const queryApis = Array.from({ length: n }, () =>
      startQueryApiProcess({ DATABASE_URL: data.url, DATABASE_READ_URL: readUrl, CURSOR_SECRET: SECRET }),
    );
    processes.push(...queryApis);
    const urls = await Promise.all(queryApis.map((q, i) => serviceAddress(q, `query-api ${i + 1}`)));
    const gateway = startGatewayProcess({
      QUERY_API_URL: urls.join(","),
      ...(CPU_PROF ? { TMI_CPU_PROF_DIR: CPU_PROF } : {}),
      ...(CPU_PROF
        ? { NODE_OPTIONS: `--import=${new URL("./_cpu-prof-preload.mjs", import.meta.url).href}` }
        : {}),
    });
    processes.push(gateway);
    const base = await serviceAddress(gateway, "gateway");
    for (const route of routes) {
      const check = await fetch(base + route.path());
      if (check.status !== 200) throw new Error(`${route.route}: ${check.status} ${await check.text()}`);
      await check.arrayBuffer();
      const pids = [gateway.child.pid, ...queryApis.map((q) => q.child.pid)];
      const before = { primary: clusterCpuMs(primary), replica: clusterCpuMs(standby) };
      const figures = await runLoad({
        url: base,
        path: route.path,
        connections,
        durationSeconds,
        cpuPids: pids,
      });
      // runLoad's own CPU window excludes its warm-up; the clusters are read around the whole call,
      // so their figure is scaled by the measured share of the requests (warm-up 2 s of 2 + duration).
      const after = { primary: clusterCpuMs(primary), replica: clusterCpuMs(standby) };
      const total = figures.rps * durationSeconds;
      const measuredShare = durationSeconds / (durationSeconds + 2);
      const perRequestUs = (ms: number) => Math.round(((ms * measuredShare) / Math.max(1, total)) * 1000);
      const row: Row = {
        replicas: n,
        route: route.route,
        rps: figures.rps,
        p50_ms: figures.p50_ms,
        p99_ms: figures.p99_ms,
        errors: figures.errors + figures.timeouts + figures.non_2xx,
        gateway_us: Math.round((figures.cpu_ms_per_req[0] ?? 0) * 1000),
        query_api_us: Math.round(figures.cpu_ms_per_req.slice(1).reduce((a, b) => a + b, 0) * 1000),
        primary_us: perRequestUs(after.primary - before.primary),
        replica_us: perRequestUs(after.replica - before.replica),
        gateway_rss_mb: rssOf(gateway.child.pid).rss_mb,
        loadavg_1m: figures.loadavg_1m,
      };
      rows.push(row);
      log(`  ${n} replica(s) ${route.route}: ${row.rps} req/s p99 ${row.p99_ms} ms (load ${row.loadavg_1m})`);
    }
    if (CPU_PROF && gateway.child.pid) {
      process.kill(gateway.child.pid, "SIGUSR2");
      await new Promise((r) => setTimeout(r, 1000));
      log(`  gateway CPU profile: ${CPU_PROF}/indexer-${gateway.child.pid}.cpuprofile`);
    }
    await Promise.all([gateway, ...queryApis].map((p) => p.stop()));
    processes.length = 0;
  }
} finally {
  await Promise.all(processes.map((p) => p.stop().catch(() => p.kill())));
  await standby?.destroy();
  await primary.destroy();
}

console.log(
  `\nscale-out: query-api replicas on a streaming standby behind one gateway; 2,000 tokens, 200,000 trades; ${connections} connections, ${durationSeconds} s per run; every process on this machine (CPU µs per request: user + system)\n`,
);
printTable(
  rows.map((r) => ({
    replicas: r.replicas,
    route: r.route,
    "req/s": r.rps,
    "p50 ms": r.p50_ms,
    "p99 ms": r.p99_ms,
    errors: r.errors,
    "gateway µs": r.gateway_us,
    "query-api µs": r.query_api_us,
    "primary µs": r.primary_us,
    "replica µs": r.replica_us,
    load: r.loadavg_1m,
  })),
);
console.log("");
for (const r of rows)
  console.log(JSON.stringify({ bench: "scale", connections, duration_s: durationSeconds, ...r }));
