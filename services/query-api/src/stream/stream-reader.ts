import {
  bucketStart,
  bucketStartSql,
  CANDLE_INTERVALS,
  CANDLE_INTERVALS_SQL,
  type CandleInterval,
  compareStreamPositions,
} from "@tmi/shared/market";
import type pg from "pg";
import { tradeReserveUsdSql } from "../common/usd-sql.js";
import {
  candleSub,
  type DataEventName,
  dataEventId,
  hash8,
  type parseEventId,
  type ResetReason,
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

/** Result of {@link readBlockRange}: the checkpoint, and the events in order or `overflow` when there were more than `maxEvents`. */
export type RangeRead = { checkpoint: StreamCheckpoint | null; hi: bigint | null } & (
  | { overflow: false; events: StreamEventData[] }
  | { overflow: true }
);

/**
 * One statement (so one consistent snapshot, one round trip): the checkpoint, and the committed
 * rows of blocks `afterBlock` < n ≤ `toBlock` (the checkpoint's block when `toBlock` is null).
 * Rows: `token_created` (`tokens`), `trade` (`trades`), `graduated` (`Graduated` rows of
 * `chain_events` with their token), `fees_claimed` (`CreatorFeesClaimed` rows of `chain_events`),
 * `distribution_published` (`reward_distributions`), `reward_claimed` (`reward_claims`), and the
 * current `candles` row of every (token, interval, bucket) touched by those trades. Block hashes for ids come from `chain_events` (then `blocks`).
 */
const RANGE_SQL = `
WITH cp AS (
  SELECT block_number, last_reorg_at, last_reorg_from_block, last_reorg_to_block
    FROM indexer_checkpoints ORDER BY chain_id LIMIT 1
), rng AS (
  SELECT $1::bigint AS lo, COALESCE($2::bigint, (SELECT block_number FROM cp)) AS hi
), created AS (
  SELECT t.address, t.creator, t.name, t.symbol, t.initial_supply::text AS initial_supply,
         t.graduation_threshold::text AS graduation_threshold, t.created_block_number::text AS block_number,
         t.created_transaction_index AS transaction_index, t.created_transaction_hash AS transaction_hash,
         t.created_log_index AS log_index, t.created_at::text AS created_at, COALESCE(ce.block_hash, b.hash) AS block_hash
    FROM tokens t
    LEFT JOIN chain_events ce ON ce.block_number = t.created_block_number AND ce.log_index = t.created_log_index
    LEFT JOIN blocks b ON b.number = t.created_block_number
   WHERE t.created_block_number > (SELECT lo FROM rng) AND t.created_block_number <= (SELECT hi FROM rng)
   LIMIT $3
), tr AS (
  SELECT tr.token_address, tr.trader, tr.side, tr.source, tr.token_amount::text AS token_amount,
         tr.reserve_amount::text AS reserve_amount, tr.curve_value::text AS curve_value,
         tr.protocol_fee::text AS protocol_fee, tr.creator_fee::text AS creator_fee, tr.price::text AS price,
         tr.block_number::text AS block_number, tr.transaction_index, tr.transaction_hash, tr.log_index,
         tr.block_timestamp::text AS block_timestamp, tr.block_timestamp AS ts, COALESCE(ce.block_hash, b.hash) AS block_hash,
         ${tradeReserveUsdSql("tr")} AS reserve_amount_usd
    FROM trades tr
    LEFT JOIN chain_events ce ON ce.block_number = tr.block_number AND ce.log_index = tr.log_index
    LEFT JOIN blocks b ON b.number = tr.block_number
   WHERE tr.block_number > (SELECT lo FROM rng) AND tr.block_number <= (SELECT hi FROM rng)
   ORDER BY tr.block_number, tr.log_index
   LIMIT $3
), grad AS (
  SELECT t.address AS token_address, COALESCE(t.pool_address, lower(ce.decoded->>'pool')) AS pool_address,
         ce.block_number::text AS block_number, ce.transaction_hash, ce.log_index,
         ce.block_timestamp::text AS block_timestamp, ce.block_hash
    FROM chain_events ce
    JOIN tokens t ON t.address = COALESCE(ce.token_address, lower(ce.decoded->>'token'))
   WHERE ce.block_number > (SELECT lo FROM rng) AND ce.block_number <= (SELECT hi FROM rng)
     AND ce.event_name = 'Graduated'
   LIMIT $3
), fclaim AS (
  SELECT ce.token_address, lower(ce.decoded->>'payout') AS payout, lower(ce.decoded->>'triggeredBy') AS caller,
         ce.decoded->>'amount' AS amount, ce.block_number::text AS block_number, ce.transaction_hash, ce.log_index,
         ce.block_timestamp::text AS block_timestamp, ce.block_hash
    FROM chain_events ce
   WHERE ce.block_number > (SELECT lo FROM rng) AND ce.block_number <= (SELECT hi FROM rng)
     AND ce.event_name = 'CreatorFeesClaimed' AND ce.token_address IS NOT NULL
   LIMIT $3
), dist AS (
  SELECT d.distribution_id, d.token_address, d.epoch::text AS epoch, d.asset, d.root,
         d.block_number::text AS block_number, d.transaction_hash, d.log_index,
         d.block_timestamp::text AS block_timestamp, COALESCE(d.block_hash, b.hash) AS block_hash
    FROM reward_distributions d
    LEFT JOIN blocks b ON b.number = d.block_number
   WHERE d.block_number > (SELECT lo FROM rng) AND d.block_number <= (SELECT hi FROM rng)
   LIMIT $3
), rclaim AS (
  SELECT c.distribution_id, c.token_address, c.claimant, c.epoch::text AS epoch, c.asset, c.amount::text AS amount,
         c.block_number::text AS block_number, c.transaction_hash, c.log_index,
         c.block_timestamp::text AS block_timestamp, COALESCE(c.block_hash, b.hash) AS block_hash
    FROM reward_claims c
    LEFT JOIN blocks b ON b.number = c.block_number
   WHERE c.block_number > (SELECT lo FROM rng) AND c.block_number <= (SELECT hi FROM rng)
   LIMIT $3
), keys AS (
  SELECT DISTINCT tr.token_address, iv.name AS interval,
         ${bucketStartSql("tr.ts", "iv.size")} AS bucket_start
    FROM tr CROSS JOIN ${CANDLE_INTERVALS_SQL}
), cnd AS (
  SELECT c.token_address, c.interval, c.bucket_start::text AS bucket_start, c.trade_count, c.buy_count, c.sell_count,
         c.volume::text AS volume, c.buy_volume::text AS buy_volume, c.sell_volume::text AS sell_volume, c.unique_trader_count, c.open_price::text AS open_price,
         c.high_price::text AS high_price, c.low_price::text AS low_price, c.close_price::text AS close_price
    FROM keys JOIN candles c
      ON c.token_address = keys.token_address AND c.interval = keys.interval AND c.bucket_start = keys.bucket_start
)
SELECT 'cp' AS kind, json_build_object(
         'block_number', block_number::text, 'last_reorg_at', (extract(epoch FROM last_reorg_at) * 1000)::bigint::text,
         'from_block', last_reorg_from_block::text, 'to_block', last_reorg_to_block::text,
         'hi', (SELECT hi FROM rng)::text) AS j FROM cp
UNION ALL SELECT 'token_created', row_to_json(created) FROM created
UNION ALL SELECT 'trade', row_to_json(tr) FROM tr
UNION ALL SELECT 'graduated', row_to_json(grad) FROM grad
UNION ALL SELECT 'fees_claimed', row_to_json(fclaim) FROM fclaim
UNION ALL SELECT 'distribution_published', row_to_json(dist) FROM dist
UNION ALL SELECT 'reward_claimed', row_to_json(rclaim) FROM rclaim
UNION ALL SELECT 'candle', row_to_json(cnd) FROM cnd`;

interface CreatedRow {
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
}

interface TradeRow {
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
  reserve_amount_usd: string | null;
}

interface GraduatedRow {
  token_address: string;
  pool_address: string | null;
  block_number: string;
  transaction_hash: string;
  log_index: number;
  block_timestamp: string;
  block_hash: string;
}

interface FeesClaimedRow {
  token_address: string;
  payout: string;
  caller: string;
  amount: string;
  block_number: string;
  transaction_hash: string;
  log_index: number;
  block_timestamp: string;
  block_hash: string;
}

interface DistributionRow {
  distribution_id: string;
  token_address: string;
  epoch: string;
  asset: string;
  root: string;
  block_number: string;
  transaction_hash: string;
  log_index: number;
  block_timestamp: string;
  block_hash: string | null;
}

interface RewardClaimRow extends Omit<DistributionRow, "root"> {
  claimant: string;
  amount: string;
}

interface CandleRow {
  token_address: string;
  interval: CandleInterval;
  bucket_start: string;
  trade_count: number;
  buy_count: number;
  sell_count: number;
  volume: string;
  buy_volume: string;
  sell_volume: string;
  unique_trader_count: number;
  open_price: string | null;
  high_price: string | null;
  low_price: string | null;
  close_price: string | null;
}

/**
 * Reads, in one statement, the checkpoint and the committed rows of blocks `afterBlock` < n ≤
 * `toBlock` (the checkpoint's block when `toBlock` is null), and turns them into stream events
 * ordered by position: `token_created`, `trade`, `graduated`, and one `candle` per touched
 * (token, interval, bucket) for every interval, placed after the last trade of the range in that
 * bucket. Returns `overflow` (no events) when the range holds more than `maxEvents` launches,
 * trades or graduations; `hi` is the last block covered.
 */
export async function readBlockRange(
  db: Queryable,
  afterBlock: bigint,
  toBlock: bigint | null,
  maxEvents: number,
): Promise<RangeRead> {
  const { rows } = await db.query<{ kind: string; j: Record<string, unknown> }>(RANGE_SQL, [
    afterBlock.toString(),
    toBlock === null ? null : toBlock.toString(),
    maxEvents + 1,
  ]);
  let checkpoint: StreamCheckpoint | null = null;
  let hi: bigint | null = null;
  const created: CreatedRow[] = [];
  const trades: TradeRow[] = [];
  const graduations: GraduatedRow[] = [];
  const candles: CandleRow[] = [];
  const feeClaims: FeesClaimedRow[] = [];
  const distributions: DistributionRow[] = [];
  const rewardClaims: RewardClaimRow[] = [];
  // Every other kind's rows go to their list as they are.
  const lists: Record<string, unknown[]> = {
    token_created: created,
    trade: trades,
    graduated: graduations,
    candle: candles,
    fees_claimed: feeClaims,
    distribution_published: distributions,
    reward_claimed: rewardClaims,
  };
  for (const row of rows) {
    switch (row.kind) {
      case "cp": {
        const j = row.j as {
          block_number: string;
          last_reorg_at: string | null;
          from_block: string | null;
          to_block: string | null;
          hi: string | null;
        };
        checkpoint = {
          blockNumber: BigInt(j.block_number),
          lastReorgAt: j.last_reorg_at === null ? null : Number(j.last_reorg_at),
          lastReorgFromBlock: j.from_block === null ? null : BigInt(j.from_block),
          lastReorgToBlock: j.to_block === null ? null : BigInt(j.to_block),
        };
        hi = j.hi === null ? null : BigInt(j.hi);
        break;
      }
      default:
        lists[row.kind]?.push(row.j);
    }
  }
  if (toBlock !== null) hi = toBlock;
  if (
    [created, trades, graduations, feeClaims, distributions, rewardClaims].some(
      (list) => list.length > maxEvents,
    )
  ) {
    return { checkpoint, hi, overflow: true };
  }

  const events: StreamEventData[] = [];
  for (const r of created) {
    events.push(
      chainRowEvent("token_created", r.address, r, {
        address: r.address,
        creator: r.creator,
        name: r.name,
        symbol: r.symbol,
        initial_supply: r.initial_supply,
        graduation_threshold: r.graduation_threshold,
        created_at: {
          block_number: Number(r.block_number),
          transaction_hash: r.transaction_hash,
          log_index: r.log_index,
        },
        transaction_index: r.transaction_index,
        timestamp: Number(r.created_at),
      }),
    );
  }

  // Last trade of the range per (token, interval, bucket): where that bucket's candle event goes.
  const lastInBucket = new Map<string, { block: bigint; logIndex: number; hash: string | null }>();
  for (const r of trades) {
    const block = BigInt(r.block_number);
    const timestamp = BigInt(r.block_timestamp);
    events.push(
      chainRowEvent("trade", r.token_address, r, {
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
        reserve_amount_usd: r.reserve_amount_usd,
      }),
    );
    for (const interval of CANDLE_INTERVALS) {
      const bucket = bucketStart(Number(timestamp), interval);
      lastInBucket.set(`${r.token_address}|${interval}|${bucket}`, {
        block,
        logIndex: r.log_index,
        hash: r.block_hash,
      });
    }
  }

  for (const r of graduations) {
    events.push(
      chainRowEvent("graduated", r.token_address, r, {
        token_address: r.token_address,
        pool_address: r.pool_address,
        ...logPosition(r),
      }),
    );
  }

  for (const r of feeClaims) {
    events.push(
      chainRowEvent("fees_claimed", r.token_address, r, {
        token_address: r.token_address,
        payout_address: r.payout,
        caller: r.caller,
        amount: r.amount,
        ...logPosition(r),
      }),
    );
  }
  for (const r of distributions) {
    events.push(
      chainRowEvent("distribution_published", r.token_address, r, {
        distribution_id: r.distribution_id,
        token_address: r.token_address,
        epoch: r.epoch,
        asset: r.asset,
        root: r.root,
        ...logPosition(r),
      }),
    );
  }
  for (const r of rewardClaims) {
    events.push(
      chainRowEvent("reward_claimed", r.token_address, r, {
        distribution_id: r.distribution_id,
        token_address: r.token_address,
        claimant: r.claimant,
        epoch: r.epoch,
        asset: r.asset,
        amount: r.amount,
        ...logPosition(r),
      }),
    );
  }

  for (const c of candles) {
    const at = lastInBucket.get(`${c.token_address}|${c.interval}|${c.bucket_start}`);
    if (!at) continue;
    events.push({
      name: "candle",
      id: dataEventId(at.block, at.logIndex, at.hash, c.interval),
      position: { block: at.block, logIndex: at.logIndex, sub: candleSub(c.interval) },
      token: c.token_address,
      interval: c.interval,
      data: candleData(c),
    });
  }

  events.sort((a, b) => compareStreamPositions(a.position, b.position));
  return { checkpoint, hi, overflow: false, events };
}

/**
 * Current `candles` rows of the given (token, interval, bucket) keys, as `candle` event data,
 * keyed `token|interval|bucket_start`; keys without a row are absent.
 */
export async function readCandles(
  db: Queryable,
  keys: readonly { token: string; interval: CandleInterval; bucket: string }[],
): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = await db.query<CandleRow>(
    `SELECT c.token_address, c.interval, c.bucket_start::text AS bucket_start, c.trade_count, c.buy_count, c.sell_count,
            c.volume::text AS volume, c.buy_volume::text AS buy_volume, c.sell_volume::text AS sell_volume, c.unique_trader_count, c.open_price::text AS open_price,
            c.high_price::text AS high_price, c.low_price::text AS low_price, c.close_price::text AS close_price
       FROM unnest($1::text[], $2::text[], $3::bigint[]) AS k(token_address, interval, bucket_start)
       JOIN candles c ON c.token_address = k.token_address AND c.interval = k.interval AND c.bucket_start = k.bucket_start`,
    [keys.map((k) => k.token), keys.map((k) => k.interval), keys.map((k) => k.bucket)],
  );
  const result = new Map<string, Record<string, unknown>>();
  for (const c of rows) result.set(`${c.token_address}|${c.interval}|${c.bucket_start}`, candleData(c));
  return result;
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

/** The wire position of an event row: block number, transaction hash, log index, block timestamp (s). */
function logPosition(r: {
  block_number: string;
  transaction_hash: string;
  log_index: number;
  block_timestamp: string;
}) {
  return {
    block_number: Number(r.block_number),
    transaction_hash: r.transaction_hash,
    log_index: r.log_index,
    timestamp: Number(r.block_timestamp),
  };
}

/**
 * The stream event of one chain event's row (`token_created`, `trade`, `graduated`): its id
 * from the row's block, log index and block hash, its position (block, log index, first of the
 * log), about `token`, carrying `data` (the wire payload).
 */
function chainRowEvent(
  name: Exclude<DataEventName, "candle">,
  token: string,
  row: { block_number: string; log_index: number; block_hash: string | null },
  data: Record<string, unknown>,
): StreamEventData {
  const block = BigInt(row.block_number);
  return {
    name,
    id: dataEventId(block, row.log_index, row.block_hash),
    position: { block, logIndex: row.log_index, sub: 0 },
    token,
    interval: null,
    data,
  };
}

/** Wire form of a candle row (the chart Candle plus `token_address` and `interval`). */
function candleData(c: CandleRow): Record<string, unknown> {
  return {
    token_address: c.token_address,
    interval: c.interval,
    bucket_start: Number(c.bucket_start),
    trade_count: c.trade_count,
    buy_count: c.buy_count,
    sell_count: c.sell_count,
    volume: c.volume,
    buy_volume: c.buy_volume,
    sell_volume: c.sell_volume,
    unique_trader_count: c.unique_trader_count,
    open_price: c.open_price,
    high_price: c.high_price,
    low_price: c.low_price,
    close_price: c.close_price,
  };
}

/**
 * The events a client resuming from `parsed` (a `Last-Event-ID` no longer in the ring) missed,
 * up to block `upTo`, read in one REPEATABLE READ snapshot: `orphaned` when the block of a data
 * event's id is no longer canonical (its hash changed), `too_old` when more than `maxGapEvents`.
 */
export async function readResumeGap(
  db: pg.Pool,
  parsed: NonNullable<ReturnType<typeof parseEventId>>,
  upTo: bigint,
  maxGapEvents: number,
): Promise<StreamEventData[] | ResetReason> {
  const client = await db.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (parsed.kind === "data") {
      const hash = await readEventBlockHash(client, parsed.position.block, parsed.position.logIndex);
      if (hash === null || hash8(hash) !== parsed.hash8) return "orphaned";
    }
    const read = await readBlockRange(client, parsed.position.block - 1n, upTo, maxGapEvents);
    if (read.overflow) return "too_old";
    const events = read.events.filter((e) => compareStreamPositions(e.position, parsed.position) > 0);
    return events.length > maxGapEvents ? "too_old" : events;
  } finally {
    await client.query("COMMIT").catch(() => {});
    client.release();
  }
}
