import { type DecodedEvent, decodedJsonText } from "../decode/event-decoder.js";
import type { BlockHeader } from "../rpc/rpc-client.js";
import { aggregateCandles, type CandleDelta, type CandleTraderRow } from "./candles.js";
import type { KnownState } from "./known-state.js";
import { curveSpotPrice, fullyDilutedValue, interpretSwap, tradePrice } from "./market-math.js";

const yieldToIo = () => new Promise<void>((r) => setImmediate(r));

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** One row of `trades`. */
export interface TradeRow {
  blockNumber: number;
  logIndex: number;
  transactionIndex: number;
  transactionHash: string;
  blockTimestamp: number;
  tokenAddress: string;
  trader: string;
  side: "buy" | "sell";
  source: "curve" | "dex_v3";
  tokenAmount: bigint;
  reserveAmount: bigint;
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  price: bigint | null;
}

/** One row of `chain_events`. */
export interface ChainEventRow {
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  blockTimestamp: number;
  transactionIndex: number;
  transactionHash: string;
  contractAddress: string;
  eventName: string;
  tokenAddress: string | null;
  decoded: string;
}

/** A launch: the new `tokens` row (curve state as created, metrics zero). */
export interface NewTokenRow {
  address: string;
  creator: string;
  name: string;
  symbol: string;
  initialSupply: bigint;
  blockNumber: number;
  transactionIndex: number;
  transactionHash: string;
  logIndex: number;
  timestamp: number;
  reserveBalance: bigint;
  tokenBalance: bigint;
  graduationThreshold: bigint;
  price: bigint | null;
}

/** What a batch changes on one existing or new token (deltas add; `set*` replace). */
export interface TokenDelta {
  tradeCount: number;
  buyCount: number;
  sellCount: number;
  volume: bigint;
  fees: bigint;
  /** Virtual reserves after the last curve trade of the batch. */
  curve: { reserveBalance: bigint; tokenBalance: bigint } | null;
  /** Price after the last price-setting event of the batch (undefined: unchanged). */
  price: bigint | null | undefined;
  graduation: {
    pool: string;
    tokenIsToken0: boolean | null;
    blockNumber: number;
    transactionHash: string;
    logIndex: number;
    timestamp: number;
  } | null;
  lastTradeSource: string | null;
  lastTradeBlock: number | null;
  updatedBlock: number;
}

/** Per-creator change of a batch. */
export interface CreatorDelta {
  tokenCount: number;
  volume: bigint;
  updatedBlock: number;
}

/** A net balance change of one holder of one token over the batch. */
export interface BalanceDelta {
  tokenAddress: string;
  holder: string;
  delta: bigint;
  /** Not counted as a holder (launchpad, the token itself, its pool). */
  excluded: boolean;
}

/** An `AnswerUpdated` of the ETH/USD feed. */
export interface EthUsdRow {
  blockNumber: number;
  logIndex: number;
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

/** Everything one committed block range writes. */
export interface Batch {
  fromBlock: number;
  toBlock: number;
  /** Header of `toBlock`: the new checkpoint. */
  endHeader: BlockHeader;
  /** Headers to keep in `blocks` (reorg checks). */
  headers: BlockHeader[];
  events: ChainEventRow[];
  trades: TradeRow[];
  newTokens: NewTokenRow[];
  tokenDeltas: Map<string, TokenDelta>;
  balances: BalanceDelta[];
  /** token|trader → first block in the batch */
  tokenTraders: Map<string, { tokenAddress: string; trader: string; firstBlock: number }>;
  candles: CandleDelta[];
  candleTraders: CandleTraderRow[];
  creators: Map<string, CreatorDelta>;
  ethUsd: EthUsdRow[];
  /** Tokens whose events were skipped because their launch is not indexed (started after it). */
  unknownTokens: Set<string>;
}

/** Inputs besides the events that {@link buildBatch} needs. */
export interface BatchContext {
  fromBlock: number;
  toBlock: number;
  endHeader: BlockHeader;
  headers: BlockHeader[];
  /** transaction hash → sender, for pool Swaps. */
  senders: Map<string, string>;
  /** block number → timestamp, for logs returned without `blockTimestamp`. */
  timestamps: Map<number, number>;
}

function emptyDelta(block: number): TokenDelta {
  return {
    tradeCount: 0,
    buyCount: 0,
    sellCount: 0,
    volume: 0n,
    fees: 0n,
    curve: null,
    price: undefined,
    graduation: null,
    lastTradeSource: null,
    lastTradeBlock: null,
    updatedBlock: block,
  };
}

/**
 * Turns the selected events of a block range (chain order) into the rows and deltas of every
 * read model. Pure apart from reading `state` (tokens, pools and token order); yields to the
 * event loop every 1,000 events.
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
    candles: [],
    candleTraders: [],
    creators: new Map(),
    ethUsd: [],
    unknownTokens: new Set(),
  };
  const balances = new Map<string, Map<string, BalanceDelta>>();
  const newTokenSet = new Set<string>();

  const delta = (token: string, block: number): TokenDelta => {
    let d = batch.tokenDeltas.get(token);
    if (!d) {
      d = emptyDelta(block);
      batch.tokenDeltas.set(token, d);
    }
    if (block > d.updatedBlock) d.updatedBlock = block;
    return d;
  };
  const creatorDelta = (creator: string, block: number): CreatorDelta => {
    let c = batch.creators.get(creator);
    if (!c) {
      c = { tokenCount: 0, volume: 0n, updatedBlock: block };
      batch.creators.set(creator, c);
    }
    if (block > c.updatedBlock) c.updatedBlock = block;
    return c;
  };
  const addBalance = (token: string, holder: string, amount: bigint, excluded: boolean) => {
    if (holder === ZERO_ADDRESS || amount === 0n) return;
    let perToken = balances.get(token);
    if (!perToken) {
      perToken = new Map();
      balances.set(token, perToken);
    }
    const b = perToken.get(holder);
    if (b) b.delta += amount;
    else perToken.set(holder, { tokenAddress: token, holder, delta: amount, excluded });
  };
  const addTrade = (trade: TradeRow) => {
    batch.trades.push(trade);
    const d = delta(trade.tokenAddress, trade.blockNumber);
    d.tradeCount++;
    if (trade.side === "buy") d.buyCount++;
    else d.sellCount++;
    d.volume += trade.reserveAmount;
    d.fees += trade.protocolFee + trade.creatorFee;
    d.lastTradeSource = trade.source;
    d.lastTradeBlock = trade.blockNumber;
    const traderKey = `${trade.tokenAddress}|${trade.trader}`;
    if (!batch.tokenTraders.has(traderKey)) {
      batch.tokenTraders.set(traderKey, {
        tokenAddress: trade.tokenAddress,
        trader: trade.trader,
        firstBlock: trade.blockNumber,
      });
    }
    const info = state.tokens.get(trade.tokenAddress)!;
    const c = creatorDelta(info.creator, trade.blockNumber);
    c.volume += trade.reserveAmount;
  };

  let count = 0;
  for (const event of events) {
    // Let I/O callbacks run every 1,000 events: the previous range's write is a sequence of round
    // trips answered on this thread, and PostgreSQL idles while a reply waits for the event loop.
    if (++count % 1000 === 0) await yieldToIo();
    const timestamp = event.blockTimestamp ?? ctx.timestamps.get(event.blockNumber);
    if (timestamp === undefined) throw new Error(`no timestamp for block ${event.blockNumber}`);
    const a = event.args;
    let tokenAddress: string | null = null;
    let extra: Record<string, string> | undefined;
    const position = {
      blockNumber: event.blockNumber,
      logIndex: event.logIndex,
      transactionIndex: event.transactionIndex,
      transactionHash: event.transactionHash,
      blockTimestamp: timestamp,
    };

    switch (event.name) {
      case "TokenCreated": {
        tokenAddress = a.token as string;
        if (!newTokenSet.has(tokenAddress)) {
          newTokenSet.add(tokenAddress);
          const reserveBalance = a.reserveBalance as bigint;
          const tokenBalance = a.tokenBalance as bigint;
          batch.newTokens.push({
            address: tokenAddress,
            creator: a.creator as string,
            name: a.name as string,
            symbol: a.symbol as string,
            initialSupply: a.initialSupply as bigint,
            blockNumber: event.blockNumber,
            transactionIndex: event.transactionIndex,
            transactionHash: event.transactionHash,
            logIndex: event.logIndex,
            timestamp,
            reserveBalance,
            tokenBalance,
            graduationThreshold: a.graduationThreshold as bigint,
            price: curveSpotPrice(reserveBalance, tokenBalance),
          });
          delta(tokenAddress, event.blockNumber);
          creatorDelta(a.creator as string, event.blockNumber).tokenCount++;
        }
        break;
      }
      case "TokensBought":
      case "TokensSold": {
        tokenAddress = a.token as string;
        if (!state.tokens.has(tokenAddress)) {
          batch.unknownTokens.add(tokenAddress);
          break;
        }
        const buy = event.name === "TokensBought";
        const tokenAmount = a.tokenAmount as bigint;
        const curveValue = a.curveValue as bigint;
        addTrade({
          ...position,
          tokenAddress,
          trader: (buy ? a.buyer : a.seller) as string,
          side: buy ? "buy" : "sell",
          source: "curve",
          tokenAmount,
          reserveAmount: a.reserveAmount as bigint,
          curveValue,
          protocolFee: a.protocolFee as bigint,
          creatorFee: a.creatorFee as bigint,
          price: tradePrice(curveValue, tokenAmount),
        });
        const d = delta(tokenAddress, event.blockNumber);
        const reserveBalance = a.reserveBalance as bigint;
        const tokenBalance = a.tokenBalance as bigint;
        d.curve = { reserveBalance, tokenBalance };
        d.price = curveSpotPrice(reserveBalance, tokenBalance);
        break;
      }
      case "TokenGraduated": {
        tokenAddress = a.token as string;
        const info = state.tokens.get(tokenAddress);
        if (!info) {
          batch.unknownTokens.add(tokenAddress);
          break;
        }
        delta(tokenAddress, event.blockNumber).graduation = {
          pool: a.pool as string,
          tokenIsToken0: info.tokenIsToken0,
          blockNumber: event.blockNumber,
          transactionHash: event.transactionHash,
          logIndex: event.logIndex,
          timestamp,
        };
        break;
      }
      case "Transfer": {
        tokenAddress = event.address;
        extra = { token: tokenAddress };
        const info = state.tokens.get(tokenAddress)!;
        const excluded = (holder: string) =>
          holder === state.launchpad || holder === tokenAddress || holder === info.pool;
        const from = a.from as string;
        const to = a.to as string;
        const value = a.value as bigint;
        addBalance(tokenAddress, from, -value, excluded(from));
        addBalance(tokenAddress, to, value, excluded(to));
        delta(tokenAddress, event.blockNumber);
        break;
      }
      case "Swap": {
        tokenAddress = state.pools.get(event.address)!;
        extra = { token: tokenAddress };
        const info = state.tokens.get(tokenAddress)!;
        if (info.tokenIsToken0 === null) throw new Error(`token order of pool ${event.address} unknown`);
        const trader = ctx.senders.get(event.transactionHash);
        if (!trader) throw new Error(`sender of ${event.transactionHash} unknown`);
        const swap = interpretSwap(
          a.amount0 as bigint,
          a.amount1 as bigint,
          a.sqrtPriceX96 as bigint,
          info.tokenIsToken0,
        );
        addTrade({
          ...position,
          tokenAddress,
          trader,
          side: swap.side,
          source: "dex_v3",
          tokenAmount: swap.tokenAmount,
          reserveAmount: swap.reserveAmount,
          curveValue: swap.reserveAmount,
          protocolFee: 0n,
          creatorFee: 0n,
          price: tradePrice(swap.reserveAmount, swap.tokenAmount),
        });
        delta(tokenAddress, event.blockNumber).price = swap.price;
        break;
      }
      case "AnswerUpdated": {
        batch.ethUsd.push({
          blockNumber: event.blockNumber,
          logIndex: event.logIndex,
          roundId: a.roundId as bigint,
          answer: a.current as bigint,
          updatedAt: a.updatedAt as bigint,
        });
        break;
      }
    }

    batch.events.push({
      ...position,
      blockHash: event.blockHash,
      contractAddress: event.address,
      eventName: event.name,
      tokenAddress,
      decoded: decodedJsonText(a, extra),
    });
  }

  // Tokens launched in this batch start from their creation state; the price of a new token
  // without trades in the batch is its initial spot price.
  for (const t of batch.newTokens) {
    const d = batch.tokenDeltas.get(t.address)!;
    if (d.price === undefined) d.price = t.price;
  }
  for (const perToken of balances.values()) for (const b of perToken.values()) batch.balances.push(b);
  const { candles, traders } = aggregateCandles(batch.trades);
  batch.candles = candles;
  batch.candleTraders = traders;
  return batch;
}

/** FDV of a price for a token (uses its initial supply). */
export function fdvOf(price: bigint | null, initialSupply: bigint): bigint | null {
  return fullyDilutedValue(price, initialSupply);
}
