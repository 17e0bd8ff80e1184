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
// BENCH_INDEXER_FROM=dist|source: the built indexer as deployed (default; `pnpm build` first) or its
// TypeScript sources through tsx (whose module transpiling at start counts in the CPU per event).
// BENCH_INDEXER_NODE_OPTIONS: Node/V8 flags appended after the deployed ones (they win: V8 flag
// experiments such as another old-space size, run in pairs against the default).
// BENCH_INDEXER_WEBHOOKS=1 subscribes one enabled webhook to every event type before indexing, so
// the webhook outbox triggers write their rows (without a subscription they return at once): run
// with and without, alternating, for the triggers' cost; `outbox_events` counts what they wrote.
// BENCH_INDEXER_DUMP=<file> writes every read model (testkit's `dumpIndexedTables`, JSON) there after
// the run: compare two builds' files for identical results.
import { existsSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createTrader, rpc } from "@tmi/devnet";
import { chainHead, createTestDatabase, dumpIndexedTables } from "@tmi/testkit";
import pg from "pg";
import { parseEther } from "viem";
import {
  benchIndexerCompiled,
  loadAverage,
  openCachedHistory,
  sampleProcess,
  startBenchIndexer,
} from "./indexer-history-lib.js";

const LIVE_TRADES =
  process.env.BENCH_INDEXER_SKIP_LIVE === "1" ? 0 : Number(process.env.BENCH_INDEXER_LIVE_TRADES ?? 40);
const CPU_PROF = process.env.BENCH_INDEXER_CPU_PROF;
const WEBHOOKS = process.env.BENCH_INDEXER_WEBHOOKS === "1";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

const log = (m: string) => process.stderr.write(`[bench indexer] ${m}\n`);

const devnet = await openCachedHistory(log);
const db = await createTestDatabase();
let indexer: ReturnType<typeof startBenchIndexer> | null = null;
try {
  const head = await chainHead(devnet.rpcUrl);
  if (WEBHOOKS) {
    const setup = new pg.Client({ connectionString: db.url });
    await setup.connect();
    await setup.query(
      `INSERT INTO api_keys (id, name, tier, key_hash, key_start) VALUES ('key_bench', 'bench', 'free', 'bench', 'tmi_bench');
       INSERT INTO webhooks (id, api_key_id, url, events, secret)
       VALUES ('wh_bench', 'key_bench', 'https://example.com/hook',
               ARRAY['trade', 'token.launched', 'token.graduated', 'metadata.finalized'], 'whsec_AAAA')`,
    );
    await setup.end();
  }

  // ---------------------------------------------------------------- historical
  const started = performance.now();
  indexer = startBenchIndexer(devnet, db.url, {
    nodeOptions: CPU_PROF ? [`--import=${new URL("./_cpu-prof-preload.mjs", import.meta.url).href}`] : [],
    env: { TRENDING_REFRESH_MS: "2000", ...(CPU_PROF ? { TMI_CPU_PROF_DIR: CPU_PROF } : {}) },
  });
  const pid = indexer.child.pid!;
  const sampler = await sampleProcess(() => [pid], db.url);
  const loadBefore = loadAverage();
  await indexer.waitForBlock(head, 600_000);
  const wallSeconds = (performance.now() - started) / 1000;
  if (CPU_PROF) {
    process.kill(pid, "SIGUSR2");
    const file = join(CPU_PROF, `indexer-${pid}.cpuprofile`);
    for (let i = 0; i < 300 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    log(`CPU profile: ${file}`);
  }
  const measured = await sampler.figures();
  const cpuIndexer = measured.cpuSecondsProcess;
  const cpuPostgres = measured.cpuSecondsPostgres;
  const loadAfter = loadAverage();
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
    await client.query<{ events: string; trades: string; tokens: string; outbox: string }>(
      `SELECT (SELECT count(*) FROM chain_events) AS events, (SELECT count(*) FROM trades) AS trades,
              (SELECT count(*) FROM tokens) AS tokens, (SELECT count(*) FROM webhook_outbox) AS outbox`,
    )
  ).rows[0]!;
  const events = Number(counts.events);
  const s = caught.stats;
  const syncSeconds = caught.seconds;
  const historical = {
    bench: "indexer",
    phase: "historical",
    from: benchIndexerCompiled() ? "dist" : "source",
    events,
    trades: Number(counts.trades),
    tokens: Number(counts.tokens),
    webhooks: WEBHOOKS,
    outbox_events: Number(counts.outbox),
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
  historical.peak_rss_mb = (await sampler.stop()).peakRssMb;
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
  if (process.env.BENCH_INDEXER_DUMP) {
    writeFileSync(process.env.BENCH_INDEXER_DUMP, JSON.stringify(await dumpIndexedTables(db.url)));
    log(`read models dumped to ${process.env.BENCH_INDEXER_DUMP}`);
  }
  await devnet.stop();
  await db.drop();
}
