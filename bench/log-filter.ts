// `pnpm bench log-filter`: the indexer's log filter scheme at scale. A devnet history (curve trades,
// launches, graduations, pool swaps) is fetched range by range by the indexer's own range fetcher
// (platform topics without an address + Transfer/Swap/AnswerUpdated by chunked emitter sets,
// headers, swap senders, token labels) with 1,000 / 10,000 / 100,000 known tokens: the real ones
// plus synthetic addresses that emit nothing (as most of Base's launches are quiet at any moment).
// Prints requests per block range and events/s of the fetch layer, and what loading that many known
// tokens from `tokens` costs at start and after every reorg (time, heap).
// Settings: BENCH_LOG_FILTER_TRADES (default 20000), BENCH_LOG_FILTER_TOKENS (known-token counts,
// default "1000,10000,100000"), BENCH_LOG_FILTER_CHUNK (addresses per request, default 1000),
// BENCH_LOG_FILTER_SPAN (blocks per range, default 10: ~6,500 logs per range on this history),
// BENCH_LOG_FILTER_CACHE_DIR (default $TMPDIR/tmi-bench-log-filter-<trades>): the loaded devnet is
// kept there and later runs start anvil from it.
import os from "node:os";
import { join } from "node:path";
import { chainHead, createTestDatabase, insertSyntheticTokens } from "@tmi/testkit";
import pg from "pg";
import { createIndexingCore } from "../services/indexer/src/core/indexing-core.js";
import { EmitterSet } from "../services/indexer/src/fetch/log-filter.js";
import { createRangeFetcher } from "../services/indexer/src/fetch/range-fetcher.js";
import { createRpcClient } from "../services/indexer/src/rpc/rpc-client.js";
import { openCachedHistory } from "./indexer-history-lib.js";

const TRADES = Number(process.env.BENCH_LOG_FILTER_TRADES ?? 20_000);
const COUNTS = (process.env.BENCH_LOG_FILTER_TOKENS ?? "1000,10000,100000").split(",").map(Number);
const CHUNK = Number(process.env.BENCH_LOG_FILTER_CHUNK ?? 1_000);
const SPAN = Number(process.env.BENCH_LOG_FILTER_SPAN ?? 10);
const CACHE_DIR =
  process.env.BENCH_LOG_FILTER_CACHE_DIR ?? join(os.tmpdir(), `tmi-bench-log-filter-${TRADES}`);
const log = (m: string) => process.stderr.write(`[bench log-filter] ${m}\n`);

const anvil = await openCachedHistory(log, { trades: TRADES, graduations: 5, cacheDir: CACHE_DIR });
const { history, deployment } = anvil;
// The fetcher logs range shrinks at debug level only.
const quiet = () => {};
const logger = { debug: quiet, info: quiet, warn: quiet, error: quiet } as unknown as Parameters<
  typeof createRangeFetcher
>[0]["logger"];

interface Row {
  known_tokens: number;
  ranges: number;
  blocks_per_range: number;
  get_logs_requests: number;
  requests_per_range: number;
  addresses_per_request: number;
  raw_logs: number;
  events: number;
  seconds: number;
  events_per_s: number;
  load_tokens_ms: number;
  load_heap_mb: number;
}

try {
  const head = await chainHead(anvil.rpcUrl);
  const from = deployment.startBlock;
  log(`history: ${history.trades} trades, ${history.events} logs in ${history.blocks} blocks; head ${head}`);
  // The real tokens: one pass of discovery over the history (what the indexer knows after it).
  const probe = createRangeFetcher({
    rpc: createRpcClient({ url: anvil.rpcUrl, maxConcurrent: 4 }),
    logger,
    chainId: deployment.chainId,
    initialSpan: head - from + 1,
    maxSpan: 1_000_000,
    targetLogs: 1_000_000,
    addressChunk: CHUNK,
    strategy: "emitters", // this benchmark measures the emitter-chunk queries (head-scale: the choice)
  });
  const real = new EmitterSet(deployment.contracts.factory.toLowerCase(), {
    proxy: null,
    aggregators: [deployment.contracts.ethUsdFeed.toLowerCase()],
  });
  await probe.fetchRange(from, head, false, real, { previous: Promise.resolve(), done: () => {} });
  log(`real emitters: ${real.tokens.size} tokens, ${real.pools.size} graduated pools`);

  const database = await createTestDatabase();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const core = createIndexingCore({
    chainId: 31337,
    factory: deployment.contracts.factory.toLowerCase(),
    weth: deployment.contracts.weth.toLowerCase(),
    feed: null,
    keepBlocks: 65,
  });
  const rows: Row[] = [];
  for (const count of COUNTS) {
    await insertSyntheticTokens(db, count, 31337);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const loadStarted = performance.now();
    const seed = await core.load(pool);
    const loadMs = performance.now() - loadStarted;
    const loadHeapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    if (seed.tokens.length !== count)
      throw new Error(`loaded ${seed.tokens.length} tokens, expected ${count}`);
    const known = real.clone();
    for (let i = 0; known.tokens.size < count; i++) {
      const a = `0x${(0x5e0000000000n + BigInt(i)).toString(16).padStart(40, "0")}`;
      known.add({
        token: a,
        curve: `0x${"c".repeat(28)}${i.toString(16).padStart(12, "0")}`,
        pool: a,
        graduated: false,
      });
    }
    const rpc = createRpcClient({ url: anvil.rpcUrl, maxConcurrent: 4 });
    const fetcher = createRangeFetcher({
      rpc,
      logger,
      chainId: deployment.chainId,
      initialSpan: SPAN,
      maxSpan: SPAN,
      targetLogs: 1_000_000,
      addressChunk: CHUNK,
      strategy: "emitters",
    });
    let ranges = 0;
    let requests = 0;
    let rawLogs = 0;
    let events = 0;
    const started = performance.now();
    // Two ranges in flight, discovery chained in order, as the scheduler runs them.
    let previous: Promise<unknown> = Promise.resolve();
    const inflight: Promise<Awaited<ReturnType<typeof fetcher.fetchRange>>>[] = [];
    let next = from;
    const dispatch = () => {
      while (inflight.length < 2 && next <= head) {
        const end = Math.min(head, next + SPAN - 1);
        let done!: () => void;
        const own = new Promise<void>((r) => (done = r));
        const p = fetcher.fetchRange(next, end, false, known, { previous, done });
        previous = Promise.race([
          own,
          p.then(
            () => {},
            () => {},
          ),
        ]);
        inflight.push(p);
        next = end + 1;
      }
    };
    dispatch();
    while (inflight.length > 0) {
      const r = await inflight.shift()!;
      dispatch();
      ranges++;
      requests += r.logRequests;
      rawLogs += r.logCount;
      events += r.events.length;
    }
    const seconds = (performance.now() - started) / 1000;
    rows.push({
      known_tokens: known.tokens.size,
      ranges,
      blocks_per_range: Math.round((head - from + 1) / ranges),
      get_logs_requests: requests,
      requests_per_range: Math.round((requests / ranges) * 10) / 10,
      addresses_per_request: Math.min(CHUNK, known.size),
      raw_logs: rawLogs,
      events,
      seconds: Math.round(seconds * 100) / 100,
      events_per_s: Math.round(events / seconds),
      load_tokens_ms: Math.round(loadMs),
      load_heap_mb: Math.round(loadHeapMb),
    });
    log(
      `${count} known tokens: ${requests} getLogs over ${ranges} ranges, ${events} events in ${seconds.toFixed(2)} s`,
    );
  }
  console.table(rows);
  for (const r of rows) console.log(JSON.stringify({ bench: "log-filter", chunk: CHUNK, ...r }));
  await db.end();
  await pool.end();
  await database.drop();
} finally {
  await anvil.stop();
}
