// Helpers of the HTTP benches (`pnpm bench oracle`, `gateway`, `scale`, `stream --gateway`): an
// autocannon run with the figures the benchmarks print, their load settings, a table printer, the
// RSS and CPU of a process (the services they load: service-processes.ts).
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import autocannon from "autocannon";

/** Figures of one load run. */
export interface LoadFigures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
  /** CPU time (ms) the processes of `cpuPids` used per request during the measured run. */
  cpu_ms_per_req: number[];
  /** Count of each non-2xx status seen (e.g. `{"503": 12}`). */
  statuses: Record<string, number>;
  /** 1-minute load average of the machine when the measured run ended (2 cores: > 2 means contended). */
  loadavg_1m: number;
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** Unmeasured warm-up before the run (seconds, default 2). */
  warmupSeconds?: number;
  /** Path of each request (varied per request), else the path of `url`. */
  path?: () => string;
  /** Processes whose CPU time per request is reported. */
  cpuPids?: (number | undefined)[];
}

async function once(options: LoadOptions, durationSeconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    duration: durationSeconds,
    headers: options.headers,
    timeout: 10,
    ...(options.path
      ? {
          requests: [
            {
              method: "GET",
              setupRequest: (req) => ({ ...req, path: options.path!() }),
            },
          ],
        }
      : {}),
  });
}

/** Runs autocannon against `url` (after a warm-up) and returns the throughput and latency figures. */
export async function runLoad(options: LoadOptions): Promise<LoadFigures> {
  const warmup = options.warmupSeconds ?? 2;
  if (warmup > 0) await once(options, warmup);
  const pids = options.cpuPids ?? [];
  const cpuBefore = pids.map(cpuMsOf);
  const result = await once(options, options.durationSeconds);
  const cpuAfter = pids.map(cpuMsOf);
  const total = Math.max(1, result.requests.total);
  return {
    cpu_ms_per_req: pids.map((_, i) => Math.round(((cpuAfter[i]! - cpuBefore[i]!) / total) * 1000) / 1000),
    loadavg_1m: Math.round(loadavg()[0]! * 10) / 10,
    statuses: Object.fromEntries(
      Object.entries(
        (result as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
      )
        .filter(([code]) => !code.startsWith("2"))
        .map(([code, stat]) => [code, stat.count]),
    ),
    rps: Math.round(result.requests.total / options.durationSeconds),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Resident set size (MB) of process `pid` now, and its peak (`VmHWM`), from /proc. */
export function rssOf(pid: number | undefined): { rss_mb: number; peak_rss_mb: number } {
  if (!pid) return { rss_mb: 0, peak_rss_mb: 0 };
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss_mb: Math.round(kb("VmRSS") / 1024), peak_rss_mb: Math.round(kb("VmHWM") / 1024) };
  } catch {
    return { rss_mb: 0, peak_rss_mb: 0 };
  }
}

/** CPU time (user + system, ms) process `pid` has used, from /proc (0 when unknown). */
export function cpuMsOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the command; 100 ticks per second.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Prints rows as an aligned text table (columns from the first row's keys). */
export function printTable(rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const width = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "").length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(width[i]!)).join("  ");
  console.log(line(columns));
  console.log(line(width.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(columns.map((c) => String(row[c] ?? ""))));
}

/** Value of `--name=value` on the command line, else `fallback`. */
export function argValue(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.slice(name.length + 3)) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** The load settings of an HTTP bench: `--duration` (s per run), `--connections`, `--rounds`. */
export interface LoadArgs {
  durationSeconds: number;
  connections: number;
  /** Runs per measured case, interleaved in time; each case keeps its best (shared, noisy machines). */
  rounds: number;
  /** The leading fields of the bench's JSON line: these settings and a run's throughput and latency. */
  record(figures: Pick<LoadFigures, "rps" | "p50_ms" | "p99_ms">): {
    connections: number;
    duration_s: number;
    rounds: number;
    rps: number;
    p50_ms: number;
    p99_ms: number;
  };
}

/** {@link LoadArgs} from the command line, else the bench's defaults (50 connections, 2 rounds unless given). */
export function loadArgs(defaults: { duration: number; connections?: number; rounds?: number }): LoadArgs {
  const durationSeconds = argValue("duration", defaults.duration);
  const connections = argValue("connections", defaults.connections ?? 50);
  const rounds = argValue("rounds", defaults.rounds ?? 2);
  return {
    durationSeconds,
    connections,
    rounds,
    record: (figures) => ({
      connections,
      duration_s: durationSeconds,
      rounds,
      rps: figures.rps,
      p50_ms: figures.p50_ms,
      p99_ms: figures.p99_ms,
    }),
  };
}
