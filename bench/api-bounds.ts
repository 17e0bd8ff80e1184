// `pnpm bench api-bounds`: what query-api's reads cost as their parameters vary, on the database of
// `pnpm bench api-plans` (≥ 10,000 tokens, ≥ 1,000,000 trades):
// 1. statements: query-api as its own process (DB_POOL_MAX 4) answers 6,000 `GET /api/v1/tokens`
//    mixing `limit` 1–100, every sort, phase, search and pages reached by cursor; prints the RSS of
//    its PostgreSQL backends (from /proc/<pid>/status of the pids in pg_stat_activity) and its
//    own, before and after (docs/operations.md "Prepared statements"; target: backend growth
//    ≤ 50 MB).
// 2. holdings: a wallet that traded every token and holds half, `include_closed=true`, under
//    PostgreSQL's generic plan (`plan_cache_mode = force_generic_plan`): first page and the first
//    page of the closed positions (docs/api.md holdings; target ≤ 50 ms).
// 3. exclusion: the token with the most trades excluded (`pnpm exclusions add`'s code), the
//    market-wide feed's first page with it excluded, and the exclusion removed again.
// One JSON line per part: {"bench":"api-bounds","part":...,...}.
// Options: --requests=<n> (6000) --concurrency=<n> (8) --tokens=<n> --trades=<n> --database=<name> (qapi_bench)
import { readFileSync } from "node:fs";
import os from "node:os";
import { createDb } from "@tmi/db";
import pg from "pg";
import { Agent, request } from "undici";
import { createCursorCodec } from "../packages/shared/src/codec/index.js";
import { readKeysetPage } from "../services/query-api/src/common/keyset-page.js";
import { READ_SESSION_SETTINGS } from "../services/query-api/src/db.js";
import { addExclusion, removeExclusion } from "../services/query-api/src/exclusions.js";
import { TOKEN_PHASES, TOKEN_SORTS } from "../services/query-api/src/tokens/token-list-queries.js";
import { MARKET_TRADES } from "../services/query-api/src/trades/trade-queries.js";
import { listHoldings } from "../services/query-api/src/wallets/wallet-queries.js";
import { openBenchData } from "./api-samples-lib.js";
import { parseBenchArgs } from "./bench-args-lib.js";
import { serviceAddress, startQueryApiProcess } from "./service-processes.js";

const args = parseBenchArgs();
const REQUESTS = args.num("requests", 6000);
const CONCURRENCY = args.num("concurrency", 8);
const SECRET = "bench-bounds-secret-0123456789abcdef";
const WALLET = `0x${"5a".repeat(20)}`;
const log = (line: string) => process.stderr.write(`${line}\n`);

const data = await openBenchData(args, "qapi_bench", log);
const admin = new pg.Client({ connectionString: data.url });
await admin.connect();
const dbName = (await admin.query("SELECT current_database() AS d")).rows[0].d as string;
const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // the backend ended
  }
};
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;
const figures: Record<string, unknown>[] = [];

// 1. statements and backend memory.
{
  const server = startQueryApiProcess({
    HOST: "127.0.0.1",
    DATABASE_URL: data.url,
    CURSOR_SECRET: SECRET,
    DB_POOL_MAX: "4",
    NODE_OPTIONS: "--max-old-space-size=192",
  });
  try {
    const address = await serviceAddress(server, "query-api");
    const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 60_000 });
    const get = async (path: string) => {
      const response = await request(`${address}${path}`, { dispatcher });
      const body = (await response.body.json()) as { next_cursor?: string };
      if (response.statusCode !== 200)
        throw new Error(`${path}: ${response.statusCode} ${JSON.stringify(body)}`);
      return body;
    };
    const backends = async () =>
      (
        await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tmi-query-api'",
          [dbName],
        )
      ).rows.map((r) => r.pid);
    /** One walk: a random sort, phase, search and limit, 1–3 pages. */
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const searches = ["", "pe", "moon", "doge 5", "0xa"];
    let sent = 0;
    const walk = async (limits: () => number) => {
      const query = new URLSearchParams({ limit: String(limits()) });
      const sort = [undefined, ...TOKEN_SORTS][random(TOKEN_SORTS.length + 1)];
      const phase = [undefined, ...TOKEN_PHASES][random(TOKEN_PHASES.length + 1)];
      const search = searches[random(searches.length)];
      if (sort) query.set("sort", sort);
      if (phase) query.set("phase", phase);
      if (search) query.set("search", search);
      const pages = 1 + random(3);
      for (let page = 0; page < pages && sent < REQUESTS; page++) {
        sent++;
        const body = await get(`/api/v1/tokens?${query}`);
        if (!body.next_cursor) break;
        query.set("cursor", body.next_cursor);
      }
    };
    const run = async (count: number, limits: () => number) => {
      sent = 0;
      const target = count;
      const worker = async () => {
        while (sent < target) await walk(limits);
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      return (performance.now() - started) / 1000;
    };
    // Warm-up at one page size: every connection open, the shapes prepared.
    await run(600, () => 20);
    const pids = await backends();
    const before = new Map(pids.map((pid) => [pid, rssMb(pid)]));
    const apiBefore = rssMb(server.child.pid!);
    const seconds = await run(REQUESTS, () => 1 + random(100));
    const after = await backends();
    const growth = pids.filter((pid) => after.includes(pid)).map((pid) => rssMb(pid) - before.get(pid)!);
    // (The statements a backend holds are counted by services/query-api/test/token-list-statements.int.test.ts:
    // pg_prepared_statements shows a session its own only.)
    const part = {
      bench: "api-bounds",
      part: "statements",
      requests: REQUESTS,
      seconds: Number(seconds.toFixed(1)),
      backends: pids.length,
      backends_kept: growth.length,
      backend_rss_before_mb: Math.round(Math.max(...before.values())),
      backend_rss_growth_max_mb: Number(Math.max(0, ...growth).toFixed(1)),
      backend_rss_growth_sum_mb: Number(growth.reduce((a, b) => a + b, 0).toFixed(1)),
      api_rss_before_mb: Math.round(apiBefore),
      api_rss_after_mb: Math.round(rssMb(server.child.pid!)),
      target: "backend growth ≤ 50 MB",
    };
    figures.push(part);
    log(`statements: ${JSON.stringify(part)}`);
    await dispatcher.close();
  } finally {
    await server.stop();
  }
}

// 2. holdings of a wallet with every token, under the generic plan.
{
  const { rows } = await admin.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM positions WHERE trader = $1",
    [WALLET],
  );
  if ((rows[0]?.n ?? 0) === 0) {
    // Dust buys of every token; still held: every other one.
    await admin.query(
      `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
                              buy_count, sell_count, open_quantity, cost_basis, realized_pnl,
                              first_block_number, first_transaction_hash, first_log_index, first_timestamp,
                              last_block_number, last_transaction_hash, last_log_index, last_timestamp)
       SELECT address, $1, 1000, 1, 0, 0, 1, 1, 0, 1000, 1, 0, 1, $2, 0, 1, 1, $2, 0, 1 FROM tokens
       ON CONFLICT DO NOTHING`,
      [WALLET, `0x${"ab".repeat(32)}`],
    );
    await admin.query(
      `INSERT INTO token_balances (token_address, holder, balance)
       SELECT address, $1, 1000 FROM (SELECT address, row_number() OVER (ORDER BY address) AS n FROM tokens) t
       WHERE n % 2 = 0 ON CONFLICT DO NOTHING`,
      [WALLET],
    );
    await admin.query("ANALYZE positions; ANALYZE token_balances");
  }
  const tokens = (await admin.query("SELECT count(*)::int AS n FROM positions WHERE trader = $1", [WALLET]))
    .rows[0].n as number;
  const client = new pg.Client({ connectionString: data.url });
  await client.connect();
  await client.query(READ_SESSION_SETTINGS);
  await client.query("SET plan_cache_mode = force_generic_plan");
  const times: Record<string, number[]> = { first: [], closed: [] };
  for (let i = 0; i < 25; i++) {
    for (const [name, after] of [
      ["first", null],
      ["closed", [1, 0n, "0x"]],
    ] as const) {
      const started = performance.now();
      const page = await listHoldings(client, {
        wallet: WALLET,
        includeClosed: true,
        after: after as [number, bigint, string] | null,
        take: 21,
      });
      times[name]!.push(performance.now() - started);
      if (page.length !== 21) throw new Error(`holdings ${name}: ${page.length} rows`);
    }
  }
  await client.end();
  const part = {
    bench: "api-bounds",
    part: "holdings_generic",
    wallet_tokens: tokens,
    first_p50_ms: Number(percentile(times.first!, 0.5).toFixed(1)),
    first_max_ms: Number(Math.max(...times.first!).toFixed(1)),
    closed_p50_ms: Number(percentile(times.closed!, 0.5).toFixed(1)),
    closed_max_ms: Number(Math.max(...times.closed!).toFixed(1)),
    target: "≤ 50 ms",
  };
  figures.push(part);
  log(`holdings: ${JSON.stringify(part)}`);
}

// 3. exclusion of the busiest token: its cost, and the feed's first page meanwhile.
{
  const hot = (
    await admin.query<{ token_address: string; n: number }>(
      `SELECT token_address, count(*)::int AS n FROM trades WHERE NOT hidden
       GROUP BY token_address ORDER BY count(*) DESC LIMIT 1`,
    )
  ).rows[0]!;
  const prisma = createDb({ url: data.url, max: 1 });
  const codec = createCursorCodec(SECRET);
  const client = new pg.Client({ connectionString: data.url });
  await client.connect();
  await client.query(READ_SESSION_SETTINGS);
  const firstPage = {
    filters: [],
    order: "desc" as const,
    limit: 20,
    cursor: undefined,
    cursors: codec,
    route: "t",
  };
  const feed = async () => {
    const times: number[] = [];
    for (let i = 0; i < 25; i++) {
      const started = performance.now();
      await readKeysetPage(client, MARKET_TRADES, firstPage);
      times.push(performance.now() - started);
    }
    return Number(percentile(times, 0.5).toFixed(2));
  };
  try {
    const open = await feed();
    let started = performance.now();
    await addExclusion(prisma, { address: hot.token_address, kind: "token", reason: "bench" });
    const addMs = performance.now() - started;
    const excluded = await feed();
    started = performance.now();
    await removeExclusion(prisma, { address: hot.token_address, kind: "token" });
    const removeMs = performance.now() - started;
    const part = {
      bench: "api-bounds",
      part: "exclusion",
      token_trades: hot.n,
      add_ms: Math.round(addMs),
      remove_ms: Math.round(removeMs),
      feed_p50_ms: open,
      feed_excluded_p50_ms: excluded,
    };
    figures.push(part);
    log(`exclusion: ${JSON.stringify(part)}`);
  } finally {
    await client.end();
    await prisma.$disconnect();
  }
}
await admin.end();

console.log(
  `\nquery-api bounds — ${new Date().toISOString()} — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average (1 min) ${os.loadavg()[0]!.toFixed(2)}`,
);
for (const f of figures) console.log(JSON.stringify(f));
