// `pnpm bench head-scale`: the indexer's cost per new block at the head, by number of known tokens.
// A devnet mining a block every BENCH_HEAD_SCALE_BLOCK_TIME seconds (default 2, as Base) with the
// Base-like background of @tmi/devnet on every block (1,000 unrelated ERC-20 Transfers and 100
// Uniswap V3 Swaps) and light platform traffic (the simulator, 1 action/s). For each known-token
// count the database gets that many launched tokens (synthetic rows: a launchpad's quiet tokens,
// never traded again, plus the simulator's real ones), the indexer starts with its default settings
// over HTTP through a counting JSON-RPC proxy (a 10,000-log result cap, as providers have), catches
// up, and is then measured over BENCH_HEAD_SCALE_BLOCKS new blocks (default 30): eth_getLogs and all
// JSON-RPC calls per block, indexer CPU per block (utime+stime of its process), live lag (time from
// a block first seen by the benchmark, polling every 25 ms, to its checkpoint commit) p50/p99, start-up
// (process start to its `start` line; the `known_state_loaded` line's wall and CPU time), loads of
// every indexed address, peak RSS (VmHWM), and for the last count a 2-block reorg at the head (tokens
// forgotten and kept, and whether anything was reloaded).
// Settings: BENCH_HEAD_SCALE_TOKENS (default "1000,10000,100000"; add 1000000 when there is time:
// inserting a million rows takes minutes), BENCH_HEAD_SCALE_BLOCKS, BENCH_HEAD_SCALE_BLOCK_TIME.
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { rpc, runSimulator, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  insertSyntheticTokens,
  startIndexer,
  startRpcProxy,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";

const COUNTS = (process.env.BENCH_HEAD_SCALE_TOKENS ?? "1000,10000,100000").split(",").map(Number);
const BLOCKS = Number(process.env.BENCH_HEAD_SCALE_BLOCKS ?? 30);
const BLOCK_TIME = Number(process.env.BENCH_HEAD_SCALE_BLOCK_TIME ?? 2);
const log = (m: string) => process.stderr.write(`[bench head-scale] ${m}\n`);
const CLOCK_TICKS = 100; // USER_HZ

/** utime + stime of `pid` (ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Peak resident set of `pid` (MB). */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
};

interface Row {
  known_tokens: number;
  blocks: number;
  get_logs_per_block: number;
  rpc_calls_per_block: number;
  calls_by_method: string;
  cpu_ms_per_block: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  /** Process start (spawn) to its `start` line: boot, configuration, database, the log filter's seed. */
  startup_ms: number;
  /** Wall and CPU time of the known-state step of start-up (the `known_state_loaded` line). */
  known_state_ms: number;
  known_state_cpu_ms: number;
  /** Loads of every indexed address (start-up with a small set, or an emitter query's need). */
  full_loads: number;
  peak_rss_mb: number;
  /** After a 2-block reorg (the last count only): tokens forgotten / kept, and whether anything was reloaded. */
  reorg: string;
}

log(
  `load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; counts ${COUNTS.join(", ")}`,
);
const devnet = await startDevnet({ port: 0, blockTime: BLOCK_TIME, background: true });
const controller = new AbortController();
const simulator = runSimulator({
  rpcUrl: devnet.rpcUrl,
  deployment: devnet.deployment,
  seed: 7,
  tokens: 4,
  traders: 6,
  tps: 1,
  durationSeconds: 0,
  signal: controller.signal,
  graduateEvery: 60,
}).catch((error: unknown) => log(`simulator stopped: ${String(error)}`));
const proxy = await startRpcProxy({ target: devnet.rpcUrl, maxLogs: 10_000 });
const database = await createTestDatabase();
const admin = new pg.Client({ connectionString: database.url });
await admin.connect();
const rows: Row[] = [];

/** One JSON log line of the indexer, with `at` = its time (ms since the epoch). */
type LogLine = Record<string, unknown> & { at: number };

/** `value` when it is a number, else `fallback`. */
const numberOr = (value: unknown, fallback: number): number => (typeof value === "number" ? value : fallback);
try {
  for (const count of COUNTS) {
    const filled = performance.now();
    const real = Number((await admin.query("SELECT count(*) AS n FROM tokens")).rows[0].n);
    await insertSyntheticTokens(admin, Math.max(real, count), devnet.chainId);
    const known = Number((await admin.query("SELECT count(*) AS n FROM tokens")).rows[0].n);
    log(
      `${known} known tokens (filled in ${((performance.now() - filled) / 1000).toFixed(1)} s); starting the indexer`,
    );
    const spawnedAt = Date.now();
    const indexer = startIndexer({
      ...devnetIndexerOptions({ ...devnet, rpcUrl: proxy.url }, database.url, { ethUsdFeed: true }),
      // The defaults of `pnpm start` (the testkit polls faster and refreshes trending more often).
      env: {
        POLL_INTERVAL_MS: "250",
        TRENDING_REFRESH_MS: "2000",
        LOG_LEVEL: process.env.BENCH_HEAD_SCALE_LOG_LEVEL ?? "info",
      },
    });
    const pid = indexer.child.pid!;
    try {
      const head = () => chainHead(devnet.rpcUrl); // the benchmark's polls go to anvil, not the proxy
      const line = (action: string) =>
        indexer
          .output()
          .split("\n")
          .filter((l) => l.includes(`"action":"${action}"`))
          .map((l): LogLine => {
            const o = JSON.parse(l) as Record<string, unknown>;
            return { ...o, at: Date.parse(typeof o.time === "string" ? o.time : "") };
          });
      // This process's own start first: the database keeps the previous count's checkpoint, which
      // may already be at the head, so the block alone would end the wait while the indexer boots.
      await waitFor(async () => line("start").length > 0, { timeoutMs: 600_000 });
      await indexer.waitForBlock((await head()) - 1, 600_000);
      const startup = line("known_state_loaded")[0] ?? { at: 0, ms: -1, cpu_ms: -1 };
      const startedAt = line("start")[0]?.at ?? spawnedAt - 1;
      // Measure from the next block on.
      let seen = await head();
      await waitFor(async () => ((await indexer.indexedBlock()) ?? -1) >= seen, {
        timeoutMs: 60_000,
        intervalMs: 25,
      });
      seen = Math.max(seen, await head());
      proxy.reset();
      const cpu0 = cpuMs(pid);
      const firstBlock = seen + 1;
      const lastBlock = seen + BLOCKS;
      const seenAt = new Map<number, number>();
      const lags: number[] = [];
      let indexed = (await indexer.indexedBlock()) ?? seen;
      while (indexed < lastBlock) {
        const h = await head();
        for (let n = seen + 1; n <= Math.min(h, lastBlock); n++) seenAt.set(n, performance.now());
        seen = Math.max(seen, h);
        const now = (await indexer.indexedBlock()) ?? indexed;
        for (let n = indexed + 1; n <= Math.min(now, lastBlock); n++) {
          const at = seenAt.get(n);
          if (at !== undefined && n >= firstBlock) lags.push(performance.now() - at);
        }
        indexed = Math.max(indexed, now);
        await new Promise((r) => setTimeout(r, 25));
      }
      const cpu = cpuMs(pid) - cpu0;
      const calls = [...proxy.calls].sort((a, b) => b[1] - a[1]);
      const measuredCalls = { total: proxy.total(), getLogs: proxy.calls.get("eth_getLogs") ?? 0 };
      let reorg = "";
      if (count === COUNTS.at(-1)) {
        // A 2-block reorg at the head: the indexer rolls back and forgets only what it touched.
        controller.abort();
        await simulator;
        const before = await head();
        await indexer.waitForBlock(before, 60_000);
        await rpc(devnet.rpcUrl, "anvil_reorg", [2, []]);
        const rolledBack = await waitFor(
          async () => indexer.output().includes("rolled back orphaned blocks"),
          {
            timeoutMs: 60_000,
            intervalMs: 50,
          },
        ).then(
          () => true,
          () => false,
        );
        const invalidated = line("known_state_invalidated").at(-1);
        const loads = line("known_state_loaded").length + line("emitter_set_completed").length;
        reorg = rolledBack
          ? `dropped ${invalidated?.dropped ?? "?"}, kept ${invalidated?.kept ?? "?"}, loads ${loads}`
          : "no rollback seen within 60 s";
      }
      rows.push({
        known_tokens: known,
        blocks: BLOCKS,
        get_logs_per_block: round(measuredCalls.getLogs / BLOCKS),
        rpc_calls_per_block: round(measuredCalls.total / BLOCKS),
        calls_by_method: calls.map(([m, n]) => `${m.replace(/^eth_/, "")} ${round(n / BLOCKS)}`).join(", "),
        cpu_ms_per_block: round(cpu / BLOCKS),
        lag_p50_ms: Math.round(percentile(lags, 50)),
        lag_p99_ms: Math.round(percentile(lags, 99)),
        startup_ms: startedAt - spawnedAt,
        known_state_ms: numberOr(startup.ms, -1),
        known_state_cpu_ms: numberOr(startup.cpu_ms, -1),
        full_loads: line("emitter_set_completed").length + (startup.complete ? 1 : 0),
        peak_rss_mb: peakRssMb(pid),
        reorg,
      });
      log(JSON.stringify(rows.at(-1)));
    } finally {
      await indexer.stop();
      if (process.env.BENCH_HEAD_SCALE_OUTPUT)
        writeFileSync(`${process.env.BENCH_HEAD_SCALE_OUTPUT}-${count}.log`, indexer.output());
    }
  }
} finally {
  controller.abort();
  await simulator;
  await admin.end();
  await proxy.close();
  await devnet.stop();
  await database.drop();
}
console.table(rows);
log(
  `load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const r of rows)
  console.log(JSON.stringify({ bench: "head-scale", block_time_s: BLOCK_TIME, load: os.loadavg()[0], ...r }));

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
