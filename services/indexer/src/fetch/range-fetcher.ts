import { setImmediate as yieldToIo } from "node:timers/promises";
import { sanitizeChainString } from "@tmi/shared/codec";
import type { Logger } from "pino";
import type { RpcLog } from "../decode/event-decoder.js";
import { ChainMismatchError } from "../errors.js";
import { type DecodedEvent, decodeLog } from "../events/index.js";
import { BlockRangeController, suggestedSpan } from "../rpc/block-range.js";
import {
  type FeedRound,
  type ImmutableReadStats,
  readTokenLabels,
  type TokenLabel,
} from "../rpc/contract-reads.js";
import {
  type BlockHeader,
  type RpcBlock,
  type RpcClient,
  RpcError,
  toHeader,
  toQuantity,
} from "../rpc/rpc-client.js";
import { createSyncLog } from "../sync-telemetry.js";
import { readStartAnswer } from "./feed-start.js";
import {
  type EmitterSet,
  type EmitterToken,
  emitterFilters,
  genericTopicFilter,
  type LogFilter,
  platformFilter,
} from "./log-filter.js";
import { LogQueryPlanner, type LogQuerySetting, type LogQueryStrategy } from "./log-strategy.js";

/** A fetched block range, before selection. */
export interface FetchedRange {
  from: number;
  to: number;
  /** Headers of the range (inside the reorg window: every block; else the first and the last). */
  headers: BlockHeader[];
  /** Decoded logs in chain order (logs of unknown signatures and removed logs dropped). */
  events: DecodedEvent[];
  /** Raw logs returned by the node (with the chain's unrelated ones under the `topics` strategy). */
  logCount: number;
  /** How the generic events were queried (docs/indexer.md, "Log filter"). */
  strategy: LogQueryStrategy;
  /** `eth_getLogs` requests sent (after range splits). */
  logRequests: number;
  /** transaction hash → sender (`from`), for the transactions of the range's pool `Swap`s. */
  senders: Map<string, string>;
  /** token → `name()`/`symbol()` (sanitized), for the tokens launched in the range. */
  labels: Map<string, TokenLabel>;
  /** block number → timestamp (Unix s) of every fetched header and of every block whose logs came without `blockTimestamp`. */
  timestamps: Map<number, number>;
  /**
   * The range starting at the feed's `startBlock`: the feed's answer in force when that block
   * begins (`latestRoundData()` at the block before), else null.
   */
  startAnswer: FeedRound | null;
  fetchMs: number;
  decodeMs: number;
}

/** Chains address discovery through the ranges in flight, in dispatch order. */
export interface DiscoveryLink {
  /** Settles when the range dispatched before this one has grown the emitter set. */
  previous: Promise<unknown>;
  /** Marks this range's discoveries as added. */
  done: () => void;
}

/** Fetches block ranges: logs by the filter scheme, headers, swap senders, token labels. */
export interface RangeFetcher {
  /**
   * Fetches `[from, to]`: platform logs, then (after the previous range's discoveries) the generic
   * logs of `emitters` grown by this range's own, the headers (every block when `inReorgWindow`), the
   * senders of pool swaps and the labels of launched tokens. Headers in `known` (e.g. the head
   * just polled) are not fetched again.
   * @throws RpcError (after the client's retries), ChainMismatchError (a block vanished).
   */
  fetchRange(
    from: number,
    to: number,
    inReorgWindow: boolean,
    emitters: EmitterSet,
    link: DiscoveryLink,
    known?: readonly BlockHeader[],
  ): Promise<FetchedRange>;
  /** A header by number or tag (null when the node does not have it). */
  header(tag: number | "latest" | "finalized"): Promise<BlockHeader | null>;
  /** Headers of `numbers`, in one batch. @throws ChainMismatchError when one is missing. */
  headers(numbers: number[]): Promise<BlockHeader[]>;
  /** The span the next range should have (adaptive). */
  currentSpan(): number;
  /** Reads since start (historical answers / latest-block fallbacks). */
  readonly reads: ImmutableReadStats;
  /** The generic-log query planner (strategy per range, measured costs). */
  readonly planner: LogQueryPlanner;
}

/** Options of {@link createRangeFetcher}. */
export interface RangeFetcherOptions {
  rpc: RpcClient;
  logger: Logger;
  chainId: number;
  initialSpan: number;
  maxSpan: number;
  targetLogs: number;
  addressChunk: number;
  /** `LOG_QUERY_STRATEGY` (default `auto`). */
  strategy?: LogQuerySetting;
  /**
   * Curve and pool of indexed tokens the emitter set knows by address only (a graduation of such
   * a token adds its pool). Without it such graduations are not followed.
   */
  lookupEmitters?: (tokens: string[]) => Promise<EmitterToken[]>;
  /**
   * Which of the addresses met in a topic query are indexed tokens or graduated pools, for an
   * emitter set that holds only part of them ({@link EmitterSet.complete} false). Required then.
   */
  lookupMembers?: (addresses: string[]) => Promise<{ tokens: string[]; pools: string[] }>;
  /**
   * Completes an incomplete emitter set (every indexed address), when a range's emitter queries
   * cost less than its topic query (long historical ranges). Without it such ranges go by topic.
   */
  completeEmitters?: (emitters: EmitterSet) => Promise<void>;
  /**
   * The ETH/USD feed (its configured address: proxy or aggregator) and the first indexed block: the
   * range starting there carries the answer in force before it ({@link FetchedRange.startAnswer}).
   */
  feedStart?: { feed: string; startBlock: number };
}

/** A partial emitter set is completed for an emitter query only over a range this long (blocks). */
export const COMPLETE_SET_MIN_BLOCKS = 1_000;

/** Creates the range fetcher (one per engine; its span adaptation is shared by all ranges). */
export function createRangeFetcher(options: RangeFetcherOptions): RangeFetcher {
  const { rpc, logger } = options;
  const range = new BlockRangeController(options.initialSpan, {
    maxSpan: options.maxSpan,
    targetLogs: options.targetLogs,
  });
  const reads: ImmutableReadStats = { historical: 0, latestFallbacks: 0 };
  const planner = new LogQueryPlanner({
    setting: options.strategy ?? "auto",
    addressChunk: options.addressChunk,
    targetLogs: options.targetLogs,
  });
  // Topic queries return the whole chain's Transfers and Swaps: their spans adapt on their own
  // (under the same target and the providers' caps), so they never narrow the historical ranges.
  const topicRange = new BlockRangeController(1, {
    maxSpan: options.maxSpan,
    targetLogs: options.targetLogs,
  });

  async function header(tag: number | "latest" | "finalized"): Promise<BlockHeader | null> {
    const block = await rpc.request<RpcBlock | null>("eth_getBlockByNumber", [
      typeof tag === "number" ? toQuantity(tag) : tag,
      false,
    ]);
    return block ? toHeader(block) : null;
  }

  async function headers(numbers: number[]): Promise<BlockHeader[]> {
    if (numbers.length === 0) return [];
    if (numbers.length === 1) {
      const h = await header(numbers[0]!);
      if (!h) throw new ChainMismatchError(`block ${numbers[0]} not available`);
      return [h];
    }
    const out = await rpc.batch<RpcBlock | null>(
      numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [toQuantity(n), false] })),
    );
    return out.map((o, i) => {
      if (!o.ok) throw o.error;
      if (!o.result) throw new ChainMismatchError(`block ${numbers[i]} not available`);
      return toHeader(o.result);
    });
  }

  /** `eth_getLogs` over [from, to] with `filter`, split further on provider range errors. */
  async function getLogs(
    from: number,
    to: number,
    filter: LogFilter,
    count: { requests: number },
    spans: BlockRangeController = range,
  ) {
    const out: RpcLog[] = [];
    let start = from;
    while (start <= to) {
      const span = Math.min(spans.current(), to - start + 1);
      const end = start + span - 1;
      try {
        count.requests++;
        const sent = performance.now();
        const logs = await rpc.request<RpcLog[]>("eth_getLogs", [
          { ...filter, fromBlock: toQuantity(start), toBlock: toQuantity(end) },
        ]);
        planner.observeRequest(performance.now() - sent, logs.length);
        spans.onSuccess(span, logs.length);
        for (const l of logs) out.push(l);
        start = end + 1;
      } catch (error) {
        if (error instanceof RpcError && error.rangeError && span > 1) {
          const next = spans.onRangeError(span, suggestedSpan(error.message));
          logger.debug(
            {
              chain_id: options.chainId,
              action: "range_shrink",
              span,
              next,
              message: error.message.slice(0, 200),
            },
            "getLogs range too large",
          );
          continue;
        }
        throw error;
      }
    }
    return out;
  }

  async function decodeAll(logs: RpcLog[]): Promise<DecodedEvent[]> {
    const events: DecodedEvent[] = [];
    for (let i = 0; i < logs.length; i++) {
      if (i % 2000 === 1999) await yieldToIo();
      const log = logs[i]!;
      if (log.removed) continue;
      const e = decodeLog(log);
      if (e) events.push(e);
    }
    return events;
  }

  /** Senders of `txs` in one batch of `eth_getTransactionByHash`. */
  async function fetchSenders(txs: Set<string>): Promise<Map<string, string>> {
    const senders = new Map<string, string>();
    if (txs.size === 0) return senders;
    const hashes = [...txs];
    const out = await rpc.batch<{ from: string } | null>(
      hashes.map((h) => ({ method: "eth_getTransactionByHash", params: [h] })),
    );
    out.forEach((o, i) => {
      if (!o.ok) throw o.error;
      if (!o.result) throw new ChainMismatchError(`transaction ${hashes[i]} not found`);
      senders.set(hashes[i]!, o.result.from.toLowerCase());
    });
    return senders;
  }

  return {
    reads,
    planner,
    header,
    headers,
    currentSpan: () => range.current(),
    async fetchRange(from, to, inReorgWindow, emitters, link, known = []) {
      const started = performance.now();
      const count = { requests: 0 };
      const numbers = inReorgWindow
        ? Array.from({ length: to - from + 1 }, (_, i) => from + i)
        : from === to
          ? [from]
          : [from, to];
      const given = new Map(known.map((h) => [h.number, h]));
      const headersPromise = headers(numbers.filter((n) => !given.has(n))).then((fetched) => [
        ...numbers.flatMap((n) => given.get(n) ?? []),
        ...fetched,
      ]);
      headersPromise.catch(() => {});
      let decodeMs = 0;
      let platform: DecodedEvent[];
      let platformLogs: RpcLog[];
      try {
        platformLogs = await getLogs(from, to, platformFilter(), count);
        const t = performance.now();
        platform = await decodeAll(platformLogs);
        decodeMs += performance.now() - t;
        // The generic query needs every address discovered before this range and in it.
        await link.previous;
        const unresolved = options.lookupEmitters ? emitters.unresolved(platform) : [];
        if (unresolved.length > 0) for (const t of await options.lookupEmitters!(unresolved)) emitters.add(t);
        emitters.discover(platform);
      } finally {
        link.done();
      }
      let strategy = planner.choose(to - from + 1, emitters.size);
      if (strategy === "emitters" && !emitters.complete) {
        // Reading every address costs about what a range's emitter queries save only over long
        // historical ranges: shorter ones go by topic, resolving the addresses they meet.
        if (options.completeEmitters && to - from + 1 >= COMPLETE_SET_MIN_BLOCKS)
          await options.completeEmitters(emitters);
        else strategy = "topics";
      }
      let generic: RpcLog[];
      let rawGeneric: number;
      if (strategy === "topics") {
        const all = await getLogs(from, to, genericTopicFilter(), count, topicRange);
        planner.observeDensity(to - from + 1, all.length);
        rawGeneric = all.length;
        if (!emitters.complete && options.lookupMembers) {
          const met = new Set<string>();
          for (const l of all) met.add(l.address.toLowerCase());
          await emitters.resolve(met, options.lookupMembers);
        }
        generic = [];
        for (const l of all) if (emitters.has(l.address.toLowerCase())) generic.push(l);
      } else {
        generic = (
          await Promise.all(
            emitterFilters(emitters.addresses(), options.addressChunk).map((f) =>
              getLogs(from, to, f, count),
            ),
          )
        ).flat();
        rawGeneric = generic.length;
      }
      let t = performance.now();
      const events = platform.concat(await decodeAll(generic));
      events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
      decodeMs += performance.now() - t;

      // What selection and building will need: senders of pool swaps, labels of launched tokens.
      const swapTxs = new Set<string>();
      const launched: { token: string; block: number }[] = [];
      for (const e of events) {
        if (e.name === "Swap" && emitters.pools.has(e.address)) swapTxs.add(e.transactionHash);
        else if (e.name === "TokenLaunchedV3" && e.address === emitters.factory)
          launched.push({ token: e.args.token as string, block: e.blockNumber });
      }
      // Nodes that return logs without `blockTimestamp` (older geth): the headers of those blocks.
      const numberSet = new Set(numbers);
      const untimed = new Set<number>();
      for (const e of events)
        if (e.blockTimestamp === null && !numberSet.has(e.blockNumber)) untimed.add(e.blockNumber);
      const [senders, labels, fetchedHeaders, extraHeaders, startAnswer] = await Promise.all([
        fetchSenders(swapTxs),
        readLabels(launched),
        headersPromise,
        untimed.size > 0 ? headers([...untimed]) : Promise.resolve([]),
        startAnswerOf(from),
      ]);
      const timestamps = new Map<number, number>();
      for (const h of fetchedHeaders) timestamps.set(h.number, h.timestamp);
      for (const h of extraHeaders) timestamps.set(h.number, h.timestamp);
      t = performance.now();
      return {
        from,
        to,
        headers: fetchedHeaders,
        events,
        logCount: platformLogs.length + rawGeneric,
        strategy,
        logRequests: count.requests,
        senders,
        labels,
        timestamps,
        startAnswer,
        fetchMs: t - started - decodeMs,
        decodeMs,
      };
    },
  };

  /** The feed's answer in force when the first indexed block begins, for the range starting there. */
  async function startAnswerOf(from: number): Promise<FeedRound | null> {
    const start = options.feedStart;
    if (!start || from !== start.startBlock) return null;
    return readStartAnswer(rpc, start.feed, start.startBlock, createSyncLog(logger, options.chainId));
  }

  /** `name()`/`symbol()` of launched tokens at their launch blocks (latest-block fallback), sanitized. */
  async function readLabels(launched: { token: string; block: number }[]): Promise<Map<string, TokenLabel>> {
    const out = new Map<string, TokenLabel>();
    const byBlock = new Map<number, string[]>();
    for (const l of launched) byBlock.set(l.block, [...(byBlock.get(l.block) ?? []), l.token]);
    await Promise.all(
      [...byBlock].map(async ([block, tokens]) => {
        const labels = await readTokenLabels(rpc, tokens, block, reads);
        for (const [token, label] of labels) {
          out.set(token, {
            name: label.name === null ? null : sanitizeChainString(label.name),
            symbol: label.symbol === null ? null : sanitizeChainString(label.symbol),
          });
        }
      }),
    );
    return out;
  }
}
