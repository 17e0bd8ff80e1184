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
import { migrate, quoteIdent, withDatabase } from "@tmi/db";
import { bucketStartSql, CANDLE_INTERVALS, INTERVAL_SECONDS } from "@tmi/shared/market";
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

const VERSION = "qapi-bench-v4-eth-usd-wallets";

/** What {@link ensureBenchDatabase} built or found. */
export interface BenchDatabase {
  url: string;
  tokens: number;
  trades: number;
  built: boolean;
  seconds: number;
}

async function step(
  client: pg.Client,
  label: string,
  sql: string,
  log: (line: string) => void,
): Promise<void> {
  const started = performance.now();
  const result = await client.query(sql);
  log(`  ${label}: ${result.rowCount ?? 0} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
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
    if (!options.rebuild && existing.rows[0]?.comment === marker) {
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
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const N = options.tokens;
  const M = options.trades;
  const tokenOfTrade = `(CASE WHEN n % 10 = 0 THEN 1 ELSE 1 + (n * 7919) % ${N} END)`;
  try {
    await client.query("SET maintenance_work_mem = '256MB'");
    await client.query("SET work_mem = '64MB'");
    await client.query("SET synchronous_commit = off");
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
    await step(
      client,
      "trades",
      `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader,
         side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
       SELECT blk, (n % 2) * 3, n % 2, ${hashSql("n")}, ${BENCH_T0} + blk * 2, ${tokenAddressSql(tokenOfTrade)},
         ${traderAddressSql("(n * 31) % 50000")}, CASE WHEN n % 3 = 0 THEN 'sell' ELSE 'buy' END,
         CASE WHEN ${tokenOfTrade} % 50 = 0 THEN 'uniswap_v3' ELSE 'curve' END,
         ta, ra, cv, ra / 100, ra / 200, trunc(cv * 1000000000000000000 / ta)
       FROM (SELECT n, ${FIRST_TRADE_BLOCK} + n / 2 AS blk, 1000000000000000000000 + n AS ta,
                    10000000000000000::numeric * (1 + n % 100) AS ra,
                    10000000000000000::numeric * (1 + n % 100) * 985 / 1000 AS cv
             FROM generate_series(1::bigint, ${M}::bigint) AS n) s`,
      log,
    );
    await step(
      client,
      "chain_events (trades)",
      `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
         contract_address, event_name, token_address, decoded)
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
      `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
         contract_address, event_name, token_address, decoded)
       SELECT created_block_number, created_log_index, ${hashSql("'b' || created_block_number")}, created_at, 0,
         created_transaction_hash, '0x5fbdb2315678afecb367f032d93f642f64180aa3', 'TokenLaunchedV3', address,
         jsonb_build_object('creator', creator, 'token', address, 'curve', curve_address,
           'protocolVersion', 'endpoint-cp-v3', 'totalSupply', initial_supply::text,
           'curveAllocation', graduation_threshold::text, 'lpAllocation', '200000000000000000000000000',
           'canonicalPool', pool_address)
       FROM tokens`,
      log,
    );
    const intervals = CANDLE_INTERVALS.map(
      (interval) =>
        [interval, bucketStartSql("block_timestamp", String(INTERVAL_SECONDS[interval]))] as const,
    );
    for (const [interval, bucket] of intervals) {
      await step(
        client,
        `candles ${interval}`,
        `INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
           unique_trader_count, open_price, high_price, low_price, close_price)
         SELECT token_address, '${interval}', ${bucket}, count(*), count(*) FILTER (WHERE side = 'buy'),
           count(*) FILTER (WHERE side = 'sell'), sum(reserve_amount), count(DISTINCT trader),
           (array_agg(price ORDER BY block_number, log_index))[1], max(price), min(price),
           (array_agg(price ORDER BY block_number DESC, log_index DESC))[1]
         FROM trades GROUP BY token_address, ${bucket}`,
        log,
      );
    }
    await step(
      client,
      "token metrics",
      `UPDATE tokens t SET trade_count = a.c, buy_count = a.b, sell_count = a.c - a.b, volume = a.v, fees = a.f,
         unique_trader_count = a.u, holder_count = a.u + 1, current_price = a.p, fully_diluted_value = a.p * 1000000000,
         latest_trade_timestamp = a.lt, last_trade_block_number = a.lb, updated_block_number = a.lb
       FROM (SELECT token_address, count(*)::int AS c, count(*) FILTER (WHERE side = 'buy')::int AS b,
               sum(reserve_amount) AS v, sum(protocol_fee + creator_fee) AS f, count(DISTINCT trader)::int AS u,
               (array_agg(price ORDER BY block_number DESC, log_index DESC))[1] AS p, max(block_number) AS lb,
               max(block_timestamp) AS lt
             FROM trades GROUP BY token_address) a
       WHERE a.token_address = t.address`,
      log,
    );
    await step(
      client,
      "positions",
      `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
         buy_count, sell_count, open_quantity, cost_basis, realized_pnl, first_block_number, first_transaction_hash,
         first_log_index, first_timestamp, last_block_number, last_transaction_hash, last_log_index, last_timestamp)
       SELECT token_address, trader, bt, br, st, sr, br + sr, bc, sc, f[1], f[2], f[3],
         (fp).block_number, (fp).transaction_hash, (fp).log_index, (fp).block_timestamp,
         (lp).block_number, (lp).transaction_hash, (lp).log_index, (lp).block_timestamp
       FROM (SELECT token_address, trader,
               coalesce(sum(token_amount) FILTER (WHERE side = 'buy'), 0) AS bt,
               coalesce(sum(reserve_amount) FILTER (WHERE side = 'buy'), 0) AS br,
               coalesce(sum(token_amount) FILTER (WHERE side = 'sell'), 0) AS st,
               coalesce(sum(reserve_amount) FILTER (WHERE side = 'sell'), 0) AS sr,
               count(*) FILTER (WHERE side = 'buy')::int AS bc, count(*) FILTER (WHERE side = 'sell')::int AS sc,
               tmi_position_fold(NULL, NULL, NULL, side = 'buy', token_amount, reserve_amount
                 ORDER BY block_number, transaction_index, log_index) AS f,
               (array_agg(r ORDER BY block_number, transaction_index, log_index))[1] AS fp,
               (array_agg(r ORDER BY block_number DESC, transaction_index DESC, log_index DESC))[1] AS lp
             FROM trades r GROUP BY token_address, trader) a`,
      log,
    );
    await step(
      client,
      "token balances (the open quantities)",
      `INSERT INTO token_balances (token_address, holder, balance)
       SELECT token_address, trader, open_quantity FROM positions WHERE open_quantity > 0`,
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
    await step(
      client,
      "eth_usd_answers",
      `INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at)
       SELECT blk, 900, blk / 600 + 1, 300000000000 + (blk / 600 % 200)::int8 * 100000000, ${BENCH_T0}::int8 + blk * 2
       FROM generate_series(0, ${FIRST_TRADE_BLOCK} + ${M} / 2, 600) AS blk`,
      log,
    );
    await step(
      client,
      "checkpoint",
      `INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp, head_block_number)
       VALUES (${BENCH_CHAIN_ID}, ${FIRST_TRADE_BLOCK} + ${M} / 2, ${hashSql("'head'")},
               ${BENCH_T0} + (${FIRST_TRADE_BLOCK} + ${M} / 2) * 2, ${FIRST_TRADE_BLOCK} + ${M} / 2)`,
      log,
    );
    await step(client, "vacuum analyze", "VACUUM ANALYZE", log);
  } finally {
    await client.end();
  }
  const admin2 = new pg.Client({ connectionString: options.adminUrl });
  await admin2.connect();
  await admin2.query(`COMMENT ON DATABASE ${quoteIdent(options.name)} IS '${marker}'`);
  await admin2.end();
  const seconds = (performance.now() - started) / 1000;
  log(`built ${options.name} in ${seconds.toFixed(0)} s`);
  return { url, tokens: N, trades: M, built: true, seconds };
}
