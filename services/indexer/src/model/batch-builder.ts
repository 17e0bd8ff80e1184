import { isExcludedHolder } from "@tmi/shared/market";
import { type DecodedEvent, decodedJsonText } from "../decode/event-decoder.js";
import { HANDLERS } from "../handlers/index.js";
import {
  type BalanceDelta,
  type Batch,
  type CreatorDelta,
  emptyTokenDelta,
  type PositionDelta,
  type TokenDelta,
  type TradeRow,
} from "./batch.js";
import { aggregateCandles } from "./candles.js";
import type { KnownState } from "./known-state.js";
import type { BatchContext, EventHandler, EventPosition, RangeBuilder } from "./range-builder.js";

export * from "./batch.js";
export type * from "./range-builder.js";

const yieldToIo = () => new Promise<void>((r) => setImmediate(r));

/**
 * Turns the accepted events of a block range (chain order) into the rows and deltas of every read
 * model, through the handler of each event kind. Reads and updates `state` (curve state, managers,
 * escrow); yields to the event loop every 1,000 events.
 * @throws Error when a Swap's sender or a block timestamp is missing from `ctx`.
 */
export async function buildBatch(
  events: DecodedEvent[],
  state: KnownState,
  ctx: BatchContext,
): Promise<Batch> {
  const batch: Batch = {
    fromBlock: ctx.fromBlock,
    toBlock: ctx.toBlock,
    endHeader: ctx.endHeader,
    headers: ctx.headers,
    events: [],
    trades: [],
    newTokens: [],
    tokenDeltas: new Map(),
    balances: [],
    tokenTraders: new Map(),
    positions: new Map(),
    candles: [],
    candleTraders: [],
    creators: new Map(),
    ethUsd: [],
  };
  const balances = new Map<string, Map<string, BalanceDelta>>();
  let current: DecodedEvent | null = null;
  let currentPosition: EventPosition | null = null;

  const b: RangeBuilder = {
    state,
    ctx,
    batch,
    token(address, block) {
      let d = batch.tokenDeltas.get(address);
      if (!d) {
        d = emptyTokenDelta(block);
        batch.tokenDeltas.set(address, d);
      }
      if (block > d.updatedBlock) d.updatedBlock = block;
      return d;
    },
    creator(address, block) {
      let c = batch.creators.get(address);
      if (!c) {
        c = { tokenCount: 0, volume: 0n, updatedBlock: block };
        batch.creators.set(address, c);
      }
      if (block > c.updatedBlock) c.updatedBlock = block;
      return c;
    },
    balance(info, holder, amount) {
      if (amount === 0n || isExcludedHolder(holder, info, state.factory)) return;
      let perToken = balances.get(info.address);
      if (!perToken) {
        perToken = new Map();
        balances.set(info.address, perToken);
      }
      const row = perToken.get(holder);
      if (row) row.delta += amount;
      else perToken.set(holder, { tokenAddress: info.address, holder, delta: amount });
    },
    trade(trade) {
      batch.trades.push(trade);
      const d = b.token(trade.tokenAddress, trade.blockNumber);
      d.tradeCount++;
      if (trade.side === "buy") d.buyCount++;
      else d.sellCount++;
      d.volume += trade.curveValue;
      d.fees += trade.protocolFee + trade.creatorFee;
      d.lastTradeSource = trade.source;
      d.lastTradeBlock = trade.blockNumber;
      d.latestTradeTimestamp = trade.blockTimestamp;
      d.price = trade.price;
      const key = `${trade.tokenAddress}|${trade.trader}`;
      if (!batch.tokenTraders.has(key)) {
        batch.tokenTraders.set(key, {
          tokenAddress: trade.tokenAddress,
          trader: trade.trader,
          firstBlock: trade.blockNumber,
          firstBuckets: [],
          lastBuckets: [],
        });
      }
      addPositionTrade(batch.positions, key, trade);
      const info = state.tokens.get(trade.tokenAddress)!;
      b.creator(info.creator, trade.blockNumber).volume += trade.curveValue;
    },
    activity(token, withTokenArg = false) {
      const e = current!;
      const p = currentPosition!;
      batch.events.push({
        blockNumber: p.blockNumber,
        logIndex: p.logIndex,
        blockHash: e.blockHash,
        blockTimestamp: p.blockTimestamp,
        transactionIndex: p.transactionIndex,
        transactionHash: p.transactionHash,
        contractAddress: e.address,
        eventName: e.name,
        tokenAddress: token,
        decoded: decodedJsonText(e.args, withTokenArg && token !== null ? token : undefined),
      });
    },
  };

  let count = 0;
  for (const event of events) {
    // Let I/O callbacks run every 1,000 events: the previous range's write is a sequence of round
    // trips answered on this thread, and PostgreSQL idles while a reply waits for the event loop.
    if (++count % 1000 === 0) await yieldToIo();
    const timestamp = event.blockTimestamp ?? ctx.timestamps.get(event.blockNumber);
    if (timestamp === undefined) throw new Error(`no timestamp for block ${event.blockNumber}`);
    current = event;
    currentPosition = {
      blockNumber: event.blockNumber,
      logIndex: event.logIndex,
      transactionIndex: event.transactionIndex,
      transactionHash: event.transactionHash,
      blockTimestamp: timestamp,
    };
    // Each handler takes the events of its own name (the table is keyed by name).
    (HANDLERS[event.name] as EventHandler)(event, currentPosition, b);
  }

  for (const perToken of balances.values()) for (const row of perToken.values()) batch.balances.push(row);
  const { candles, traders, traderBuckets } = aggregateCandles(batch.trades);
  for (const [key, tb] of traderBuckets) {
    const tt = batch.tokenTraders.get(key)!;
    tt.firstBuckets = tb.first;
    tt.lastBuckets = tb.last;
  }
  batch.candles = candles;
  batch.candleTraders = traders;
  return batch;
}

/**
 * Adds a trade (the next in chain order) to its position's delta: sums, counts, first/latest trade,
 * and a fold step — a sell, or the buy merged into a directly preceding buy step.
 */
export function addPositionTrade(positions: Map<string, PositionDelta>, key: string, trade: TradeRow): void {
  let p = positions.get(key);
  if (!p) {
    p = {
      tokenAddress: trade.tokenAddress,
      trader: trade.trader,
      boughtTokens: 0n,
      boughtReserve: 0n,
      soldTokens: 0n,
      soldReserve: 0n,
      buyCount: 0,
      sellCount: 0,
      first: trade,
      last: trade,
      steps: [],
    };
    positions.set(key, p);
  }
  p.last = trade;
  const buy = trade.side === "buy";
  if (buy) {
    p.boughtTokens += trade.tokenAmount;
    p.boughtReserve += trade.reserveAmount;
    p.buyCount++;
  } else {
    p.soldTokens += trade.tokenAmount;
    p.soldReserve += trade.reserveAmount;
    p.sellCount++;
  }
  const prev = p.steps[p.steps.length - 1];
  if (buy && prev?.buy) {
    prev.tokens += trade.tokenAmount;
    prev.reserve += trade.reserveAmount;
  } else {
    p.steps.push({ buy, tokens: trade.tokenAmount, reserve: trade.reserveAmount });
  }
}
