import { aggregatorProxyAbi, aggregatorV3Abi } from "@tmi/shared/chain";
import { declareEvents, type EventHandler } from "./declaration.js";

/** `AnswerUpdated` (the configured ETH/USD feed): an `eth_usd_answers` row and an activity row without token. */
const onAnswerUpdated: EventHandler<"AnswerUpdated"> = (e, p, b) => {
  b.batch.ethUsd.push({
    blockNumber: p.blockNumber,
    logIndex: p.logIndex,
    roundId: e.args.roundId,
    answer: e.args.current,
    updatedAt: e.args.updatedAt,
  });
  b.activity(null);
};

/**
 * `AggregatorConfirmed` (the configured feed's proxy replaced its aggregator; its `learn` already
 * took the new one as an emitter of answers): an activity row without token.
 */
const onAggregatorConfirmed: EventHandler<"AggregatorConfirmed"> = (_e, _p, b) => {
  b.activity(null);
};

/** The configured ETH/USD feed: its aggregators' answers and its proxy's confirmations (see docs/indexer.md, "Events"). */
export const FEED_EVENTS = declareEvents({
  AnswerUpdated: {
    abi: aggregatorV3Abi,
    // Every Chainlink aggregator emits it: fetched from the feed's aggregators only.
    filter: "emitter",
    accept: (e, state) => state.feedAggregators.has(e.address),
    handle: onAnswerUpdated,
  },
  AggregatorConfirmed: {
    abi: aggregatorProxyAbi,
    filter: "platform",
    // Pass 1: the proxy's new aggregator is an emitter of answers from now on.
    learn: {
      pass: 1,
      apply(e, state) {
        if (e.address === state.feedProxy) state.feedAggregators.add(e.args.latest);
      },
    },
    grow: {
      pass: 2,
      apply(e, set, added) {
        if (e.address === set.feedProxy && set.aggregator(e.args.latest)) added.push(e.args.latest);
      },
    },
    accept: (e, state) => state.feedProxy !== null && e.address === state.feedProxy,
    handle: onAggregatorConfirmed,
  },
});
