// `pnpm bench indexer-core`: the indexer's read-model core alone (select → build → prepare → write,
// no RPC) over a synthetic V3 history, in this process, against a fresh test database: events/s,
// CPU µs per event of this process and of its PostgreSQL backend, split by stage. Tells the cost of
// the core apart from fetching (`pnpm bench indexer` measures the whole pipeline).
// Settings: BENCH_CORE_TRADES (default 70000), BENCH_CORE_EVENTS_PER_RANGE (default 10000),
// BENCH_CORE_JOURNAL=1 (every range journaled, as inside the reorg window), BENCH_CORE_NO_TRIGGERS=1
// (the journal triggers dropped: their cost outside the reorg window).
import { readFileSync } from "node:fs";
import os from "node:os";
import { createTestDatabase } from "@tmi/testkit";
import pg from "pg";
import { buildBatch } from "../services/indexer/src/build/batch-builder.js";
import { KnownState } from "../services/indexer/src/model/known-state.js";
import { prepareWrite } from "../services/indexer/src/prepare/prepare-write.js";
import { selectEvents } from "../services/indexer/src/select/select-events.js";
import { statementMs } from "../services/indexer/src/sql/sql-text.js";
import { addr, SyntheticChain } from "../services/indexer/src/testing/synthetic-chain.js";
import { executeWrite } from "../services/indexer/src/write/batch-writer.js";

const TRADES = Number(process.env.BENCH_CORE_TRADES ?? 70_000);
const PER_RANGE = Number(process.env.BENCH_CORE_EVENTS_PER_RANGE ?? 10_000);
const JOURNAL = process.env.BENCH_CORE_JOURNAL === "1";
const log = (m: string) => process.stderr.write(`[bench indexer-core] ${m}\n`);

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// A deterministic history: 35 tokens, 200 traders, buys and sells of random sizes, 250 tx per block.
const PLATFORM = { factory: addr(0xfac), weth: addr(0xfffff), feeManager: addr(0xfee), manager: addr(0x3a9) };
const chain = new SyntheticChain(PLATFORM, 1, 1_790_000_000);
let seed = 1;
const rand = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const tokens = Array.from({ length: 35 }, (_, i) => addr(0x10000 + i));
const traders = Array.from({ length: 200 }, (_, i) => addr(0x20000 + i));
const held = new Map<string, bigint>();
let block = 1;
chain.block(block);
for (const [i, t] of tokens.entries()) chain.launch(traders[i]!, t, addr(0x30000 + i), addr(0x40000 + i));
for (let n = 0; n < TRADES; n++) {
  if (n % 250 === 0) chain.block(++block, 1_790_000_000 + block * 60);
  const t = tokens[Math.floor(rand() * tokens.length)]!;
  const who = traders[Math.floor(rand() * traders.length)]!;
  const key = `${t}|${who}`;
  const balance = held.get(key) ?? 0n;
  const s = chain.curveState(t);
  if (balance > 10n ** 18n && rand() < 0.3) {
    chain.sell(t, who, balance / 2n);
    held.set(key, balance - balance / 2n);
  } else if (s.reserveCoordinate < 2n * 10n ** 18n) {
    const before = s.soldSupply;
    chain.buy(t, who, BigInt(Math.floor(rand() * 1e15)) + 10n ** 13n);
    held.set(key, balance + chain.curveState(t).soldSupply - before);
  } else chain.transfer(t, who, traders[0]!, 1n);
}
const all = chain.blocks;
log(
  `history: ${TRADES} trades, ${all.reduce((s, b) => s + b.events.length, 0)} logs in ${all.length} blocks`,
);

const db = await createTestDatabase();
const pool = new pg.Pool({ connectionString: db.url, max: 1, options: "-c jit=off" }); // as the indexer
try {
  const client = await pool.connect();
  await client.query("SET synchronous_commit = off");
  if (process.env.BENCH_CORE_NO_TRIGGERS === "1") {
    const { rows } = await client.query<{ tgname: string; table: string }>(
      "SELECT tgname, tgrelid::regclass::text AS table FROM pg_trigger WHERE tgname LIKE '%_journal'",
    );
    for (const r of rows) await client.query(`DROP TRIGGER ${r.tgname} ON ${r.table}`);
  }
  const backend = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
  const stage = { select: 0, build: 0, prepare: 0, write: 0 };
  let events = 0;
  const cpu0 = process.cpuUsage();
  const pg0 = cpuSeconds(backend);
  const started = performance.now();
  let i = 0;
  let explained = false;
  while (i < all.length) {
    let j = i;
    let count = 0;
    while (j < all.length && count < PER_RANGE) count += all[j++]!.events.length;
    const from = all[i]!.header.number;
    const to = all[j - 1]!.header.number;
    let t = performance.now();
    const selection = selectEvents(chain.events(from, to), state);
    stage.select += performance.now() - t;
    t = performance.now();
    const headers = chain.headers(from, to);
    const batch = await buildBatch(selection.events, state, {
      fromBlock: from,
      toBlock: to,
      endHeader: headers.at(-1)!,
      headers: [headers[0]!, headers.at(-1)!],
      senders: chain.senders,
      timestamps: new Map(),
      labels: new Map(selection.launches.map((l) => [l.token, { name: "Bench", symbol: "BNCH" }])),
    });
    stage.build += performance.now() - t;
    t = performance.now();
    const prepared = await prepareWrite(batch, state, {
      chainId: 31337,
      headBlock: JOURNAL ? to : to + 1_000,
      keepBlocks: 65,
    });
    stage.prepare += performance.now() - t;
    t = performance.now();
    await client.query("BEGIN");
    if (process.env.BENCH_CORE_EXPLAIN === "1" && i > all.length / 2 && !explained) {
      // Diagnostics: the plan and timing of one range's read-model statement (then rolled back).
      explained = true;
      await client.query("SAVEPOINT explain");
      await client.query(prepared.events.length ? "SELECT 1" : "SELECT 1");
      const plan = await client.query(
        `EXPLAIN (ANALYZE, BUFFERS) ${prepared.readModels.text}`,
        prepared.readModels.values,
      );
      log(plan.rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n"));
      await client.query("ROLLBACK TO SAVEPOINT explain");
    }
    await executeWrite(client, prepared);
    await client.query("COMMIT");
    stage.write += performance.now() - t;
    events += batch.events.length;
    i = j;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuCore = (cpu.user + cpu.system) / 1e6;
  const cpuPg = cpuSeconds(backend) - pg0;
  client.release();
  const figures = {
    bench: "indexer-core",
    journal: JOURNAL,
    triggers: process.env.BENCH_CORE_NO_TRIGGERS !== "1",
    events,
    seconds: Number(seconds.toFixed(2)),
    events_per_second: Math.round(events / seconds),
    cpu_us_per_event_core: Math.round((cpuCore * 1e6) / events),
    cpu_us_per_event_postgres: Math.round((cpuPg * 1e6) / events),
    wall_us_per_event_select: Number(((stage.select * 1000) / events).toFixed(1)),
    wall_us_per_event_build: Number(((stage.build * 1000) / events).toFixed(1)),
    wall_us_per_event_prepare: Number(((stage.prepare * 1000) / events).toFixed(1)),
    wall_us_per_event_write: Number(((stage.write * 1000) / events).toFixed(1)),
    ...Object.fromEntries(
      Object.entries(statementMs).map(([k, v]) => [
        `wall_us_per_event_${k}`,
        Number(((v * 1000) / events).toFixed(1)),
      ]),
    ),
    load_average: os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  };
  console.table(figures);
  console.log(JSON.stringify(figures));
} finally {
  await pool.end();
  await db.drop();
}
