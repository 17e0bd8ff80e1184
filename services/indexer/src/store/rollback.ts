import type { PoolClient } from "pg";
import { ZERO_ADDRESS } from "../model/batch-builder.js";
import { aggregateCandles, type CandleInput } from "../model/candles.js";
import {
  bucketStart,
  curveSpotPrice,
  fullyDilutedValue,
  INTERVALS,
  sqrtPriceToPrice,
} from "../model/market-math.js";
import { applyBalanceDeltas, NOTIFY_CHANNEL, upsertCandles } from "./batch-writer.js";

/** What a rollback removed. */
export interface RollbackResult {
  fromBlock: number;
  toBlock: number;
  events: number;
  affectedTokens: number;
  removedTokens: number;
}

const dec = (v: unknown): bigint => BigInt(String(v));

/**
 * Removes everything derived from blocks above `ancestor` in the caller's transaction
 * (DESIGN.md §8): events, trades and ETH/USD answers are deleted; balances are reversed from
 * the orphaned `Transfer`s; first-seen traders of orphaned blocks are deleted; tokens launched
 * in orphaned blocks are deleted with their rows; candles of affected tokens are recomputed
 * from the surviving trades for every bucket at or after the first orphaned trade; token rows,
 * creators and trending snapshots are recomputed or removed; the checkpoint moves to `ancestor`
 * and a `NOTIFY tmi_indexed` with `reorg` is sent (delivered on commit).
 */
export async function rollbackTo(
  client: PoolClient,
  ancestor: { number: number; hash: string; timestamp: number },
  options: { chainId: number; launchpad: string; oldTip: number; depth: number },
): Promise<RollbackResult> {
  const A = ancestor.number;
  const affectedRes = await client.query<{ token_address: string }>(
    "SELECT DISTINCT token_address FROM chain_events WHERE block_number > $1 AND token_address IS NOT NULL",
    [A],
  );
  const affected = affectedRes.rows.map((r) => r.token_address);
  const removedRes = await client.query<{ address: string }>(
    "SELECT address FROM tokens WHERE created_block_number > $1",
    [A],
  );
  const removed = removedRes.rows.map((r) => r.address);
  const removedSet = new Set(removed);
  const creatorsRes = await client.query<{ creator: string }>(
    "SELECT DISTINCT creator FROM tokens WHERE address = ANY($1::text[])",
    [affected],
  );
  const creators = creatorsRes.rows.map((r) => r.creator);

  // Reverse the orphaned transfers.
  const transfers = await client.query<{ token_address: string; f: string; t: string; v: string }>(
    `SELECT token_address, decoded->>'from' AS f, decoded->>'to' AS t, decoded->>'value' AS v
     FROM chain_events WHERE block_number > $1 AND event_name = 'Transfer'`,
    [A],
  );
  const deltas = new Map<
    string,
    { tokenAddress: string; holder: string; delta: bigint; excluded: boolean }
  >();
  const add = (token: string, holder: string, amount: bigint) => {
    if (holder === ZERO_ADDRESS || amount === 0n || removedSet.has(token)) return;
    const key = `${token}|${holder}`;
    const d = deltas.get(key);
    if (d) d.delta += amount;
    else deltas.set(key, { tokenAddress: token, holder, delta: amount, excluded: false });
  };
  for (const r of transfers.rows) {
    const value = BigInt(r.v);
    add(r.token_address, r.f, value);
    add(r.token_address, r.t, -value);
  }
  await applyBalanceDeltas(client, [...deltas.values()]);

  await client.query("DELETE FROM token_traders WHERE first_block_number > $1", [A]);
  const firstOrphanTrade = await client.query<{ token_address: string; ts: string }>(
    "SELECT token_address, min(block_timestamp)::text AS ts FROM trades WHERE block_number > $1 GROUP BY token_address",
    [A],
  );
  const eventsRes = await client.query("DELETE FROM chain_events WHERE block_number > $1", [A]);
  await client.query("DELETE FROM trades WHERE block_number > $1", [A]);
  await client.query("DELETE FROM eth_usd_answers WHERE block_number > $1", [A]);

  if (removed.length > 0) {
    for (const table of ["token_balances", "token_traders", "candles", "candle_traders"]) {
      await client.query(`DELETE FROM ${table} WHERE token_address = ANY($1::text[])`, [removed]);
    }
    await client.query("DELETE FROM tokens WHERE address = ANY($1::text[])", [removed]);
  }

  // Candles of surviving tokens: recompute every bucket at or after the first orphaned trade.
  for (const row of firstOrphanTrade.rows) {
    const token = row.token_address;
    if (removedSet.has(token)) continue;
    const ts = Number(row.ts);
    const starts = new Map<string, number>(
      INTERVALS.map(([name, seconds]) => [name, bucketStart(ts, seconds)]),
    );
    const from = Math.min(...starts.values());
    for (const [name, start] of starts) {
      await client.query(
        "DELETE FROM candles WHERE token_address = $1 AND interval = $2 AND bucket_start >= $3",
        [token, name, start],
      );
      await client.query(
        "DELETE FROM candle_traders WHERE token_address = $1 AND interval = $2 AND bucket_start >= $3",
        [token, name, start],
      );
    }
    const trades = await client.query<{
      trader: string;
      side: "buy" | "sell";
      reserve_amount: string;
      price: string | null;
      block_timestamp: string;
    }>(
      `SELECT trader, side, reserve_amount::text, price::text, block_timestamp::text FROM trades
       WHERE token_address = $1 AND block_timestamp >= $2 ORDER BY block_number, log_index`,
      [token, from],
    );
    const inputs: CandleInput[] = trades.rows.map((t) => ({
      tokenAddress: token,
      trader: t.trader,
      side: t.side,
      reserveAmount: BigInt(t.reserve_amount),
      price: t.price === null ? null : BigInt(t.price),
      blockTimestamp: Number(t.block_timestamp),
    }));
    const { candles, traders } = aggregateCandles(inputs);
    const keep = (c: { interval: string; bucketStart: number }) => c.bucketStart >= starts.get(c.interval)!;
    await upsertCandles(client, candles.filter(keep), traders.filter(keep));
  }

  for (const token of affected) {
    if (!removedSet.has(token)) await recomputeToken(client, token, options.launchpad);
  }

  if (creators.length > 0) {
    await client.query(
      `WITH agg AS (
         SELECT creator, count(*)::int AS n, sum(volume) AS v,
                max(greatest(created_block_number, coalesce(last_trade_block_number, 0))) AS ub
         FROM tokens WHERE creator = ANY($1::text[]) GROUP BY creator),
       del AS (DELETE FROM creators WHERE address = ANY($1::text[]) AND address NOT IN (SELECT creator FROM agg))
       UPDATE creators c SET token_count = agg.n, volume = agg.v, updated_block_number = agg.ub
       FROM agg WHERE c.address = agg.creator`,
      [creators],
    );
  }

  await client.query(
    "DELETE FROM trending_entries WHERE snapshot_id IN (SELECT id FROM trending_snapshots WHERE as_of_block_number > $1)",
    [A],
  );
  await client.query("DELETE FROM trending_snapshots WHERE as_of_block_number > $1", [A]);
  await client.query("DELETE FROM blocks WHERE number > $1", [A]);
  await client.query(
    `UPDATE indexer_checkpoints SET block_number = $2, block_hash = $3, block_timestamp = $4, last_reorg_at = now(),
       last_reorg_from_block = $5, last_reorg_to_block = $6, last_reorg_depth = $7, updated_at = now()
     WHERE chain_id = $1`,
    [options.chainId, A, ancestor.hash, ancestor.timestamp, A + 1, options.oldTip, options.depth],
  );
  await client.query("SELECT pg_notify($1, $2)", [
    NOTIFY_CHANNEL,
    JSON.stringify({ from_block: A, to_block: A, reorg: { from_block: A + 1, to_block: options.oldTip } }),
  ]);
  return {
    fromBlock: A + 1,
    toBlock: options.oldTip,
    events: eventsRes.rowCount ?? 0,
    affectedTokens: affected.length,
    removedTokens: removed.length,
  };
}

/**
 * Recomputes one token's row from the surviving events, trades, traders and balances, with the
 * same rules as the incremental path (batch-builder + batch-writer).
 */
export async function recomputeToken(client: PoolClient, token: string, launchpad: string): Promise<void> {
  const base = await client.query<{ initial_supply: string; pool_token_is_token0: boolean | null }>(
    "SELECT initial_supply::text, pool_token_is_token0 FROM tokens WHERE address = $1",
    [token],
  );
  const row = base.rows[0];
  if (!row) return;
  const events = await client.query<{
    event_name: string;
    block_number: string;
    log_index: number;
    transaction_hash: string;
    block_timestamp: string;
    decoded: Record<string, string>;
  }>(
    `(SELECT DISTINCT ON (event_name) event_name, block_number::text, log_index, transaction_hash, block_timestamp::text, decoded
      FROM chain_events WHERE token_address = $1 AND event_name IN ('TokenCreated', 'TokenGraduated', 'TokensBought', 'TokensSold', 'Swap')
      ORDER BY event_name, block_number DESC, log_index DESC)`,
    [token],
  );
  const last = new Map(events.rows.map((e) => [e.event_name, e]));
  const created = last.get("TokenCreated");
  if (!created) return;
  const pos = (e: { block_number: string; log_index: number } | undefined) =>
    e ? BigInt(e.block_number) * 1_000_000n + BigInt(e.log_index) : -1n;
  const bought = last.get("TokensBought");
  const sold = last.get("TokensSold");
  const lastCurve = pos(bought) > pos(sold) ? bought : sold;
  const curve = lastCurve ?? created;
  const rb = dec(curve.decoded.reserveBalance);
  const tb = dec(curve.decoded.tokenBalance);
  const rb0 = dec(created.decoded.reserveBalance);
  const tb0 = dec(created.decoded.tokenBalance);
  const graduation = last.get("TokenGraduated");
  const swap = last.get("Swap");
  const tokenIsToken0 = graduation ? row.pool_token_is_token0 : null;
  let price: bigint | null;
  if (swap && pos(swap) > pos(curve) && tokenIsToken0 !== null) {
    price = sqrtPriceToPrice(dec(swap.decoded.sqrtPriceX96), tokenIsToken0);
  } else {
    price = curveSpotPrice(rb, tb);
  }
  const pool = graduation ? graduation.decoded.pool! : null;
  const supply = BigInt(row.initial_supply);
  await client.query(
    `WITH agg AS (
       SELECT count(*)::int AS tc, count(*) FILTER (WHERE side = 'buy')::int AS bc,
              count(*) FILTER (WHERE side = 'sell')::int AS sc, coalesce(sum(reserve_amount), 0) AS vol,
              coalesce(sum(protocol_fee + creator_fee), 0) AS fee
       FROM trades WHERE token_address = $1),
     lt AS (SELECT source, block_number FROM trades WHERE token_address = $1 ORDER BY block_number DESC, log_index DESC LIMIT 1),
     ut AS (SELECT count(*)::int AS n FROM token_traders WHERE token_address = $1),
     hc AS (SELECT count(*)::int AS n FROM token_balances WHERE token_address = $1 AND balance > 0
              AND holder <> ALL($2::text[])),
     ub AS (SELECT max(block_number) AS b FROM chain_events WHERE token_address = $1)
     UPDATE tokens t SET
       trade_count = agg.tc, buy_count = agg.bc, sell_count = agg.sc, volume = agg.vol, fees = agg.fee,
       unique_trader_count = ut.n, holder_count = hc.n,
       reserve_balance = $3, token_balance = $4, real_reserve = $5, tokens_sold = $6,
       current_price = $7, fully_diluted_value = $8,
       state = CASE WHEN $9::boolean THEN 'graduated' ELSE 'curve' END,
       pool_address = $10, pool_token_is_token0 = $11,
       graduated_block_number = $12, graduated_transaction_hash = $13, graduated_log_index = $14, graduated_at = $15,
       last_trade_source = (SELECT source FROM lt), last_trade_block_number = (SELECT block_number FROM lt),
       updated_block_number = coalesce(ub.b, t.created_block_number)
     FROM agg, ut, hc, ub WHERE t.address = $1`,
    [
      token,
      pool ? [launchpad, token, pool] : [launchpad, token],
      rb.toString(),
      tb.toString(),
      (rb - rb0).toString(),
      (tb0 - tb).toString(),
      price?.toString() ?? null,
      fullyDilutedValue(price, supply)?.toString() ?? null,
      graduation !== undefined,
      pool,
      tokenIsToken0,
      graduation?.block_number ?? null,
      graduation?.transaction_hash ?? null,
      graduation?.log_index ?? null,
      graduation?.block_timestamp ?? null,
    ],
  );
}
