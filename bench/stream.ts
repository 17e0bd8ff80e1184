// `pnpm bench stream`: fan-out latency of the live stream (GET /api/v1/stream). One query-api
// process (the full app of buildApp + the stream plugin, bench/stream-server-lib.ts) on a fresh
// database; this process opens N concurrent SSE subscribers (default filters: every event, 1m
// candles) and commits trades the way the indexer does (rows + checkpoint + NOTIFY tmi_indexed in
// one transaction per block). Latency of a delivery = arrival of the `trade` event at a subscriber
// − the moment this process sent that block's COMMIT (same clock). Prints a table, then one JSON line
// per scenario: {"bench":"stream","scenario":...,"subscribers":...,"trades":...,"p50_ms":...,"p99_ms":...}.
// Also reported, to tell the service's share from the machine's: `notify_*` (when this process' own
// LISTEN connection hears the NOTIFY: PostgreSQL and scheduling), `server_*` (inside query-api, from
// the notification's arrival to the last socket write of the batch), CPU used by server and clients,
// and the 1-minute load average (the machine may be shared).
// Options: --subscribers=<n> (1000) --blocks=<n> (100) --rate=<blocks/s> (10) --trades-per-block=<n>
// (default: three scenarios, 1 trade/block @ 10 blocks/s, 10 @ 5/s, 20 @ 10/s).
// `--gateway [--streams=2000] [--clients=20] [--probe-seconds=10]`: instead, REST reads through the
// gateway while that many streams open and stay open (bench/stream-gateway-lib.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { createTestDatabase } from "@tmi/testkit";
import pg from "pg";
import { parseBenchArgs } from "./bench-args-lib.js";
import { runStreamGatewayBench } from "./stream-gateway-lib.js";

const args = parseBenchArgs();
const { num } = args;
const SUBSCRIBERS = num("subscribers", 1000);
const BLOCKS = num("blocks", 100);
const RATE = num("rate", 10);
const SCENARIOS: { tradesPerBlock: number; rate: number }[] = args.has("trades-per-block")
  ? [{ tradesPerBlock: num("trades-per-block", 1), rate: RATE }]
  : [
      { tradesPerBlock: 1, rate: RATE }, // the target: one trade per block, 10 blocks/s
      { tradesPerBlock: 10, rate: 5 }, // 50 trades/s
      { tradesPerBlock: 20, rate: 10 }, // 200 trades/s: the saturation point on 2 cores
    ];
const log = (line: string) => process.stderr.write(`${line}\n`);

const db = await createTestDatabase();
const writer = new pg.Pool({ connectionString: db.url, max: 2 });
writer.on("error", () => {});
const TOKEN = `0x${"5".repeat(40)}`;
const T0 = BigInt(Math.floor(Date.now() / 1000));
let block = 1_000n;

await writer.query(
  `INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp, head_block_number, head_seen_at)
   VALUES (31337, $1, $2, $3, $1, now())`,
  [block.toString(), `0x${"0".repeat(64)}`, T0.toString()],
);
if (args.has("gateway")) {
  try {
    await runStreamGatewayBench({
      databaseUrl: db.url,
      streams: num("streams", 2000),
      clients: num("clients", 20),
      probeSeconds: num("probe-seconds", 10),
      log,
    });
  } finally {
    await writer.end();
    await db.drop();
  }
  process.exit(0);
}

await writer.query(
  `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
     created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at,
     reserve_balance, curve_address, virtual_token_reserve, virtual_eth_reserve, graduation_threshold, updated_block_number)
   VALUES ($1, 31337, $2, 'Bench', 'BNCH', 'bench', 'bnch', 1000000000000000000000000000, 1, 0, $3, 0, $4,
     1000000000000000000, $5, 1073000000000000000000000000, 1500000000000000000, 5000000000000000000, 1)`,
  [TOKEN, `0x${"6".repeat(40)}`, `0x${"7".repeat(64)}`, T0.toString(), `0x${"8".repeat(40)}`],
);

// Server-side share of the latency: its debug line per dispatched batch gives the time from the
// notification's arrival to the last socket write (queued behind an earlier read + read + dispatch).
const serverDispatchMs: number[] = [];
let serverLogTail = "";
function serverLog(text: string): void {
  const lines = (serverLogTail + text).split("\n");
  serverLogTail = lines.pop() ?? "";
  for (const line of lines) {
    if (!line.includes('"stream: dispatched"')) {
      if (line.trim()) process.stderr.write(`${line}\n`);
      continue;
    }
    const entry = JSON.parse(line) as { queued_ms: number | null; read_ms: number; dispatch_ms: number };
    serverDispatchMs.push((entry.queued_ms ?? 0) + entry.read_ms + entry.dispatch_ms);
  }
}

// The server process.
const server: ChildProcess = spawn(
  process.execPath,
  ["--conditions=tmi-source", "--import", "tsx", "bench/stream-server-lib.ts"],
  {
    env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: process.env.STREAM_BENCH_LOG ?? "debug" },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const base: string = await new Promise((resolve, reject) => {
  let out = "";
  let listening = false;
  server.stdout?.on("data", (chunk: Buffer) => {
    if (listening) {
      serverLog(chunk.toString());
      return;
    }
    out += chunk.toString();
    const line = out.split("\n").find((l) => l.includes('"listening"'));
    if (line) {
      listening = true;
      resolve(JSON.parse(line).listening);
    }
  });
  server.on("exit", (code) => reject(new Error(`server exited (${code})`)));
});
const rssMb = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

// Subscribers: record the arrival of every trade event by its id (`<block>-<log>-<hash8>`).
interface Subscriber {
  request: http.ClientRequest;
  arrivals: Map<string, number>;
}
function subscribe(): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<string, number>();
    const request = http.get(`${base}/api/v1/stream`, { agent: false }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`subscriber refused: ${response.statusCode}`));
        return;
      }
      response.setEncoding("utf8");
      // Cheap scan: find each "event: trade" line and the id line just before it.
      let tail = "";
      response.on("data", (chunk: string) => {
        const now = performance.now();
        const text = tail + chunk;
        let from = 0;
        let lastEnd = 0;
        for (;;) {
          const at = text.indexOf("\nevent: trade\n", from);
          if (at < 0) break;
          const idStart = text.lastIndexOf("id: ", at);
          if (idStart >= 0) {
            const firstDash = text.indexOf("-", idStart);
            arrivals.set(text.slice(idStart + 4, text.indexOf("-", firstDash + 1)), now);
          }
          from = at + 1;
          lastEnd = at + 14;
        }
        tail = text.slice(Math.max(lastEnd, text.length - 80));
      });
      resolve({ request, arrivals });
    });
    request.on("error", reject);
  });
}

// Baseline: when this process' own LISTEN connection hears each block's NOTIFY (PostgreSQL's share of the latency).
const notifiedAt = new Map<string, number>();
const listener = new pg.Client({ connectionString: db.url });
listener.on("error", () => {});
await listener.connect();
listener.on("notification", (message) => {
  const payload = JSON.parse(message.payload ?? "{}") as { to_block?: number };
  notifiedAt.set(String(payload.to_block), performance.now());
});
await listener.query("LISTEN tmi_indexed");

log(`query-api at ${base}; opening ${SUBSCRIBERS} subscribers…`);
const subscribers: Subscriber[] = [];
for (let i = 0; i < SUBSCRIBERS; i += 100) {
  subscribers.push(...(await Promise.all(Array.from({ length: Math.min(100, SUBSCRIBERS - i) }, subscribe))));
}
await new Promise((r) => setTimeout(r, 500));
log(`${subscribers.length} subscribers connected; server RSS ${rssMb()} MB`);

async function commitBlock(
  tradesPerBlock: number,
): Promise<{ block: string; keys: string[]; committedAt: number }> {
  block += 1n;
  const ts = T0 + (block - 1_000n) * 2n;
  const client = await writer.connect();
  try {
    await client.query("BEGIN");
    const keys: string[] = [];
    const n = tradesPerBlock;
    const logs = Array.from({ length: n }, (_, i) => i);
    await client.query(
      `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address,
         trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
       SELECT $1, l, l, '0x' || lpad(to_hex($1::bigint), 32, '0') || lpad(to_hex(l), 32, '0'), $2, $3,
              '0x' || lpad(to_hex(l + 1), 40, '0'), 'buy', 'curve', 1000000000000000000000, 100000000000000000,
              99000000000000000, 1000000000000000, 0, 99000000000
         FROM unnest($4::int[]) AS l`,
      [block.toString(), ts.toString(), TOKEN, logs],
    );
    await client.query(
      `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
         contract_address, event_name, token_address, decoded)
       SELECT $1, l, '0x' || lpad(to_hex($1::bigint), 64, 'a'), $2, l, '0x' || lpad(to_hex(l), 64, '0'), $3,
              'TokensBought', $3, '{}'::jsonb FROM unnest($4::int[]) AS l`,
      [block.toString(), ts.toString(), TOKEN, logs],
    );
    await client.query(
      `INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
         unique_trader_count, open_price, high_price, low_price, close_price)
       VALUES ($1, '1m', ($2::bigint / 60) * 60, $3, $3, 0, 0, $3, 99000000000, 99000000000, 99000000000, 99000000000)
       ON CONFLICT (token_address, interval, bucket_start) DO UPDATE SET trade_count = candles.trade_count + $3,
         buy_count = candles.buy_count + $3, volume = candles.volume + 100000000000000000 * $3`,
      [TOKEN, ts.toString(), n],
    );
    await client.query(
      "UPDATE indexer_checkpoints SET block_number = $1, block_hash = $2, block_timestamp = $3, head_block_number = $1, updated_at = now()",
      [block.toString(), `0x${block.toString(16).padStart(64, "a")}`, ts.toString()],
    );
    await client.query("SELECT pg_notify('tmi_indexed', $1)", [
      JSON.stringify({ from_block: Number(block), to_block: Number(block) }),
    ]);
    for (const l of logs) keys.push(`${block}-${l}`);
    const committedAt = performance.now();
    await client.query("COMMIT");
    return { block: block.toString(), keys, committedAt };
  } finally {
    client.release();
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const results: Record<string, unknown>[] = [];
const serverCpuMs = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, 100 ticks/s
};

for (const { tradesPerBlock, rate } of SCENARIOS) {
  for (const s of subscribers) s.arrivals.clear();
  serverDispatchMs.length = 0;
  const commits: { block: string; keys: string[]; committedAt: number }[] = [];
  const started = performance.now();
  const serverCpu0 = serverCpuMs();
  const ownCpu0 = process.cpuUsage();
  let peakRss = rssMb();
  for (let i = 0; i < BLOCKS; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    commits.push(await commitBlock(tradesPerBlock));
    if (i % 10 === 0) peakRss = Math.max(peakRss, rssMb());
  }
  const elapsedMs = performance.now() - started;
  await new Promise((r) => setTimeout(r, 2_000));
  const serverCpuShare = (serverCpuMs() - serverCpu0) / (elapsedMs + 2_000);
  const own = process.cpuUsage(ownCpu0);
  const clientCpuShare = (own.user + own.system) / 1000 / (elapsedMs + 2_000);
  const latencies: number[] = [];
  let missing = 0;
  for (const { keys, committedAt } of commits) {
    for (const key of keys) {
      for (const s of subscribers) {
        const at = s.arrivals.get(key);
        if (at === undefined) missing += 1;
        else latencies.push(at - committedAt);
      }
    }
  }
  latencies.sort((a, b) => a - b);
  const notifyLatencies = commits
    .map((c) => (notifiedAt.get(c.block) ?? Number.NaN) - c.committedAt)
    .filter((v) => !Number.isNaN(v))
    .sort((a, b) => a - b);
  const serverSide = [...serverDispatchMs].sort((a, b) => a - b);
  const result = {
    bench: "stream",
    scenario: `${tradesPerBlock} trade(s)/block @ ${rate} blocks/s`,
    server: "query-api buildApp + streamRoutes (one process)",
    subscribers: subscribers.length,
    blocks: BLOCKS,
    trades: BLOCKS * tradesPerBlock,
    deliveries: latencies.length,
    missing,
    p50_ms: Number(percentile(latencies, 50).toFixed(1)),
    p95_ms: Number(percentile(latencies, 95).toFixed(1)),
    p99_ms: Number(percentile(latencies, 99).toFixed(1)),
    max_ms: Number((latencies.at(-1) ?? Number.NaN).toFixed(1)),
    server_rss_mb: peakRss,
    notify_p50_ms: Number(percentile(notifyLatencies, 50).toFixed(1)),
    notify_p99_ms: Number(percentile(notifyLatencies, 99).toFixed(1)),
    server_p50_ms: Number(percentile(serverSide, 50).toFixed(1)),
    server_p99_ms: Number(percentile(serverSide, 99).toFixed(1)),
    load_avg_1m: Number(os.loadavg()[0]!.toFixed(1)),
    server_cpu_cores: Number(serverCpuShare.toFixed(2)),
    client_cpu_cores: Number(clientCpuShare.toFixed(2)),
  };
  results.push(result);
  log(`${result.scenario}: ${result.deliveries} deliveries, p99 ${result.p99_ms} ms`);
}

console.log(
  `\nstream fan-out — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, ${new Date().toISOString()}`,
);
console.table(
  results.map((r) => ({
    scenario: r.scenario,
    subscribers: r.subscribers,
    trades: r.trades,
    deliveries: r.deliveries,
    missing: r.missing,
    "p50 ms": r.p50_ms,
    "p95 ms": r.p95_ms,
    "p99 ms": r.p99_ms,
    "max ms": r.max_ms,
    "server RSS MB": r.server_rss_mb,
    "NOTIFY p99 ms": r.notify_p99_ms,
    "server p99 ms": r.server_p99_ms,
    "server CPU": r.server_cpu_cores,
    "client CPU": r.client_cpu_cores,
    "load 1m": r.load_avg_1m,
  })),
);
for (const r of results) console.log(JSON.stringify(r));

for (const s of subscribers) s.request.destroy();
server.kill("SIGTERM");
await new Promise((r) => server.once("exit", r));
await listener.end();
await writer.end();
await db.drop();
process.exit(0);
