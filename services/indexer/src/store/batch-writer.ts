import { finished } from "node:stream/promises";
import type { PoolClient } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Batch } from "../model/batch-builder.js";
import type { CandleDelta, CandleTraderRow } from "../model/candles.js";
import type { KnownState } from "../model/known-state.js";
import { fullyDilutedValue } from "../model/market-math.js";

/** NOTIFY channel of committed ranges (payload `{from_block, to_block, reorg?}`). */
export const NOTIFY_CHANNEL = "tmi_indexed";

const COPY_SPECIAL = /[\\\t\n\r]/;

/** Escapes a value for PostgreSQL COPY text format (`\N` for null). */
export function copyValue(value: string | number | bigint | null): string {
  if (value === null) return "\\N";
  const s = typeof value === "string" ? value : value.toString();
  if (!COPY_SPECIAL.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/**
 * Formats rows as COPY text in ~256 kB chunks (done before the write, off the database's critical
 * path), yielding to the event loop after each chunk so that the write in flight keeps moving.
 */
async function copyChunks<T>(rows: T[], line: (row: T) => string): Promise<string[]> {
  const chunks: string[] = [];
  let chunk = "";
  for (const row of rows) {
    chunk += line(row);
    if (chunk.length > 256_000) {
      chunks.push(chunk);
      chunk = "";
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  if (chunk) chunks.push(chunk);
  return chunks;
}

/** Hands every chunk to the socket at once (no event-loop turn per chunk), then waits for the COPY to complete. */
async function copyIn(client: PoolClient, sql: string, chunks: string[]): Promise<void> {
  if (chunks.length === 0) return;
  const stream = client.query(copyFrom(sql));
  const done = finished(stream);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await done;
}

const SAFE_ELEMENT = /^[0-9A-Za-z_.x-]+$/;

/**
 * A PostgreSQL array literal of `values` (what `pg` would send, without its per-element quoting
 * and escaping when not needed): `{1,2,NULL}`, `{0xab,"a \"b\""}`.
 */
export function pgArray(values: readonly (string | number | bigint | boolean | null | undefined)[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ",";
    const v = values[i];
    if (v === null || v === undefined) out += "NULL";
    else if (typeof v === "boolean") out += v ? "t" : "f";
    else if (typeof v !== "string") out += v.toString();
    else if (SAFE_ELEMENT.test(v) && v.toUpperCase() !== "NULL") out += v;
    else out += `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  }
  return `${out}}`;
}

/** Accumulated milliseconds per write statement since start (logged with the catch-up stats). */
export const statementMs: Record<string, number> = {};

export async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    statementMs[name] = (statementMs[name] ?? 0) + (performance.now() - started);
  }
}

const str = (v: bigint | null | undefined): string | null =>
  v === null || v === undefined ? null : v.toString(10);

/** Timing of the statements of one batch (ms), for the benchmark's breakdown. */
export interface WriteStats {
  ms: number;
}

/** A batch turned into what is sent to PostgreSQL (see {@link prepareWrite}). */
export interface PreparedWrite {
  events: string[];
  trades: string[];
  newTokens: { text: string; values: unknown[] } | null;
  readModels: { text: string; values: unknown[] };
}

const COPY_EVENTS =
  "COPY chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash, contract_address, event_name, token_address, decoded) FROM STDIN";
const COPY_TRADES =
  "COPY trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price) FROM STDIN";

/**
 * Formats a range for writing (pure CPU work, done while the previous range is being written):
 * COPY text of events and trades, the insert of launched tokens, and one statement for every
 * other read model, the blocks kept for reorg checks, the checkpoint and `NOTIFY tmi_indexed`.
 */
export async function prepareWrite(
  batch: Batch,
  state: KnownState,
  options: {
    chainId: number;
    headBlock: number;
    keepBlocks: number;
    reorg?: { fromBlock: number; toBlock: number };
  },
): Promise<PreparedWrite> {
  const pause = () => new Promise<void>((r) => setImmediate(r));
  const events = await copyChunks(
    batch.events,
    (e) =>
      `${e.blockNumber}\t${e.logIndex}\t${e.blockHash}\t${e.blockTimestamp}\t${e.transactionIndex}\t${e.transactionHash}\t${e.contractAddress}\t${e.eventName}\t${copyValue(e.tokenAddress)}\t${copyValue(e.decoded)}\n`,
  );
  await pause();
  const trades = await copyChunks(
    batch.trades,
    (t) =>
      `${t.blockNumber}\t${t.logIndex}\t${t.transactionIndex}\t${t.transactionHash}\t${t.blockTimestamp}\t${t.tokenAddress}\t${t.trader}\t${t.side}\t${t.source}\t${t.tokenAmount}\t${t.reserveAmount}\t${t.curveValue}\t${t.protocolFee}\t${t.creatorFee}\t${copyValue(str(t.price))}\n`,
  );
  let newTokens: PreparedWrite["newTokens"] = null;
  if (batch.newTokens.length > 0) {
    const n = batch.newTokens;
    newTokens = {
      text: `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
         created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at,
         state, reserve_balance, token_balance, real_reserve, tokens_sold, graduation_threshold,
         current_price, fully_diluted_value, updated_block_number)
       SELECT a, $1, c, nm, sy, lower(nm_n), lower(sy_n), sup, bn, ti, th, li, ts, 'curve', rb, tb, 0, 0, gt, pr, fdv, bn
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::bigint[],
                   $10::int[], $11::text[], $12::int[], $13::bigint[], $14::numeric[], $15::numeric[], $16::numeric[],
                   $17::numeric[], $18::numeric[])
         AS d(a, c, nm, sy, nm_n, sy_n, sup, bn, ti, th, li, ts, rb, tb, gt, pr, fdv)`,
      values: [
        options.chainId,
        n.map((t) => t.address),
        n.map((t) => t.creator),
        n.map((t) => t.name),
        n.map((t) => t.symbol),
        n.map((t) => t.name.normalize("NFC")),
        n.map((t) => t.symbol.normalize("NFC")),
        n.map((t) => t.initialSupply.toString()),
        n.map((t) => t.blockNumber),
        n.map((t) => t.transactionIndex),
        n.map((t) => t.transactionHash),
        n.map((t) => t.logIndex),
        n.map((t) => t.timestamp),
        n.map((t) => t.reserveBalance.toString()),
        n.map((t) => t.tokenBalance.toString()),
        n.map((t) => t.graduationThreshold.toString()),
        n.map((t) => str(t.price)),
        n.map((t) => str(fullyDilutedValue(t.price, t.initialSupply))),
      ],
    };
  }
  await pause();
  return { events, trades, newTokens, readModels: readModelStatement(batch, state, options) };
}

/** Sends a {@link prepareWrite} result in the caller's open transaction (four round trips at most). */
export async function executeWrite(client: PoolClient, prepared: PreparedWrite): Promise<void> {
  await timed("copy_events", () => copyIn(client, COPY_EVENTS, prepared.events));
  await timed("copy_trades", () => copyIn(client, COPY_TRADES, prepared.trades));
  if (prepared.newTokens) {
    const q = prepared.newTokens;
    await timed("new_tokens", () => client.query(q.text, q.values));
  }
  await timed("read_models", () => client.query(prepared.readModels.text, prepared.readModels.values));
}

/**
 * One statement (one round trip) for every read model of a range besides the COPYs and new
 * tokens: token_traders and token_balances (their per-token changes feed the tokens update),
 * candle_traders + candles, tokens, creators, ETH/USD answers, blocks, checkpoint and NOTIFY.
 * Data-modifying CTEs all run; later ones see earlier ones only through RETURNING.
 */
function readModelStatement(
  batch: Batch,
  state: KnownState,
  options: {
    chainId: number;
    headBlock: number;
    keepBlocks: number;
    reorg?: { fromBlock: number; toBlock: number };
  },
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const $ = (value: unknown, type: string) => {
    values.push(Array.isArray(value) ? pgArray(value) : value);
    return `$${values.length}::${type}`;
  };
  const ctes: string[] = [];

  // Exact unique traders: rows that are new in token_traders.
  const tt = [...batch.tokenTraders.values()];
  ctes.push(`tt AS (
    INSERT INTO token_traders (token_address, trader, first_block_number)
    SELECT * FROM unnest(${$(
      tt.map((r) => r.tokenAddress),
      "text[]",
    )}, ${$(
      tt.map((r) => r.trader),
      "text[]",
    )}, ${$(
      tt.map((r) => r.firstBlock),
      "bigint[]",
    )})
    ON CONFLICT (token_address, trader) DO NOTHING
    RETURNING token_address)`);
  ctes.push("ttn AS (SELECT token_address, count(*)::int AS n FROM tt GROUP BY token_address)");

  // Balances: net deltas; rows reaching 0 deleted; holder count changes of counted holders.
  const b = batch.balances;
  ctes.push(`bd AS (
    SELECT * FROM unnest(${$(
      b.map((r) => r.tokenAddress),
      "text[]",
    )}, ${$(
      b.map((r) => r.holder),
      "text[]",
    )},
                         ${$(
                           b.map((r) => r.delta.toString()),
                           "numeric[]",
                         )}, ${$(
                           b.map((r) => r.excluded),
                           "bool[]",
                         )})
      AS d(token, holder, delta, excluded))`);
  ctes.push(`bo AS (
    SELECT bd.token, bd.holder, bd.delta, bd.excluded, coalesce(tb.balance, 0) AS old
    FROM bd LEFT JOIN token_balances tb ON tb.token_address = bd.token AND tb.holder = bd.holder)`);
  ctes.push(`bdel AS (
    DELETE FROM token_balances tb USING bo
    WHERE tb.token_address = bo.token AND tb.holder = bo.holder AND bo.old + bo.delta = 0)`);
  ctes.push(`bup AS (
    INSERT INTO token_balances (token_address, holder, balance)
    SELECT token, holder, old + delta FROM bo WHERE old + delta <> 0
    ON CONFLICT (token_address, holder) DO UPDATE SET balance = excluded.balance)`);
  ctes.push(`hd AS (
    SELECT token AS token_address, sum(CASE WHEN old + delta > 0 AND old <= 0 THEN 1
                                            WHEN old > 0 AND old + delta <= 0 THEN -1 ELSE 0 END)::int AS n
    FROM bo WHERE NOT excluded GROUP BY token)`);

  // Candles and their distinct traders.
  const ct = batch.candleTraders;
  const cd = batch.candles;
  ctes.push(`ct AS (
    INSERT INTO candle_traders (token_address, interval, bucket_start, trader, bought, sold)
    SELECT * FROM unnest(${$(
      ct.map((t) => t.tokenAddress),
      "text[]",
    )}, ${$(
      ct.map((t) => t.interval),
      "text[]",
    )},
                         ${$(
                           ct.map((t) => t.bucketStart),
                           "bigint[]",
                         )}, ${$(
                           ct.map((t) => t.trader),
                           "text[]",
                         )},
                         ${$(
                           ct.map((t) => t.bought),
                           "bool[]",
                         )}, ${$(
                           ct.map((t) => t.sold),
                           "bool[]",
                         )})
    ON CONFLICT (token_address, interval, bucket_start, trader) DO UPDATE SET
      bought = candle_traders.bought OR excluded.bought,
      sold = candle_traders.sold OR excluded.sold
    WHERE (excluded.bought AND NOT candle_traders.bought) OR (excluded.sold AND NOT candle_traders.sold)
    RETURNING token_address, interval, bucket_start, (xmax = 0) AS inserted)`);
  ctes.push(`ctn AS (
    SELECT token_address, interval, bucket_start, count(*) FILTER (WHERE inserted)::int AS nt
    FROM ct GROUP BY 1, 2, 3)`);
  ctes.push(`cu AS (
    INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
                         unique_trader_count, open_price, high_price, low_price, close_price)
    SELECT c.a, c.i, c.b, c.tc, c.bc, c.sc, c.vol, coalesce(ctn.nt, 0), c.o, c.h, c.l, c.cl
    FROM unnest(${$(
      cd.map((c) => c.tokenAddress),
      "text[]",
    )}, ${$(
      cd.map((c) => c.interval),
      "text[]",
    )},
                ${$(
                  cd.map((c) => c.bucketStart),
                  "bigint[]",
                )}, ${$(
                  cd.map((c) => c.tradeCount),
                  "int[]",
                )},
                ${$(
                  cd.map((c) => c.buyCount),
                  "int[]",
                )}, ${$(
                  cd.map((c) => c.sellCount),
                  "int[]",
                )},
                ${$(
                  cd.map((c) => c.volume.toString()),
                  "numeric[]",
                )}, ${$(
                  cd.map((c) => str(c.open)),
                  "numeric[]",
                )},
                ${$(
                  cd.map((c) => str(c.high)),
                  "numeric[]",
                )}, ${$(
                  cd.map((c) => str(c.low)),
                  "numeric[]",
                )},
                ${$(
                  cd.map((c) => str(c.close)),
                  "numeric[]",
                )}) AS c(a, i, b, tc, bc, sc, vol, o, h, l, cl)
    LEFT JOIN ctn ON ctn.token_address = c.a AND ctn.interval = c.i AND ctn.bucket_start = c.b
    ON CONFLICT (token_address, interval, bucket_start) DO UPDATE SET
      trade_count = candles.trade_count + excluded.trade_count,
      buy_count = candles.buy_count + excluded.buy_count,
      sell_count = candles.sell_count + excluded.sell_count,
      volume = candles.volume + excluded.volume,
      unique_trader_count = candles.unique_trader_count + excluded.unique_trader_count,
      open_price = coalesce(candles.open_price, excluded.open_price),
      high_price = greatest(candles.high_price, excluded.high_price),
      low_price = least(candles.low_price, excluded.low_price),
      close_price = coalesce(excluded.close_price, candles.close_price))`);

  // Token metrics, curve state, price and graduation.
  const e = [...batch.tokenDeltas.entries()];
  const supply = (a: string) => state.tokens.get(a)?.initialSupply ?? 0n;
  ctes.push(`tu AS (
    UPDATE tokens t SET
      trade_count = t.trade_count + d.tc,
      buy_count = t.buy_count + d.bc,
      sell_count = t.sell_count + d.sc,
      volume = t.volume + d.vol,
      fees = t.fees + d.fee,
      unique_trader_count = t.unique_trader_count + coalesce(ttn.n, 0),
      holder_count = t.holder_count + coalesce(hd.n, 0),
      reserve_balance = CASE WHEN d.has_curve THEN d.rb ELSE t.reserve_balance END,
      token_balance = CASE WHEN d.has_curve THEN d.tb ELSE t.token_balance END,
      real_reserve = CASE WHEN d.has_curve THEN t.real_reserve + (d.rb - t.reserve_balance) ELSE t.real_reserve END,
      tokens_sold = CASE WHEN d.has_curve THEN t.tokens_sold + (t.token_balance - d.tb) ELSE t.tokens_sold END,
      current_price = CASE WHEN d.price_set THEN d.pr ELSE t.current_price END,
      fully_diluted_value = CASE WHEN d.price_set THEN d.fdv ELSE t.fully_diluted_value END,
      state = CASE WHEN d.grad THEN 'graduated' ELSE t.state END,
      pool_address = CASE WHEN d.grad THEN d.pool ELSE t.pool_address END,
      pool_token_is_token0 = CASE WHEN d.grad THEN d.is0 ELSE t.pool_token_is_token0 END,
      graduated_block_number = CASE WHEN d.grad THEN d.gbn ELSE t.graduated_block_number END,
      graduated_transaction_hash = CASE WHEN d.grad THEN d.gth ELSE t.graduated_transaction_hash END,
      graduated_log_index = CASE WHEN d.grad THEN d.gli ELSE t.graduated_log_index END,
      graduated_at = CASE WHEN d.grad THEN d.gts ELSE t.graduated_at END,
      last_trade_source = coalesce(d.lts, t.last_trade_source),
      last_trade_block_number = coalesce(d.ltb, t.last_trade_block_number),
      updated_block_number = greatest(t.updated_block_number, d.ub)
    FROM unnest(${$(
      e.map(([a]) => a),
      "text[]",
    )}, ${$(
      e.map(([, d]) => d.tradeCount),
      "int[]",
    )},
                ${$(
                  e.map(([, d]) => d.buyCount),
                  "int[]",
                )}, ${$(
                  e.map(([, d]) => d.sellCount),
                  "int[]",
                )},
                ${$(
                  e.map(([, d]) => d.volume.toString()),
                  "numeric[]",
                )}, ${$(
                  e.map(([, d]) => d.fees.toString()),
                  "numeric[]",
                )},
                ${$(
                  e.map(([, d]) => d.curve !== null),
                  "bool[]",
                )}, ${$(
                  e.map(([, d]) => str(d.curve?.reserveBalance)),
                  "numeric[]",
                )},
                ${$(
                  e.map(([, d]) => str(d.curve?.tokenBalance)),
                  "numeric[]",
                )}, ${$(
                  e.map(([, d]) => d.price !== undefined),
                  "bool[]",
                )},
                ${$(
                  e.map(([, d]) => str(d.price)),
                  "numeric[]",
                )},
                ${$(
                  e.map(([a, d]) =>
                    str(d.price === undefined ? null : fullyDilutedValue(d.price, supply(a))),
                  ),
                  "numeric[]",
                )},
                ${$(
                  e.map(([, d]) => d.graduation !== null),
                  "bool[]",
                )}, ${$(
                  e.map(([, d]) => d.graduation?.pool ?? null),
                  "text[]",
                )},
                ${$(
                  e.map(([, d]) => d.graduation?.tokenIsToken0 ?? null),
                  "bool[]",
                )},
                ${$(
                  e.map(([, d]) => d.graduation?.blockNumber ?? null),
                  "bigint[]",
                )},
                ${$(
                  e.map(([, d]) => d.graduation?.transactionHash ?? null),
                  "text[]",
                )},
                ${$(
                  e.map(([, d]) => d.graduation?.logIndex ?? null),
                  "int[]",
                )},
                ${$(
                  e.map(([, d]) => d.graduation?.timestamp ?? null),
                  "bigint[]",
                )},
                ${$(
                  e.map(([, d]) => d.lastTradeSource),
                  "text[]",
                )}, ${$(
                  e.map(([, d]) => d.lastTradeBlock),
                  "bigint[]",
                )},
                ${$(
                  e.map(([, d]) => d.updatedBlock),
                  "bigint[]",
                )})
      AS d(a, tc, bc, sc, vol, fee, has_curve, rb, tb, price_set, pr, fdv, grad, pool, is0, gbn, gth, gli, gts, lts, ltb, ub)
    LEFT JOIN ttn ON ttn.token_address = d.a
    LEFT JOIN hd ON hd.token_address = d.a
    WHERE t.address = d.a)`);

  const c = [...batch.creators.entries()];
  ctes.push(`cr AS (
    INSERT INTO creators (address, token_count, volume, updated_block_number)
    SELECT * FROM unnest(${$(
      c.map(([a]) => a),
      "text[]",
    )}, ${$(
      c.map(([, x]) => x.tokenCount),
      "int[]",
    )},
                         ${$(
                           c.map(([, x]) => x.volume.toString()),
                           "numeric[]",
                         )}, ${$(
                           c.map(([, x]) => x.updatedBlock),
                           "bigint[]",
                         )})
    ON CONFLICT (address) DO UPDATE SET
      token_count = creators.token_count + excluded.token_count,
      volume = creators.volume + excluded.volume,
      updated_block_number = greatest(creators.updated_block_number, excluded.updated_block_number))`);

  const u = batch.ethUsd;
  ctes.push(`eu AS (
    INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at)
    SELECT * FROM unnest(${$(
      u.map((r) => r.blockNumber),
      "bigint[]",
    )}, ${$(
      u.map((r) => r.logIndex),
      "int[]",
    )},
                         ${$(
                           u.map((r) => r.roundId.toString()),
                           "numeric[]",
                         )}, ${$(
                           u.map((r) => r.answer.toString()),
                           "numeric[]",
                         )},
                         ${$(
                           u.map((r) => r.updatedAt.toString()),
                           "bigint[]",
                         )})
    ON CONFLICT DO NOTHING)`);

  const h = batch.headers;
  ctes.push(`bi AS (
    INSERT INTO blocks (number, hash, parent_hash, timestamp)
    SELECT * FROM unnest(${$(
      h.map((x) => x.number),
      "bigint[]",
    )}, ${$(
      h.map((x) => x.hash),
      "text[]",
    )},
                         ${$(
                           h.map((x) => x.parentHash),
                           "text[]",
                         )}, ${$(
                           h.map((x) => x.timestamp),
                           "bigint[]",
                         )})
    ON CONFLICT (number) DO UPDATE SET hash = excluded.hash, parent_hash = excluded.parent_hash, timestamp = excluded.timestamp)`);
  ctes.push(`bp AS (DELETE FROM blocks WHERE number < ${$(batch.toBlock - options.keepBlocks, "bigint")})`);
  const end = batch.endHeader;
  ctes.push(`cp AS (
    INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp, head_block_number, head_seen_at, updated_at)
    VALUES (${$(options.chainId, "int")}, ${$(end.number, "bigint")}, ${$(end.hash, "text")}, ${$(end.timestamp, "bigint")},
            ${$(options.headBlock, "bigint")}, now(), now())
    ON CONFLICT (chain_id) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash,
      block_timestamp = excluded.block_timestamp, head_block_number = excluded.head_block_number,
      head_seen_at = excluded.head_seen_at, updated_at = excluded.updated_at)`);
  const payload: Record<string, unknown> = { from_block: batch.fromBlock, to_block: batch.toBlock };
  if (options.reorg) payload.reorg = { from_block: options.reorg.fromBlock, to_block: options.reorg.toBlock };
  return {
    text: `WITH ${ctes.join(",\n")}\nSELECT pg_notify(${$(NOTIFY_CHANNEL, "text")}, ${$(JSON.stringify(payload), "text")})`,
    values,
  };
}

/**
 * Applies net balance changes and returns the change of each token's holder count (positive
 * balances, excluded holders not counted). Rows that reach zero are deleted.
 */
export async function applyBalanceDeltas(
  client: PoolClient,
  balances: { tokenAddress: string; holder: string; delta: bigint; excluded: boolean }[],
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  if (balances.length === 0) return result;
  const res = await client.query<{ token: string; hd: number }>(
    `WITH d AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::numeric[], $4::bool[]) AS d(token, holder, delta, excluded)),
     o AS (
       SELECT d.token, d.holder, d.delta, d.excluded, coalesce(b.balance, 0) AS old
       FROM d LEFT JOIN token_balances b ON b.token_address = d.token AND b.holder = d.holder),
     del AS (
       DELETE FROM token_balances b USING o
       WHERE b.token_address = o.token AND b.holder = o.holder AND o.old + o.delta = 0),
     up AS (
       INSERT INTO token_balances (token_address, holder, balance)
       SELECT token, holder, old + delta FROM o WHERE old + delta <> 0
       ON CONFLICT (token_address, holder) DO UPDATE SET balance = excluded.balance)
     SELECT token, sum(CASE WHEN old + delta > 0 AND old <= 0 THEN 1
                            WHEN old > 0 AND old + delta <= 0 THEN -1 ELSE 0 END)::int AS hd
     FROM o WHERE NOT excluded GROUP BY token`,
    [
      balances.map((b) => b.tokenAddress),
      balances.map((b) => b.holder),
      balances.map((b) => b.delta.toString()),
      balances.map((b) => b.excluded),
    ],
  );
  for (const r of res.rows) if (r.hd !== 0) result.set(r.token, r.hd);
  return result;
}

/**
 * Merges candle deltas into `candles` and distinct traders into `candle_traders`; a bucket's
 * unique trader count grows by the trader rows that were new (exact, one statement).
 */
export async function upsertCandles(
  client: PoolClient,
  candles: CandleDelta[],
  traders: CandleTraderRow[],
): Promise<void> {
  if (candles.length === 0) return;
  await client.query(
    `WITH ct AS (
       INSERT INTO candle_traders (token_address, interval, bucket_start, trader, bought, sold)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bool[], $6::bool[])
       ON CONFLICT (token_address, interval, bucket_start, trader) DO UPDATE SET
         bought = candle_traders.bought OR excluded.bought,
         sold = candle_traders.sold OR excluded.sold
       WHERE (excluded.bought AND NOT candle_traders.bought) OR (excluded.sold AND NOT candle_traders.sold)
       RETURNING token_address, interval, bucket_start, (xmax = 0) AS inserted),
     n AS (
       SELECT token_address, interval, bucket_start, count(*) FILTER (WHERE inserted)::int AS nt
       FROM ct GROUP BY 1, 2, 3)
     INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
                          unique_trader_count, open_price, high_price, low_price, close_price)
     SELECT c.a, c.i, c.b, c.tc, c.bc, c.sc, c.vol, coalesce(n.nt, 0), c.o, c.h, c.l, c.cl
     FROM unnest($7::text[], $8::text[], $9::bigint[], $10::int[], $11::int[], $12::int[], $13::numeric[],
                 $14::numeric[], $15::numeric[], $16::numeric[], $17::numeric[]) AS c(a, i, b, tc, bc, sc, vol, o, h, l, cl)
     LEFT JOIN n ON n.token_address = c.a AND n.interval = c.i AND n.bucket_start = c.b
     ON CONFLICT (token_address, interval, bucket_start) DO UPDATE SET
       trade_count = candles.trade_count + excluded.trade_count,
       buy_count = candles.buy_count + excluded.buy_count,
       sell_count = candles.sell_count + excluded.sell_count,
       volume = candles.volume + excluded.volume,
       unique_trader_count = candles.unique_trader_count + excluded.unique_trader_count,
       open_price = coalesce(candles.open_price, excluded.open_price),
       high_price = greatest(candles.high_price, excluded.high_price),
       low_price = least(candles.low_price, excluded.low_price),
       close_price = coalesce(excluded.close_price, candles.close_price)`,
    [
      traders.map((t) => t.tokenAddress),
      traders.map((t) => t.interval),
      traders.map((t) => t.bucketStart),
      traders.map((t) => t.trader),
      traders.map((t) => t.bought),
      traders.map((t) => t.sold),
      candles.map((c) => c.tokenAddress),
      candles.map((c) => c.interval),
      candles.map((c) => c.bucketStart),
      candles.map((c) => c.tradeCount),
      candles.map((c) => c.buyCount),
      candles.map((c) => c.sellCount),
      candles.map((c) => c.volume.toString()),
      candles.map((c) => str(c.open)),
      candles.map((c) => str(c.high)),
      candles.map((c) => str(c.low)),
      candles.map((c) => str(c.close)),
    ],
  );
}
