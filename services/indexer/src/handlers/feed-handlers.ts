import type { EventHandler } from "../model/batch-builder.js";

/** `AnswerUpdated` (the configured ETH/USD feed): an `eth_usd_answers` row and an activity row without token. */
export const onAnswerUpdated: EventHandler = (e, p, b) => {
  b.batch.ethUsd.push({
    blockNumber: p.blockNumber,
    logIndex: p.logIndex,
    roundId: e.args.roundId as bigint,
    answer: e.args.current as bigint,
    updatedAt: e.args.updatedAt as bigint,
  });
  b.activity(null);
};
