// `pnpm bench indexer`: historical sync of a loaded devnet history end to end (getLogs, decode,
// every read model committed) in the indexer's own process, then live latency on 1 s blocks.
// Settings: BENCH_INDEXER_TRADES (default 70000 V3 trades ≈ 210k+ indexed events: each curve trade
// is a Transfer, a FeesDeposited and a TokensBought/TokensSold),
// BENCH_INDEXER_LIVE_TRADES (default 40), BENCH_INDEXER_GRADUATIONS (default 10),
// BENCH_INDEXER_CACHE_DIR (default $TMPDIR/tmi-bench-indexer-<trades>-<graduations>): the loaded
// devnet (anvil state + deployment + history summary) is kept there and later runs start anvil from
// it (`--load-state`, never written back) instead of loading the history again; delete it to rebuild.
// BENCH_INDEXER_SKIP_LIVE=1 skips the live phase; BENCH_INDEXER_CPU_PROF=<dir> runs the indexer with
// the inspector's CPU profiler (bench/_cpu-prof-preload.mjs) and writes the profile there.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import {
  createTrader,
  type Deployment,
  type LoadHistoryResult,
  loadHistory,
  rpc,
  startAnvil,
  startDevnet,
} from "@tmi/devnet";
import { chainHead, createTestDatabase, startIndexer } from "@tmi/testkit";
import pg from "pg";
import { parseEther } from "viem";

const TRADES = Number(process.env.BENCH_INDEXER_TRADES ?? 70_000);
const LIVE_TRADES =
  process.env.BENCH_INDEXER_SKIP_LIVE === "1" ? 0 : Number(process.env.BENCH_INDEXER_LIVE_TRADES ?? 40);
const GRADUATIONS = Number(process.env.BENCH_INDEXER_GRADUATIONS ?? 10);
const CPU_PROF = process.env.BENCH_INDEXER_CPU_PROF;
const CACHE_DIR =
  process.env.BENCH_INDEXER_CACHE_DIR ?? join(os.tmpdir(), `tmi-bench-indexer-${TRADES}-${GRADUATIONS}`);

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
  return hwm ? Number(hwm[1]) / 1024 : Number.NaN;
}

/** CPU seconds (user + system) of process `pid` so far, from /proc. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
  } catch {
    return 0;
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

const log = (m: string) => process.stderr.write(`[bench indexer] ${m}\n`);

const stateFile = join(CACHE_DIR, "anvil-state.json");
const deploymentFile = join(CACHE_DIR, "deployment.json");
const historyFile = join(CACHE_DIR, "history.json");
if (!existsSync(historyFile)) {
  // Build the cache once: load the history into a devnet whose state anvil dumps on stop.
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = join(CACHE_DIR, "anvil-state.building.json");
  const loading = await startDevnet({
    port: 0,
    blockTime: "automine",
    stateFile: building,
    stateInterval: 1_000_000,
    deploymentFile,
  });
  log(`loading ${TRADES} trades (${GRADUATIONS} graduations) into the devnet (cache ${CACHE_DIR})…`);
  const loaded = await loadHistory({
    rpcUrl: loading.rpcUrl,
    deployment: loading.deployment,
    trades: TRADES,
    graduations: GRADUATIONS,
    logger: { info: log },
  });
  await loading.stop();
  renameSync(building, stateFile);
  writeFileSync(historyFile, JSON.stringify(loaded));
}
const history = JSON.parse(readFileSync(historyFile, "utf8")) as LoadHistoryResult;
const anvil = await startAnvil({ port: 0, args: ["--load-state", stateFile] });
const savedDeployment = JSON.parse(readFileSync(deploymentFile, "utf8")) as Deployment;
const devnet = {
  rpcUrl: anvil.rpcUrl,
  chainId: savedDeployment.chainId,
  deployment: { ...savedDeployment, rpcUrl: anvil.rpcUrl },
  stop: () => anvil.stop(),
};
const db = await createTestDatabase();
let indexer: ReturnType<typeof startIndexer> | null = null;
try {
  log(
    `history: ${history.trades} trades, ${history.events} logs in ${history.blocks} blocks (loaded in ${history.seconds.toFixed(1)} s; from ${CACHE_DIR})`,
  );
  const head = await chainHead(devnet.rpcUrl);

  // ---------------------------------------------------------------- historical
  const started = performance.now();
  indexer = startIndexer({
    databaseUrl: db.url,
    rpcUrl: devnet.rpcUrl,
    chainId: devnet.chainId,
    factoryAddress: devnet.deployment.contracts.factory,
    startBlock: devnet.deployment.startBlock,
    ethUsdFeedAddress: devnet.deployment.contracts.ethUsdFeed,
    env: {
      LOG_LEVEL: "info",
      POLL_INTERVAL_MS: "250",
      TRENDING_REFRESH_MS: "2000",
      // As `pnpm --filter @tmi/indexer start`: 256 MB old space, 64 MB semi-spaces (a batch's
      // objects die young instead of being promoted; see docs/benchmarks.md, Indexer).
      NODE_OPTIONS: [
        process.env.NODE_OPTIONS,
        "--max-old-space-size=256",
        "--max-semi-space-size=64",
        ...(CPU_PROF ? [`--import=${new URL("./_cpu-prof-preload.mjs", import.meta.url).href}`] : []),
      ]
        .filter(Boolean)
        .join(" "),
      ...(CPU_PROF ? { TMI_CPU_PROF_DIR: CPU_PROF } : {}),
    },
  });
  const pid = indexer.child.pid!;
  let rssPeakSampled = 0;
  // CPU of the indexer and of the PostgreSQL backends serving the benchmark database (sampled:
  // pooled backends may exit), so that the cost per event can be told apart from machine load.
  const backendCpu = new Map<number, number>();
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  let sampling = true;
  const sampleBackends = async () => {
    const res = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    for (const { pid: p } of res.rows) backendCpu.set(p, Math.max(backendCpu.get(p) ?? 0, cpuSeconds(p)));
  };
  const sampler = setInterval(() => {
    try {
      rssPeakSampled = Math.max(rssPeakSampled, peakRssMb(pid));
    } catch {}
    if (sampling) void sampleBackends().catch(() => {});
  }, 200);
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  const loadBefore = load();
  await indexer.waitForBlock(head, 600_000);
  const wallSeconds = (performance.now() - started) / 1000;
  if (CPU_PROF) {
    process.kill(pid, "SIGUSR2");
    const file = join(CPU_PROF, `indexer-${pid}.cpuprofile`);
    for (let i = 0; i < 300 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    log(`CPU profile: ${file}`);
  }
  await sampleBackends();
  sampling = false;
  const cpuIndexer = cpuSeconds(pid);
  const cpuPostgres = [...backendCpu.values()].reduce((a, b) => a + b, 0);
  const loadAfter = load();
  await admin.end();
  const caught = await (async () => {
    for (let i = 0; i < 100; i++) {
      const line = indexer!
        .output()
        .split("\n")
        .find((l) => l.includes('"action":"caught_up"'));
      if (line) return JSON.parse(line) as { seconds: number; stats: Record<string, number> };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("no caught_up line");
  })();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const counts = (
    await client.query<{ events: string; trades: string; tokens: string }>(
      "SELECT (SELECT count(*) FROM chain_events) AS events, (SELECT count(*) FROM trades) AS trades, (SELECT count(*) FROM tokens) AS tokens",
    )
  ).rows[0]!;
  const events = Number(counts.events);
  const s = caught.stats;
  const syncSeconds = caught.seconds;
  const historical = {
    bench: "indexer",
    phase: "historical",
    events,
    trades: Number(counts.trades),
    tokens: Number(counts.tokens),
    blocks: head - devnet.deployment.startBlock + 1,
    sync_seconds: Number(syncSeconds.toFixed(2)),
    wall_seconds_with_process_start: Number(wallSeconds.toFixed(2)),
    events_per_second: Math.round(events / syncSeconds),
    raw_logs: s.rawLogs ?? null,
    raw_logs_per_second: s.rawLogs === undefined ? null : Math.round(s.rawLogs / syncSeconds),
    log_requests: s.logRequests ?? null,
    blocks_per_second: Math.round((head - devnet.deployment.startBlock + 1) / syncSeconds),
    peak_rss_mb: 0,
    fetch_busy_share: Number((s.fetchMs! / 1000 / syncSeconds).toFixed(3)),
    decode_busy_share: Number((s.decodeMs! / 1000 / syncSeconds).toFixed(3)),
    build_busy_share: Number((s.buildMs! / 1000 / syncSeconds).toFixed(3)),
    db_busy_share: Number((s.dbMs! / 1000 / syncSeconds).toFixed(3)),
    batches: s.batches,
    cpu_seconds_indexer: Number(cpuIndexer.toFixed(2)),
    cpu_seconds_postgres: Number(cpuPostgres.toFixed(2)),
    cpu_us_per_event_indexer: Math.round((cpuIndexer * 1e6) / events),
    cpu_us_per_event_postgres: Math.round((cpuPostgres * 1e6) / events),
    load_average_before: loadBefore,
    load_average_after: loadAfter,
  };

  // ---------------------------------------------------------------- live (1 s blocks)
  await rpc(devnet.rpcUrl, "evm_setAutomine", [false]);
  await rpc(devnet.rpcUrl, "evm_setIntervalMining", [1]);
  const blockSeen = new Map<number, number>();
  let polling = true;
  const poller = (async () => {
    let last = await chainHead(devnet.rpcUrl);
    while (polling) {
      const n = await chainHead(devnet.rpcUrl).catch(() => last);
      const now = performance.now();
      for (let b = last + 1; b <= n; b++) if (!blockSeen.has(b)) blockSeen.set(b, now);
      last = Math.max(last, n);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
  const latencies: number[] = [];
  const token =
    LIVE_TRADES > 0
      ? (await trader.createToken("Live", "LIVE", { value: parseEther("0.01") })).token
      : devnet.deployment.contracts.factory;
  for (let i = 0; i < LIVE_TRADES; i++) {
    // Send at a random point within the block interval.
    await new Promise((r) => setTimeout(r, Math.random() * 1000));
    const { hash, receipt } = await trader.buy(token, parseEther("0.001"));
    const block = Number(receipt.blockNumber);
    for (;;) {
      const res = await client.query("SELECT 1 FROM trades WHERE transaction_hash = $1", [
        hash.toLowerCase(),
      ]);
      if (res.rowCount) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const visible = performance.now();
    const seen = blockSeen.get(block);
    if (seen !== undefined) latencies.push(visible - seen);
  }
  polling = false;
  await poller;
  clearInterval(sampler);
  historical.peak_rss_mb = Math.round(Math.max(rssPeakSampled, peakRssMb(pid)));
  await client.end();
  const live = {
    bench: "indexer",
    phase: "live",
    block_time_s: 1,
    trades: latencies.length,
    p50_ms: Math.round(percentile(latencies, 50)),
    p99_ms: Math.round(percentile(latencies, 99)),
    max_ms: Math.round(Math.max(...latencies)),
    peak_rss_mb: historical.peak_rss_mb,
  };
  await indexer.stop();

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  console.log(`\nIndexer benchmark — ${machine}, ${new Date().toISOString()}`);
  console.table({
    "historical events": historical.events,
    "historical trades": historical.trades,
    "historical blocks": historical.blocks,
    "sync seconds": historical.sync_seconds,
    "events/s": historical.events_per_second,
    "raw logs fetched": historical.raw_logs,
    "raw logs/s": historical.raw_logs_per_second,
    "getLogs requests": historical.log_requests,
    "blocks/s": historical.blocks_per_second,
    "peak RSS MB": historical.peak_rss_mb,
    "fetch busy share": historical.fetch_busy_share,
    "decode busy share": historical.decode_busy_share,
    "build busy share": historical.build_busy_share,
    "db busy share": historical.db_busy_share,
    "indexer CPU µs/event": historical.cpu_us_per_event_indexer,
    "PostgreSQL CPU µs/event": historical.cpu_us_per_event_postgres,
    "load average (1/5/15 min) before": historical.load_average_before,
    "load average after": historical.load_average_after,
    "live p50 ms (block seen → trade in DB)": live.p50_ms,
    "live p99 ms": live.p99_ms,
  });
  console.log(JSON.stringify(historical));
  console.log(JSON.stringify(live));
} finally {
  await indexer?.kill();
  await devnet.stop();
  await db.drop();
}
