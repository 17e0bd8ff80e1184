import type { EventHandler } from "../model/range-builder.js";

/** `AnswerUpdated` (the configured ETH/USD feed): an `eth_usd_answers` row and an activity row without token. */
export const onAnswerUpdated: EventHandler<"AnswerUpdated"> = (e, p, b) => {
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
 * `AggregatorConfirmed` (the configured feed's proxy replaced its aggregator; `selectEvents` already
 * took the new one as an emitter of answers): an activity row without token.
 */
export const onAggregatorConfirmed: EventHandler<"AggregatorConfirmed"> = (_e, _p, b) => {
  b.activity(null);
};
