// The V3 history that `pnpm bench indexer` and `pnpm bench ponder` index, and the process figures
// both report. The loaded devnet (anvil state + deployment + history summary) is cached in
// BENCH_INDEXER_CACHE_DIR (default $TMPDIR/tmi-bench-indexer-<trades>-<graduations>); later runs start
// anvil from it (`--load-state`, never written back) instead of loading the history again.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { type Deployment, type LoadHistoryResult, loadHistory, startAnvil, startDevnet } from "@tmi/devnet";
import { startIndexer } from "@tmi/testkit";
import pg from "pg";

/** Trades of the history (BENCH_INDEXER_TRADES, default 70,000 ≈ 210k+ indexed events). */
export const HISTORY_TRADES = Number(process.env.BENCH_INDEXER_TRADES ?? 70_000);
/** Graduations in the history (BENCH_INDEXER_GRADUATIONS, default 10). */
export const HISTORY_GRADUATIONS = Number(process.env.BENCH_INDEXER_GRADUATIONS ?? 10);
const CACHE_DIR =
  process.env.BENCH_INDEXER_CACHE_DIR ??
  join(os.tmpdir(), `tmi-bench-indexer-${HISTORY_TRADES}-${HISTORY_GRADUATIONS}`);

/** A devnet holding the cached history, served by an anvil of its own. */
export interface HistoryDevnet {
  rpcUrl: string;
  chainId: number;
  deployment: Deployment;
  history: LoadHistoryResult;
  stop(): Promise<void>;
}

/**
 * Starts anvil on the cached history, loading it into a fresh devnet first when the cache is empty.
 * @param log progress lines (stderr)
 * @param options another history than `pnpm bench indexer`'s: trades, graduations and its cache folder
 */
export async function openCachedHistory(
  log: (m: string) => void,
  options: { trades?: number; graduations?: number; cacheDir?: string } = {},
): Promise<HistoryDevnet> {
  const trades = options.trades ?? HISTORY_TRADES;
  const graduations = options.graduations ?? HISTORY_GRADUATIONS;
  const cacheDir = options.cacheDir ?? CACHE_DIR;
  const stateFile = join(cacheDir, "anvil-state.json");
  const deploymentFile = join(cacheDir, "deployment.json");
  const historyFile = join(cacheDir, "history.json");
  if (!existsSync(historyFile)) {
    mkdirSync(cacheDir, { recursive: true });
    const building = join(cacheDir, "anvil-state.building.json");
    const loading = await startDevnet({
      port: 0,
      blockTime: "automine",
      stateFile: building,
      stateInterval: 1_000_000,
      deploymentFile,
    });
    log(`loading ${trades} trades (${graduations} graduations) into the devnet (cache ${cacheDir})…`);
    const loaded = await loadHistory({
      rpcUrl: loading.rpcUrl,
      deployment: loading.deployment,
      trades,
      graduations,
      logger: { info: log },
    });
    await loading.stop();
    renameSync(building, stateFile);
    writeFileSync(historyFile, JSON.stringify(loaded));
  }
  const history = JSON.parse(readFileSync(historyFile, "utf8")) as LoadHistoryResult;
  // A 70k-trade state takes anvil tens of seconds to load on a busy machine.
  const anvil = await startAnvil({ port: 0, args: ["--load-state", stateFile], startTimeoutMs: 600_000 });
  const saved = JSON.parse(readFileSync(deploymentFile, "utf8")) as Deployment;
  log(
    `history: ${history.trades} trades, ${history.events} logs in ${history.blocks} blocks (loaded in ${history.seconds.toFixed(1)} s; from ${cacheDir})`,
  );
  return {
    rpcUrl: anvil.rpcUrl,
    chainId: saved.chainId,
    deployment: { ...saved, rpcUrl: anvil.rpcUrl },
    history,
    stop: () => anvil.stop(),
  };
}

/** Peak resident set (VmHWM) of process `pid` in MB, from /proc. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
  return hwm ? Number(hwm[1]) / 1024 : Number.NaN;
}

/** CPU seconds (user + system) of process `pid` so far, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
  } catch {
    return 0;
  }
}

/** The machine's 1/5/15-minute load averages, as printed in the tables. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/** Figures of one indexing process and the PostgreSQL backends serving its database. */
export interface ProcessFigures {
  cpuSecondsProcess: number;
  cpuSecondsPostgres: number;
  peakRssMb: number;
}

/**
 * Samples, every 200 ms, the peak RSS of `pids` (the indexing process and its children) and the CPU
 * of every PostgreSQL backend connected to the database of `databaseUrl` (pooled backends may exit,
 * so each backend's last reading is kept), so that the cost per event can be told apart from
 * machine load. `stop()` takes a last reading and returns the figures.
 */
export async function sampleProcess(pids: () => number[], databaseUrl: string) {
  const admin = new pg.Client({ connectionString: databaseUrl });
  admin.on("error", () => {}); // the database may be dropped under it when a run fails
  await admin.connect();
  const backendCpu = new Map<number, number>();
  const processCpu = new Map<number, number>();
  let rss = 0;
  const sampleBackends = async () => {
    const res = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    for (const { pid } of res.rows) backendCpu.set(pid, Math.max(backendCpu.get(pid) ?? 0, cpuSeconds(pid)));
  };
  const sampleProcesses = () => {
    for (const pid of pids()) {
      processCpu.set(pid, Math.max(processCpu.get(pid) ?? 0, cpuSeconds(pid)));
      try {
        rss = Math.max(rss, peakRssMb(pid));
      } catch {}
    }
  };
  let busy = false;
  const timer = setInterval(() => {
    sampleProcesses();
    if (busy) return;
    busy = true;
    void sampleBackends()
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  }, 200);
  const figures = async (): Promise<ProcessFigures> => {
    sampleProcesses();
    await sampleBackends().catch(() => {});
    const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    return {
      cpuSecondsProcess: sum(processCpu),
      cpuSecondsPostgres: sum(backendCpu),
      peakRssMb: Math.round(rss),
    };
  };
  let stopped: ProcessFigures | undefined;
  return {
    /** A reading now; sampling goes on. */
    figures,
    /** A last reading, then sampling stops. */
    async stop(): Promise<ProcessFigures> {
      if (stopped) return stopped;
      clearInterval(timer);
      stopped = await figures();
      await admin.end().catch(() => {});
      return stopped;
    },
  };
}

/**
 * Whether the benches run the built indexer (`services/indexer/dist`, as deployed; the default)
 * or its TypeScript sources through tsx (`BENCH_INDEXER_FROM=source`). The CPU per event is counted
 * from the process' start: from sources it includes tsx transpiling every module (about 1 s of
 * CPU on this host, ≈ 9 % of a 60,000-event run's indexer CPU in a profile).
 */
export function benchIndexerCompiled(): boolean {
  const from = process.env.BENCH_INDEXER_FROM ?? "dist";
  if (from !== "dist" && from !== "source")
    throw new Error(`BENCH_INDEXER_FROM must be dist or source, not ${from}`);
  return from === "dist";
}

/**
 * Starts the indexer process on `devnet` into the database of `databaseUrl`, as `pnpm --filter
 * @tmi/indexer start` runs it: 2 GB old space maximum, 64 MB semi-spaces (a batch's objects die young
 * instead of being promoted; docs/benchmarks.md, Indexer), info logs, 250 ms head polls.
 * @param nodeOptions extra Node options (a CPU profiler preload); `BENCH_INDEXER_NODE_OPTIONS` (when
 *   set) comes last, so its flags override these (e.g. another `--max-old-space-size`)
 * @param env extra settings
 * @param compiled built or from sources (default {@link benchIndexerCompiled})
 */
export function startBenchIndexer(
  devnet: HistoryDevnet,
  databaseUrl: string,
  options: { nodeOptions?: string[]; env?: Record<string, string>; compiled?: boolean } = {},
) {
  return startIndexer({
    compiled: options.compiled ?? benchIndexerCompiled(),
    databaseUrl,
    rpcUrl: devnet.rpcUrl,
    chainId: devnet.chainId,
    factoryAddress: devnet.deployment.contracts.factory,
    startBlock: devnet.deployment.startBlock,
    ethUsdFeedAddress: devnet.deployment.contracts.ethUsdFeed,
    env: {
      LOG_LEVEL: "info",
      POLL_INTERVAL_MS: "250",
      NODE_OPTIONS: [
        process.env.NODE_OPTIONS,
        "--max-old-space-size=2048",
        "--max-semi-space-size=64",
        ...(options.nodeOptions ?? []),
        process.env.BENCH_INDEXER_NODE_OPTIONS,
      ]
        .filter(Boolean)
        .join(" "),
      ...options.env,
    },
  });
}
