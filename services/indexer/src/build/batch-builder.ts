import { setImmediate as yieldToIo } from "node:timers/promises";
import type { EventHandler } from "../events/declaration.js";
import type { BatchContext, EventPosition, RangeBuilder } from "../events/handler-context.js";
import { type DecodedEvent, EVENTS } from "../events/index.js";
import type { Batch } from "../model/batch.js";
import { aggregateCandles } from "../model/candles.js";
import { creatorDelta } from "../model/creators.js";
import { assetFeeDelta, creatorLpDelta, emptyFeeDeltas, tokenFeeDelta } from "../model/fees.js";
import { addHolderHourDelta } from "../model/holder-history.js";
import { addBalance, type BalanceChanges, balanceRows } from "../model/holders.js";
import type { KnownState } from "../model/known-state.js";
import { addPositionTrade } from "../model/positions.js";
import { addProgressTrade } from "../model/progress.js";
import { emptyRewardRows } from "../model/rewards.js";
import { addRiskBalance, addRiskTrade, addRiskTransfer } from "../model/risk.js";
import { addTokenTrade, tokenDelta } from "../model/tokens.js";
import { addTokenTrader, setTraderBuckets } from "../model/traders.js";

export type * from "../events/handler-context.js";
export * from "../model/batch.js";

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
    fees: emptyFeeDeltas(),
    rewards: emptyRewardRows(),
    risk: new Map(),
    progressHighs: new Map(),
    holderHours: new Map(),
  };
  const balances: BalanceChanges = new Map();
  let current: DecodedEvent | null = null;
  let currentPosition: EventPosition | null = null;

  // Each accumulator is its read model's own (model/*); the builder only routes to them.
  const b: RangeBuilder = {
    state,
    ctx,
    batch,
    token: (address, block) => tokenDelta(batch.tokenDeltas, address, block),
    creator: (address, block) => creatorDelta(batch.creators, address, block),
    tokenFees: (token, block) => tokenFeeDelta(batch.fees, token, block),
    assetFees: (token, asset, block) => assetFeeDelta(batch.fees, token, asset, block),
    creatorLp: (recipient, asset, block) => creatorLpDelta(batch.fees, recipient, asset, block),
    transfer(info, from, to, value) {
      addBalance(balances, info, state.factory, from, -value);
      addBalance(balances, info, state.factory, to, value);
      addRiskBalance(batch.risk, info, state.factory, from, -value);
      addRiskBalance(batch.risk, info, state.factory, to, value);
      addRiskTransfer(batch.risk, info, state.factory, from, to, value);
      const at = currentPosition!.blockTimestamp;
      addHolderHourDelta(batch.holderHours, info, state.factory, from, -value, at);
      addHolderHourDelta(batch.holderHours, info, state.factory, to, value, at);
    },
    trade(trade) {
      batch.trades.push(trade);
      addTokenTrade(tokenDelta(batch.tokenDeltas, trade.tokenAddress, trade.blockNumber), trade);
      const key = `${trade.tokenAddress}|${trade.trader}`;
      addTokenTrader(batch.tokenTraders, key, trade);
      addPositionTrade(batch.positions, key, trade);
      const info = state.tokens.get(trade.tokenAddress)!;
      creatorDelta(batch.creators, info.creator, trade.blockNumber).volume += trade.curveValue;
      addRiskTrade(batch.risk, info, trade);
      addProgressTrade(batch.progressHighs, info, trade);
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
        args: e.args,
        decodedToken: withTokenArg && token !== null ? token : undefined,
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
    (EVENTS[event.name].handle as EventHandler)(event, currentPosition, b);
  }

  batch.balances = balanceRows(balances);
  const { candles, traders, traderBuckets } = aggregateCandles(batch.trades);
  setTraderBuckets(batch.tokenTraders, traderBuckets);
  batch.candles = candles;
  batch.candleTraders = traders;
  return batch;
}
