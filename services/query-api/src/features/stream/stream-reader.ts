import type pg from "pg";
import {
  bucketStart,
  CANDLE_INTERVALS,
  type CandleInterval,
  candleSub,
  comparePositions,
  dataEventId,
  type StreamEventData,
} from "./stream-events.js";

/** Something that runs a query: a pooled client inside a transaction, or a pool. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
}

/** The indexer checkpoint as the stream needs it. */
export interface StreamCheckpoint {
  blockNumber: bigint;
  lastReorgAt: number | null;
  lastReorgFromBlock: bigint | null;
  lastReorgToBlock: bigint | null;
}

/** Reads the checkpoint (lowest chain id: one database indexes one chain); null before the first commit. */
export async function readStreamCheckpoint(db: Queryable): Promise<StreamCheckpoint | null> {
  const { rows } = await db.query<{
    block_number: string;
    last_reorg_at: Date | null;
    from_block: string | null;
    to_block: string | null;
  }>(
    `SELECT block_number::text, last_reorg_at, last_reorg_from_block::text AS from_block, last_reorg_to_block::text AS to_block
       FROM indexer_checkpoints ORDER BY chain_id LIMIT 1`,
  );
  const row = rows[0];
  if (!row) return null;
  return {
    blockNumber: BigInt(row.block_number),
    lastReorgAt: row.last_reorg_at ? row.last_reorg_at.getTime() : null,
    lastReorgFromBlock: row.from_block === null ? null : BigInt(row.from_block),
    lastReorgToBlock: row.to_block === null ? null : BigInt(row.to_block),
  };
}

/** Result of {@link readBlockRange}: the events in order, or `overflow` when there were more than `maxEvents`. */
export type RangeRead = { overflow: false; events: StreamEventData[] } | { overflow: true };

/**
 * Reads the committed rows of blocks `afterBlock` < n ≤ `toBlock` and turns them into stream
 * events ordered by position: `token_created` (from `tokens`), `trade` (from `trades`),
 * `graduated` (the `TokenGraduated` rows of `chain_events` with their token), and one `candle`
 * per touched (token, interval, bucket) for every interval (current row of `candles`, placed after
 * the last trade of the range in that bucket). Block hashes for ids come from `chain_events`
 * (then `blocks`). Run it inside one REPEATABLE READ transaction for a consistent picture.
 * Returns `overflow` when the range holds more than `maxEvents` trades or launches.
 */
export async function readBlockRange(
  db: Queryable,
  afterBlock: bigint,
  toBlock: bigint,
  maxEvents: number,
): Promise<RangeRead> {
  if (toBlock <= afterBlock) return { overflow: false, events: [] };
  const range = [afterBlock.toString(), toBlock.toString()];
  const limit = maxEvents + 1;

  const created = await db.query<{
    address: string;
    creator: string;
    name: string;
    symbol: string;
    initial_supply: string;
    graduation_threshold: string;
    block_number: string;
    transaction_index: number;
    transaction_hash: string;
    log_index: number;
    created_at: string;
    block_hash: string | null;
  }>(
    `SELECT t.address, t.creator, t.name, t.symbol, t.initial_supply::text, t.graduation_threshold::text,
            t.created_block_number::text AS block_number, t.created_transaction_index AS transaction_index,
            t.created_transaction_hash AS transaction_hash, t.created_log_index AS log_index, t.created_at::text,
            COALESCE(ce.block_hash, b.hash) AS block_hash
       FROM tokens t
       LEFT JOIN chain_events ce ON ce.block_number = t.created_block_number AND ce.log_index = t.created_log_index
       LEFT JOIN blocks b ON b.number = t.created_block_number
      WHERE t.created_block_number > $1::bigint AND t.created_block_number <= $2::bigint
      LIMIT ${limit}`,
    range,
  );
  if (created.rows.length > maxEvents) return { overflow: true };

  const trades = await db.query<{
    token_address: string;
    trader: string;
    side: string;
    source: string;
    token_amount: string;
    reserve_amount: string;
    curve_value: string;
    protocol_fee: string;
    creator_fee: string;
    price: string | null;
    block_number: string;
    transaction_index: number;
    transaction_hash: string;
    log_index: number;
    block_timestamp: string;
    block_hash: string | null;
  }>(
    `SELECT tr.token_address, tr.trader, tr.side, tr.source, tr.token_amount::text, tr.reserve_amount::text,
            tr.curve_value::text, tr.protocol_fee::text, tr.creator_fee::text, tr.price::text,
            tr.block_number::text, tr.transaction_index, tr.transaction_hash, tr.log_index, tr.block_timestamp::text,
            COALESCE(ce.block_hash, b.hash) AS block_hash
       FROM trades tr
       LEFT JOIN chain_events ce ON ce.block_number = tr.block_number AND ce.log_index = tr.log_index
       LEFT JOIN blocks b ON b.number = tr.block_number
      WHERE tr.block_number > $1::bigint AND tr.block_number <= $2::bigint
      ORDER BY tr.block_number, tr.log_index
      LIMIT ${limit}`,
    range,
  );
  if (trades.rows.length > maxEvents) return { overflow: true };

  const graduations = await db.query<{
    token_address: string;
    pool_address: string | null;
    block_number: string;
    transaction_hash: string;
    log_index: number;
    block_timestamp: string;
    block_hash: string;
  }>(
    `SELECT t.address AS token_address, COALESCE(t.pool_address, lower(ce.decoded->>'pool')) AS pool_address,
            ce.block_number::text, ce.transaction_hash, ce.log_index, ce.block_timestamp::text, ce.block_hash
       FROM chain_events ce
       JOIN tokens t ON t.address = COALESCE(ce.token_address, lower(ce.decoded->>'token'))
      WHERE ce.block_number > $1::bigint AND ce.block_number <= $2::bigint AND ce.event_name = 'TokenGraduated'
      LIMIT ${limit}`,
    range,
  );

  const events: StreamEventData[] = [];
  for (const r of created.rows) {
    const block = BigInt(r.block_number);
    events.push({
      name: "token_created",
      id: dataEventId(block, r.log_index, r.block_hash),
      position: { block, logIndex: r.log_index, sub: 0 },
      token: r.address,
      interval: null,
      data: {
        address: r.address,
        creator: r.creator,
        name: r.name,
        symbol: r.symbol,
        initial_supply: r.initial_supply,
        graduation_threshold: r.graduation_threshold,
        created_at: {
          block_number: Number(block),
          transaction_hash: r.transaction_hash,
          log_index: r.log_index,
        },
        transaction_index: r.transaction_index,
        timestamp: Number(r.created_at),
      },
    });
  }

  // Last trade of the range per (token, interval, bucket): where that bucket's candle event goes.
  const lastInBucket = new Map<
    string,
    {
      token: string;
      interval: CandleInterval;
      bucket: bigint;
      block: bigint;
      logIndex: number;
      hash: string | null;
    }
  >();
  for (const r of trades.rows) {
    const block = BigInt(r.block_number);
    const timestamp = BigInt(r.block_timestamp);
    events.push({
      name: "trade",
      id: dataEventId(block, r.log_index, r.block_hash),
      position: { block, logIndex: r.log_index, sub: 0 },
      token: r.token_address,
      interval: null,
      data: {
        token_address: r.token_address,
        trader: r.trader,
        side: r.side,
        token_amount: r.token_amount,
        reserve_amount: r.reserve_amount,
        curve_value: r.curve_value,
        protocol_fee: r.protocol_fee,
        creator_fee: r.creator_fee,
        source: r.source,
        price: r.price,
        block_number: Number(block),
        block_timestamp: Number(timestamp),
        transaction_index: r.transaction_index,
        transaction_hash: r.transaction_hash,
        log_index: r.log_index,
      },
    });
    for (const interval of CANDLE_INTERVALS) {
      const bucket = bucketStart(interval, timestamp);
      lastInBucket.set(`${r.token_address}|${interval}|${bucket}`, {
        token: r.token_address,
        interval,
        bucket,
        block,
        logIndex: r.log_index,
        hash: r.block_hash,
      });
    }
  }

  for (const r of graduations.rows) {
    const block = BigInt(r.block_number);
    events.push({
      name: "graduated",
      id: dataEventId(block, r.log_index, r.block_hash),
      position: { block, logIndex: r.log_index, sub: 0 },
      token: r.token_address,
      interval: null,
      data: {
        token_address: r.token_address,
        pool_address: r.pool_address,
        block_number: Number(block),
        transaction_hash: r.transaction_hash,
        log_index: r.log_index,
        timestamp: Number(r.block_timestamp),
      },
    });
  }

  if (lastInBucket.size > 0) {
    const keys = [...lastInBucket.values()];
    const candles = await db.query<{
      token_address: string;
      interval: CandleInterval;
      bucket_start: string;
      trade_count: number;
      buy_count: number;
      sell_count: number;
      volume: string;
      unique_trader_count: number;
      open_price: string | null;
      high_price: string | null;
      low_price: string | null;
      close_price: string | null;
    }>(
      `SELECT c.token_address, c.interval, c.bucket_start::text, c.trade_count, c.buy_count, c.sell_count,
              c.volume::text, c.unique_trader_count, c.open_price::text, c.high_price::text, c.low_price::text,
              c.close_price::text
         FROM unnest($1::text[], $2::text[], $3::bigint[]) AS k(token_address, interval, bucket_start)
         JOIN candles c ON c.token_address = k.token_address AND c.interval = k.interval AND c.bucket_start = k.bucket_start`,
      [keys.map((k) => k.token), keys.map((k) => k.interval), keys.map((k) => k.bucket.toString())],
    );
    for (const c of candles.rows) {
      const at = lastInBucket.get(`${c.token_address}|${c.interval}|${c.bucket_start}`);
      if (!at) continue;
      events.push({
        name: "candle",
        id: dataEventId(at.block, at.logIndex, at.hash, c.interval),
        position: { block: at.block, logIndex: at.logIndex, sub: candleSub(c.interval) },
        token: c.token_address,
        interval: c.interval,
        data: {
          token_address: c.token_address,
          interval: c.interval,
          bucket_start: Number(c.bucket_start),
          trade_count: c.trade_count,
          buy_count: c.buy_count,
          sell_count: c.sell_count,
          volume: c.volume,
          unique_trader_count: c.unique_trader_count,
          open_price: c.open_price,
          high_price: c.high_price,
          low_price: c.low_price,
          close_price: c.close_price,
        },
      });
    }
  }

  events.sort((a, b) => comparePositions(a.position, b.position));
  return { overflow: false, events };
}

/** Block hash of the event at (`block`, `logIndex`) from `chain_events` (or `blocks`); null when there is none. */
export async function readEventBlockHash(
  db: Queryable,
  block: bigint,
  logIndex: number,
): Promise<string | null> {
  const { rows } = await db.query<{ hash: string | null }>(
    `SELECT COALESCE(
        (SELECT block_hash FROM chain_events WHERE block_number = $1::bigint AND log_index = $2),
        (SELECT hash FROM blocks WHERE number = $1::bigint)) AS hash`,
    [block.toString(), logIndex],
  );
  return rows[0]?.hash ?? null;
}
