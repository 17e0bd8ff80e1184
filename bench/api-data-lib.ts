// Synthesized database for `pnpm bench api`: the read-model tables query-api serves, filled with
// SQL `generate_series` in the shape the indexer writes them (same columns, same keys, same
// indexes from the committed migrations), far faster than indexing a devnet history of the size.
// Shapes: N V3 tokens (1 in 50 graduated, with `uniswap_v3` trades), M trades (1 in 10 on one hot
// token for deep cursors, the rest spread over every token), one chain event per trade plus one
// TokenLaunchedV3 per token, positions folded from the trades (`tmi_position_fold`) with their open
// quantities as balances,
// candles of every interval aggregated from the trades, creators, a trending snapshot of 1,000
// tokens, finalized metadata for half the tokens, a few exclusions, ETH/USD answers every 20 minutes
// of chain time (Chainlink's Base heartbeat is 20 minutes) and the indexer checkpoint.
// Build: the bulk tables are emptied of their indexes and made unlogged, filled (candles and
// positions aggregated from an integer-keyed copy of the trades, one sort each, on two sessions
// at once), then every index is built once (two sessions) and the tables vacuumed and analyzed.
// Each step logs its wall-clock and server CPU time. The database is kept and reused while its
// comment names this version and size (`--rebuild` to rebuild).

import { readFileSync } from "node:fs";
import { migrate, quoteIdent, withDatabase } from "@tmi/db";
import { bucketStartSql, CANDLE_INTERVALS, INTERVAL_SECONDS, syncHiddenTradesSql } from "@tmi/shared/market";
import pg from "pg";

/** Start of the synthetic chain (Unix seconds); blocks are 2 s apart. */
export const BENCH_T0 = 1_700_000_000;
/** Chain id of the synthetic chain. */
export const BENCH_CHAIN_ID = 31337;
/** First block with trades; tokens launch before it. */
export const FIRST_TRADE_BLOCK = 100_000;

/** SQL expression of the address of token number `i` (1-based). */
export const tokenAddressSql = (i: string) => `('0x' || substr(md5('t' || ${i}) || md5('u' || ${i}), 1, 40))`;
const creatorAddressSql = (i: string) => `('0x' || substr(md5('c' || ${i}) || md5('d' || ${i}), 1, 40))`;
const traderAddressSql = (i: string) => `('0x' || substr(md5('w' || ${i}) || md5('v' || ${i}), 1, 40))`;
const hashSql = (seed: string) => `('0x' || md5('h' || ${seed}) || md5('k' || ${seed}))`;

/**
 * The data set's version: a set built by another version is built again. Not raised for a
 * migration a kept set takes as it is (applied on reuse, below): one that derives what it adds
 * from the rows (`tokens-address-tie-column`'s generated `address_tie`, new indexes) leaves the set
 * equivalent to a new build.
 */
const VERSION = "qapi-bench-v7-usd-buckets";

/** The tables filled in bulk (largest first): loaded without indexes (built after), unlogged (no WAL). */
const BULK_TABLES = ["candles", "trades", "chain_events", "positions", "token_balances", "tokens"];

/** An index of a bulk table: how to drop it and how to build it again. */
interface IndexDef {
  table: string;
  drop: string;
  create: string;
}

/** The indexes and primary/unique keys of {@link BULK_TABLES} as the migrations created them. */
async function bulkIndexes(client: pg.Client): Promise<IndexDef[]> {
  const { rows } = await client.query<{
    tbl: string;
    idx: string;
    def: string;
    con: string | null;
    condef: string | null;
  }>(
    `SELECT c.relname AS tbl, i.relname AS idx, pg_get_indexdef(i.oid) AS def, con.conname AS con,
            pg_get_constraintdef(con.oid) AS condef
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
     LEFT JOIN pg_constraint con ON con.conindid = i.oid AND con.contype IN ('p', 'u')
     WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace
     ORDER BY array_position($1, c.relname::text), i.relname`,
    [BULK_TABLES],
  );
  return rows.map((r) => ({
    table: r.tbl,
    drop:
      r.con !== null
        ? `ALTER TABLE ${quoteIdent(r.tbl)} DROP CONSTRAINT ${quoteIdent(r.con)}`
        : `DROP INDEX ${quoteIdent(r.idx)}`,
    create:
      r.con !== null
        ? `ALTER TABLE ${quoteIdent(r.tbl)} ADD CONSTRAINT ${quoteIdent(r.con)} ${r.condef}`
        : r.def,
  }));
}

/** Builds `indexes` on `sessions` connections to `url` at once (one index at a time each). */
async function buildIndexes(
  url: string,
  indexes: IndexDef[],
  sessions: number,
  log: (line: string) => void,
): Promise<void> {
  const queue = [...indexes];
  const worker = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("SET maintenance_work_mem = '1GB'");
      await client.query("SET max_parallel_maintenance_workers = 0");
      for (let next = queue.shift(); next; next = queue.shift()) {
        const started = performance.now();
        const cpu = await backendCpu(client);
        await client.query(next.create);
        const used = ((await backendCpu(client)) ?? 0) - (cpu ?? 0);
        log(
          `  index ${next.create.slice(0, 90)}…: ${((performance.now() - started) / 1000).toFixed(1)} s, ${used.toFixed(1)} s CPU`,
        );
      }
    } finally {
      await client.end();
    }
  };
  await Promise.all(Array.from({ length: sessions }, worker));
}

/**
 * Whether the data set at `url` still has its trades (the bulk tables are unlogged: a crash of the
 * server empties them, and the data set is then built again).
 */
async function hasTrades(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("SELECT EXISTS (SELECT 1 FROM trades) AS x")).rows[0].x === true;
  } finally {
    await client.end();
  }
}

/** What {@link ensureBenchDatabase} built or found. */
export interface BenchDatabase {
  url: string;
  tokens: number;
  trades: number;
  built: boolean;
  seconds: number;
}

/** The columns of `chain_events` the load writes. */
const CHAIN_EVENT_COLUMNS = `(block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
  contract_address, event_name, token_address, decoded)`;

/** SQL expression of the price of trade number `n` (as the trade rows compute it). */
const priceOfTradeSql = (n: string) =>
  `trunc(10000000000000000::numeric * (1 + (${n}) % 100) * 985 / 1000 * 1000000000000000000 / (1000000000000000000000 + (${n})))`;

/** A session for the bulk load: no journal triggers, large sort memory, no commit wait. */
async function session(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SET session_replication_role = replica");
  await client.query("SET maintenance_work_mem = '1GB'");
  await client.query("SET work_mem = '512MB'");
  await client.query("SET synchronous_commit = off");
  await client.query("SET max_parallel_workers_per_gather = 0");
  return client;
}

/** CPU seconds (user + system) the server process of `client` has used (read from /proc: the server is local). */
async function backendCpu(client: pg.Client): Promise<number | undefined> {
  const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Runs one load statement and logs its rows, wall-clock time and the server's CPU time for it. */
async function step(
  client: pg.Client,
  label: string,
  sql: string,
  log: (line: string) => void,
): Promise<void> {
  const started = performance.now();
  const cpu = await backendCpu(client);
  const result = await client.query(sql);
  const cpuAfter = await backendCpu(client);
  const cpuText = cpu !== undefined && cpuAfter !== undefined ? `, ${(cpuAfter - cpu).toFixed(1)} s CPU` : "";
  log(
    `  ${label}: ${result.rowCount ?? 0} rows in ${((performance.now() - started) / 1000).toFixed(1)} s${cpuText}`,
  );
}

/**
 * Makes sure database `name` on the server of `adminUrl` holds the synthetic data set of
 * `tokens` tokens and `trades` trades (rebuilt when absent, of another size, or `rebuild`).
 */
export async function ensureBenchDatabase(options: {
  adminUrl: string;
  name: string;
  tokens: number;
  trades: number;
  rebuild?: boolean;
  log?: (line: string) => void;
}): Promise<BenchDatabase> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const marker = `${VERSION} tokens=${options.tokens} trades=${options.trades}`;
  const url = withDatabase(options.adminUrl, options.name);
  const admin = new pg.Client({ connectionString: options.adminUrl });
  await admin.connect();
  try {
    const existing = await admin.query<{ comment: string | null }>(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [options.name],
    );
    const comment = existing.rows[0]?.comment ?? null;
    // A data set of this builder at another size is refused, not silently replaced: a 1M set
    // takes ten minutes to build, and a command run without its `--tokens`/`--trades` once
    // dropped it for a 10k one.
    const size = comment?.startsWith(`${VERSION} `) ? comment.slice(VERSION.length + 1) : null;
    if (!options.rebuild && size !== null && comment !== marker)
      throw new Error(
        `${options.name} holds ${size}, not tokens=${options.tokens} trades=${options.trades}: pass its --tokens/--trades, or --rebuild to replace it`,
      );
    if (!options.rebuild && comment === marker && (await hasTrades(url))) {
      // Migrations added since it was built (new indexes) are applied to it.
      await migrate({ databaseUrl: url, logger: { info() {}, warn: log, error: log } });
      return { url, tokens: options.tokens, trades: options.trades, built: false, seconds: 0 };
    }
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(options.name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quoteIdent(options.name)}`);
  } finally {
    await admin.end();
  }

  const started = performance.now();
  log(`building ${options.name}: ${options.tokens} tokens, ${options.trades} trades`);
  await migrate({ databaseUrl: url, logger: { info() {}, warn: log, error: log } });
  const client = await session(url);
  const N = options.tokens;
  const M = options.trades;
  const tokenOfTrade = `(CASE WHEN n % 10 = 0 THEN 1 ELSE 1 + (n * 7919) % ${N} END)`;
  let indexes: IndexDef[] = [];
  try {
    // Loaded without indexes (each built once from the loaded table, after), without WAL (the
    // tables are unlogged: a bench data set, rebuilt if a crash empties it), without the journal
    // triggers (off anyway outside the indexer's reorg window).
    indexes = await bulkIndexes(client);
    for (const index of indexes) await client.query(index.drop);
    for (const table of BULK_TABLES) await client.query(`ALTER TABLE ${quoteIdent(table)} SET UNLOGGED`);
    await step(
      client,
      "tokens",
      `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
         created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at, lifecycle,
         curve_address, pool_address, pool_token_is_token0, sold_supply, reserve_balance, virtual_token_reserve,
         virtual_eth_reserve, graduation_threshold, graduation_manager_address, lp_custodian_address, position_token_id,
         graduation_liquidity, graduation_token_amount, graduation_eth_amount, graduation_sold_supply,
         graduated_block_number, graduated_transaction_hash, graduated_log_index, graduated_at,
         settled_block_number, settled_transaction_hash, settled_log_index, last_trade_source, updated_block_number)
       SELECT ${tokenAddressSql("i")}, ${BENCH_CHAIN_ID}, ${creatorAddressSql("i % 1000")}, nm, sy, lower(nm), lower(sy),
         1000000000000000000000000000, 1000 + i * 5, 0, ${hashSql("'c' || i")}, 1, ${BENCH_T0} + (1000 + i * 5) * 2,
         CASE WHEN g THEN 'graduated' ELSE 'active' END,
         ${tokenAddressSql("-i - 1000000")}, ${tokenAddressSql("-i")}, i % 2 = 0,
         CASE WHEN g THEN 800000000000000000000000000 ELSE (i % 800)::numeric * 1000000000000000000000000 END,
         CASE WHEN g THEN 0 ELSE (i % 3000)::numeric * 1000000000000000 END,
         1066666666666666666666666667, 1000000000000000000, 800000000000000000000000000,
         CASE WHEN g THEN '0x5917ce7aff3a5f276334464e3dea2a96e94c81d8' END,
         CASE WHEN g THEN ${tokenAddressSql("-i - 2000000")} END, CASE WHEN g THEN i::numeric END,
         CASE WHEN g THEN 24494897427831780981 END, CASE WHEN g THEN 200000000000000000000000000 END,
         CASE WHEN g THEN 2970000000000000000 END, CASE WHEN g THEN 800000000000000000000000000 END,
         CASE WHEN g THEN ${FIRST_TRADE_BLOCK} - 10 END, CASE WHEN g THEN ${hashSql("'g' || i")} END,
         CASE WHEN g THEN 4 END, CASE WHEN g THEN ${BENCH_T0} + (${FIRST_TRADE_BLOCK} - 10) * 2 END,
         CASE WHEN g THEN ${FIRST_TRADE_BLOCK} - 10 END, CASE WHEN g THEN ${hashSql("'g' || i")} END,
         CASE WHEN g THEN 2 END,
         CASE WHEN g THEN 'uniswap_v3' ELSE 'curve' END, 1000 + i * 5
       FROM (SELECT i, (ARRAY['Pepe','Doge','Moon','Shiba','Frog','Cat','Based','Turbo','Giga','Mega'])[1 + i % 10] || ' ' || i AS nm,
                    upper(substr(md5('s' || i), 1, 4)) AS sy, i % 50 = 0 AS g
             FROM generate_series(1, ${N}) AS i) s`,
      log,
    );
    // One row per trade with integer keys (token number, trader number, trade number `n`, which
    // orders trades as block, transaction index and log index do): the candles and positions are
    // aggregated from it (sorts of integers, not of addresses), the trades and events written from it.
    await step(
      client,
      "trade keys",
      `CREATE UNLOGGED TABLE bench_trade_keys AS
       SELECT n, tok, (n * 31) % 50000 AS trader, blk, n % 3 <> 0 AS buy, ${BENCH_T0} + blk * 2 AS ts,
         ta, ra, cv, trunc(cv * 1000000000000000000 / ta) AS price
       FROM (SELECT n, ${tokenOfTrade} AS tok, ${FIRST_TRADE_BLOCK} + n / 2 AS blk, 1000000000000000000000 + n AS ta,
                    10000000000000000::numeric * (1 + n % 100) AS ra,
                    10000000000000000::numeric * (1 + n % 100) * 985 / 1000 AS cv
             FROM generate_series(1::bigint, ${M}::bigint) AS n) s`,
      log,
    );
    const second = await session(url);
    const intervals = CANDLE_INTERVALS.map(
      (interval) => [interval, bucketStartSql("ts", String(INTERVAL_SECONDS[interval]))] as const,
    );
    /** Aggregates the candles of one interval (`bucket`: the SQL of its bucket start over `ts`). */
    const candles = (session: pg.Client, interval: string, bucket: string) =>
      step(
        session,
        `candles ${interval}`,
        // One sort per interval (by token, bucket, trader, integers): the unique traders are
        // the first row of each trader's partition, open and close the prices of the least and
        // greatest trade numbers (the price is a function of the trade number).
        `INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
               unique_trader_count, open_price, high_price, low_price, close_price)
             SELECT ${tokenAddressSql("tok")}, '${interval}', b, c, bc, c - bc, v, u, ${priceOfTradeSql("fn")}, hi, lo,
               ${priceOfTradeSql("ln")}
             FROM (SELECT tok, b, count(*) AS c, count(*) FILTER (WHERE buy) AS bc, sum(ra) AS v,
                     count(*) FILTER (WHERE first_of_trader) AS u, min(n) AS fn, max(n) AS ln, max(price) AS hi,
                     min(price) AS lo
                   FROM (SELECT tok, b, n, buy, ra, price,
                           row_number() OVER (PARTITION BY tok, b, trader) = 1 AS first_of_trader
                         FROM (SELECT *, ${bucket} AS b FROM bench_trade_keys) k) w
                   GROUP BY tok, b) g`,
        log,
      );
    // Two sessions at once (the machine's two cores), of about equal CPU time: trades, events,
    // positions and the 1d and 1w candles on one, the shorter intervals' candles on the other.
    await Promise.all([
      (async () => {
        await step(
          client,
          "trades",
          `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader,
             side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
           SELECT blk, (n % 2) * 3, n % 2, ${hashSql("n")}, ts, ${tokenAddressSql("tok")}, ${traderAddressSql("trader")},
             CASE WHEN buy THEN 'buy' ELSE 'sell' END, CASE WHEN tok % 50 = 0 THEN 'uniswap_v3' ELSE 'curve' END,
             ta, ra, cv, ra / 100, ra / 200, price
           FROM bench_trade_keys`,
          log,
        );
        await step(
          client,
          "chain_events (trades)",
          `INSERT INTO chain_events ${CHAIN_EVENT_COLUMNS}
           SELECT block_number, log_index, ${hashSql("'b' || block_number")}, block_timestamp, transaction_index, transaction_hash,
             '0x5fbdb2315678afecb367f032d93f642f64180aa3', CASE side WHEN 'buy' THEN 'TokensBought' ELSE 'TokensSold' END, token_address,
             jsonb_build_object('token', token_address, CASE side WHEN 'buy' THEN 'buyer' ELSE 'seller' END, trader,
               'reserveAmount', reserve_amount::text, 'tokenAmount', token_amount::text, 'curveValue', curve_value::text,
               'protocolFee', protocol_fee::text, 'creatorFee', creator_fee::text,
               'reserveBalance', '30000000000000000000', 'tokenBalance', '1073000000000000000000000000')
           FROM trades`,
          log,
        );
        await step(
          client,
          "chain_events (launches)",
          `INSERT INTO chain_events ${CHAIN_EVENT_COLUMNS}
           SELECT created_block_number, created_log_index, ${hashSql("'b' || created_block_number")}, created_at, 0,
             created_transaction_hash, '0x5fbdb2315678afecb367f032d93f642f64180aa3', 'TokenLaunchedV3', address,
             jsonb_build_object('creator', creator, 'token', address, 'curve', curve_address,
               'protocolVersion', 'endpoint-cp-v3', 'totalSupply', initial_supply::text,
               'curveAllocation', graduation_threshold::text, 'lpAllocation', '200000000000000000000000000',
               'canonicalPool', pool_address)
           FROM tokens`,
          log,
        );
        await step(
          client,
          "positions",
          // One sort of the trades by position and trade number; the fold reads each position's
          // trades in that order (an ORDER BY inside the aggregate would sort every position on its
          // own); the first and last trades are the least and greatest trade numbers.
          `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
             buy_count, sell_count, open_quantity, cost_basis, realized_pnl, first_block_number, first_transaction_hash,
             first_log_index, first_timestamp, last_block_number, last_transaction_hash, last_log_index, last_timestamp)
           SELECT ${tokenAddressSql("tok")}, ${traderAddressSql("trader")}, bt, br, st, sr, br + sr, bc, sc, f[1], f[2], f[3],
             ${FIRST_TRADE_BLOCK} + fn / 2, ${hashSql("fn")}, (fn % 2) * 3, ${BENCH_T0} + (${FIRST_TRADE_BLOCK} + fn / 2) * 2,
             ${FIRST_TRADE_BLOCK} + ln / 2, ${hashSql("ln")}, (ln % 2) * 3, ${BENCH_T0} + (${FIRST_TRADE_BLOCK} + ln / 2) * 2
           FROM (SELECT tok, trader,
                   coalesce(sum(ta) FILTER (WHERE buy), 0) AS bt, coalesce(sum(ra) FILTER (WHERE buy), 0) AS br,
                   coalesce(sum(ta) FILTER (WHERE NOT buy), 0) AS st, coalesce(sum(ra) FILTER (WHERE NOT buy), 0) AS sr,
                   count(*) FILTER (WHERE buy)::int AS bc, count(*) FILTER (WHERE NOT buy)::int AS sc,
                   tmi_position_fold(NULL, NULL, NULL, buy, ta, ra) AS f, min(n) AS fn, max(n) AS ln
                 FROM (SELECT * FROM bench_trade_keys ORDER BY tok, trader, n) k
                 GROUP BY tok, trader) a`,
          log,
        );
        for (const [interval, bucket] of intervals.slice(5)) await candles(client, interval, bucket);
      })(),
      (async () => {
        for (const [interval, bucket] of intervals.slice(0, 5)) await candles(second, interval, bucket);
      })(),
    ]);
    await second.end();
    await step(
      client,
      "token metrics",
      // Unique traders counted from the positions (one per token and trader), the last price the
      // price of the greatest trade number.
      `UPDATE tokens t SET trade_count = a.c, buy_count = a.b, sell_count = a.c - a.b, volume = a.v, fees = a.f,
         unique_trader_count = a.u, holder_count = a.u + 1, current_price = a.p, fully_diluted_value = a.p * 1000000000,
         latest_trade_timestamp = a.lt, last_trade_block_number = a.lb, updated_block_number = a.lb
       FROM (SELECT ${tokenAddressSql("k.tok")} AS token_address, k.c, k.b, k.v, k.f, u.u, ${priceOfTradeSql("k.ln")} AS p,
               ${FIRST_TRADE_BLOCK} + k.ln / 2 AS lb, ${BENCH_T0} + (${FIRST_TRADE_BLOCK} + k.ln / 2) * 2 AS lt
             FROM (SELECT tok, count(*)::int AS c, count(*) FILTER (WHERE buy)::int AS b, sum(ra) AS v,
                     sum(ra / 100 + ra / 200) AS f, max(n) AS ln
                   FROM bench_trade_keys GROUP BY tok) k
             JOIN (SELECT token_address, count(*)::int AS u FROM positions GROUP BY token_address) u
               ON u.token_address = ${tokenAddressSql("k.tok")}) a
       WHERE a.token_address = t.address`,
      log,
    );
    await step(
      client,
      "token balances (the open quantities)",
      `INSERT INTO token_balances (token_address, holder, balance)
       SELECT token_address, trader, open_quantity FROM positions WHERE open_quantity > 0`,
      log,
    );
    // Issue 28's read models, in the indexer's shape, so detail's `risk`/`ath`, the compact risk
    // of list Tokens, `?tag=` and the screener's risk bounds read populated rows: per token the
    // first three traders (by first trade) are snipers, the first of them a launch-block buyer,
    // the next two insiders (received 1,000 tokens from the creator); concentration from the
    // balances; ATH the highest trade price (its least trade number on ties).
    await step(
      client,
      "token cohorts",
      `INSERT INTO token_cohorts (token_address, wallet, sniper, launch_block_buyer, insider, received_tokens)
       SELECT ${tokenAddressSql("tok")}, ${traderAddressSql("trader")}, r <= 3, r = 1, r > 3,
         CASE WHEN r > 3 THEN 1000000000000000000000 ELSE 0 END
       FROM (SELECT tok, trader, row_number() OVER (PARTITION BY tok ORDER BY min(n)) AS r
             FROM bench_trade_keys GROUP BY tok, trader) f
       WHERE r <= 5`,
      log,
    );
    await step(
      client,
      "token risk",
      `INSERT INTO token_risk (token_address, sniper_count, sniper_holding_count, sniper_balance, sniper_bought,
         launch_buyer_count, launch_buyer_holding_count, launch_buyer_balance, launch_buyer_bought, insider_count,
         insider_holding_count, insider_balance, insider_received, top10_balance, top11_30_balance, top31_50_balance,
         holders_balance, platform_balance, ath_price, ath_block_number, ath_log_index, ath_timestamp)
       SELECT t.address, coalesce(c.sc, 0), coalesce(c.shc, 0), coalesce(c.sb, 0), coalesce(c.sbt, 0),
         coalesce(c.lc, 0), coalesce(c.lhc, 0), coalesce(c.lb, 0), coalesce(c.lbt, 0), coalesce(c.ic, 0),
         coalesce(c.ihc, 0), coalesce(c.ib, 0), coalesce(c.ir, 0), coalesce(k.t10, 0), coalesce(k.t30, 0),
         coalesce(k.t50, 0), coalesce(k.hb, 0), t.initial_supply - t.sold_supply, a.price, a.blk, a.li, a.ts
       FROM tokens t
       LEFT JOIN (SELECT token_address, sum(balance) FILTER (WHERE r <= 10) AS t10,
                    sum(balance) FILTER (WHERE r BETWEEN 11 AND 30) AS t30,
                    sum(balance) FILTER (WHERE r BETWEEN 31 AND 50) AS t50, sum(balance) AS hb
                  FROM (SELECT token_address, balance,
                          row_number() OVER (PARTITION BY token_address ORDER BY balance DESC, holder) AS r
                        FROM token_balances) b
                  GROUP BY token_address) k ON k.token_address = t.address
       LEFT JOIN (SELECT c.token_address,
                    count(*) FILTER (WHERE c.sniper) AS sc, count(*) FILTER (WHERE c.sniper AND b.balance > 0) AS shc,
                    sum(coalesce(b.balance, 0)) FILTER (WHERE c.sniper) AS sb, sum(p.bought_tokens) FILTER (WHERE c.sniper) AS sbt,
                    count(*) FILTER (WHERE c.launch_block_buyer) AS lc,
                    count(*) FILTER (WHERE c.launch_block_buyer AND b.balance > 0) AS lhc,
                    sum(coalesce(b.balance, 0)) FILTER (WHERE c.launch_block_buyer) AS lb,
                    sum(p.bought_tokens) FILTER (WHERE c.launch_block_buyer) AS lbt,
                    count(*) FILTER (WHERE c.insider) AS ic, count(*) FILTER (WHERE c.insider AND b.balance > 0) AS ihc,
                    sum(coalesce(b.balance, 0)) FILTER (WHERE c.insider) AS ib, sum(c.received_tokens) AS ir
                  FROM token_cohorts c
                  JOIN positions p ON p.token_address = c.token_address AND p.trader = c.wallet
                  LEFT JOIN token_balances b ON b.token_address = c.token_address AND b.holder = c.wallet
                  GROUP BY c.token_address) c ON c.token_address = t.address
       LEFT JOIN (SELECT DISTINCT ON (tok) ${tokenAddressSql("tok")} AS token_address, price, blk, (n % 2) * 3 AS li, ts
                  FROM bench_trade_keys ORDER BY tok, price DESC, n) a ON a.token_address = t.address`,
      log,
    );
    // Holder counts per 1h/4h/1d bucket (`holders/history`): the running Σ of the buckets' distinct traders.
    await step(
      client,
      "holder counts",
      `INSERT INTO holder_counts (token_address, interval, bucket_start, holder_count)
       SELECT token_address, interval, bucket_start,
         (sum(unique_trader_count) OVER (PARTITION BY token_address, interval ORDER BY bucket_start))::int
       FROM candles WHERE interval IN ('1h', '4h', '1d')`,
      log,
    );
    await step(
      client,
      "creators",
      `INSERT INTO creators (address, token_count, volume, updated_block_number)
       SELECT creator, count(*), sum(volume), max(updated_block_number) FROM tokens GROUP BY creator`,
      log,
    );
    await step(
      client,
      "trending",
      `WITH s AS (INSERT INTO trending_snapshots (window_seconds, as_of_block_number, as_of_timestamp)
                  VALUES (86400, ${FIRST_TRADE_BLOCK} + ${M} / 2, ${BENCH_T0} + (${FIRST_TRADE_BLOCK} + ${M} / 2) * 2) RETURNING id)
       INSERT INTO trending_entries (snapshot_id, rank, token_address, window_volume, window_trade_count, window_unique_traders)
       SELECT s.id, row_number() OVER (ORDER BY volume DESC, trade_count DESC, unique_trader_count DESC, address), address,
         volume, trade_count, unique_trader_count
       FROM s, (SELECT * FROM tokens ORDER BY volume DESC, trade_count DESC, unique_trader_count DESC, address LIMIT 1000) t`,
      log,
    );
    await step(
      client,
      "metadata drafts",
      `INSERT INTO metadata_drafts (id, chain_id, name, symbol, description, initial_supply, website_url, x_url, telegram_url,
         image_key, metadata_key, status, token_address, transaction_hash, finalized_at)
       SELECT 'draft-' || address, ${BENCH_CHAIN_ID}, name, symbol, 'The ' || name || ' token', initial_supply,
         'https://example.com/' || symbol, 'https://x.com/' || symbol, 'https://t.me/' || symbol,
         'images/' || md5(address) || md5(name) || '.png', 'metadata/' || md5(symbol) || md5(address) || '.json',
         'finalized', address, created_transaction_hash, now()
       FROM tokens WHERE created_block_number % 10 = 0`,
      log,
    );
    await step(
      client,
      "exclusions",
      `INSERT INTO excluded_addresses (address, kind, reason)
       SELECT ${tokenAddressSql("i * 97")}, 'token', 'bench' FROM generate_series(1, 20) AS i
       UNION ALL SELECT ${creatorAddressSql("i * 101")}, 'creator', 'bench' FROM generate_series(1, 3) AS i`,
      log,
    );
    // As the exclusion commands do: the excluded tokens' trades leave the feed's indexes.
    await step(client, "hidden trades", syncHiddenTradesSql("true"), log);
    // The prefix table of the search (its triggers do not run in the bulk session): the fill of
    // its migration, which also gave a set built before it the same rows (hence no new version).
    await step(
      client,
      "token search prefixes",
      `INSERT INTO token_search_prefixes (prefix, created_block_number, created_log_index, address)
       SELECT p, t.created_block_number, t.created_log_index, t.address
       FROM tokens t, tmi_token_prefixes(t.search_name, t.search_symbol, t.address) p`,
      log,
    );
    // With triggers (the bulk session runs none): the answers' statement trigger keeps the per-bucket
    // ETH/USD read model as it does for the indexer, so USD charts multiply real answers.
    await client.query("SET session_replication_role = origin");
    await step(
      client,
      "eth_usd_answers",
      `INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at)
       SELECT blk, 900, blk / 600 + 1, 300000000000 + (blk / 600 % 200)::int8 * 100000000, ${BENCH_T0}::int8 + blk * 2
       FROM generate_series(0, ${FIRST_TRADE_BLOCK} + ${M} / 2, 600) AS blk`,
      log,
    );
    await client.query("SET session_replication_role = replica");
    await step(
      client,
      "checkpoint",
      `INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp, head_block_number)
       VALUES (${BENCH_CHAIN_ID}, ${FIRST_TRADE_BLOCK} + ${M} / 2, ${hashSql("'head'")},
               ${BENCH_T0} + (${FIRST_TRADE_BLOCK} + ${M} / 2) * 2, ${FIRST_TRADE_BLOCK} + ${M} / 2)`,
      log,
    );
    await client.query("DROP TABLE bench_trade_keys");
  } finally {
    await client.end();
  }
  const indexed = performance.now();
  await buildIndexes(url, indexes, 2, log);
  log(`  ${indexes.length} indexes in ${((performance.now() - indexed) / 1000).toFixed(1)} s`);
  // VACUUM (the visibility map, for index-only scans) and ANALYZE, a table at a time on two sessions.
  const tables = (
    await (async () => {
      const c = await session(url);
      try {
        return (
          await c.query<{ name: string }>(
            "SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY pg_relation_size(oid) DESC",
          )
        ).rows;
      } finally {
        await c.end();
      }
    })()
  ).map((r) => r.name);
  const vacuumed = performance.now();
  await Promise.all(
    [0, 1].map(async () => {
      const c = await session(url);
      try {
        for (let table = tables.shift(); table; table = tables.shift())
          await step(c, `vacuum analyze ${table}`, `VACUUM (ANALYZE) ${quoteIdent(table)}`, log);
      } finally {
        await c.end();
      }
    }),
  );
  log(`  vacuum analyze: ${((performance.now() - vacuumed) / 1000).toFixed(1)} s`);
  const admin2 = new pg.Client({ connectionString: options.adminUrl });
  await admin2.connect();
  await admin2.query(`COMMENT ON DATABASE ${quoteIdent(options.name)} IS '${marker}'`);
  await admin2.end();
  const seconds = (performance.now() - started) / 1000;
  log(`built ${options.name} in ${seconds.toFixed(0)} s`);
  return { url, tokens: N, trades: M, built: true, seconds };
}
