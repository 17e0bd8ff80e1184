// Read model `eth_usd_answers`: the configured ETH/USD feed's `AnswerUpdated` (handler
// `onAnswerUpdated` adds a row), inserted by one CTE of the range's statement
// (prepare/eth-usd.ts).

/** Log index of the start answer (fetch/feed-start.ts): before every log of `START_BLOCK`. */
export const START_ANSWER_LOG_INDEX = -1;

/** An `AnswerUpdated` of the ETH/USD feed. */
export interface EthUsdRow {
  blockNumber: number;
  logIndex: number;
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}
