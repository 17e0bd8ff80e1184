// The ETH/USD answer in force when the indexed history begins (docs/indexer.md, "ETH/USD feed"):
// stored as an answer at (START_BLOCK, log index −1), so that the trades and chart buckets before the
// feed's first `AnswerUpdated` of the indexed range have a USD rate.
import type { PoolClient } from "pg";
import { START_ANSWER_LOG_INDEX } from "../model/eth-usd.js";
import { type FeedRound, readLatestRound } from "../rpc/contract-reads.js";
import type { RpcClient } from "../rpc/rpc-client.js";
import type { SyncLog } from "../sync-telemetry.js";

/**
 * The answer of `feed` (proxy or aggregator) in force when `startBlock` begins: `latestRoundData()`
 * at the block before. Null (logged) when the node cannot tell: no round or no contract yet, or no
 * state of that block (a pruned node); USD values then start at the feed's first indexed answer.
 * @throws RpcError when the node cannot be reached.
 */
export async function readStartAnswer(
  rpc: RpcClient,
  feed: string,
  startBlock: number,
  log: SyncLog,
): Promise<FeedRound | null> {
  if (startBlock === 0) return null;
  const { round, reason } = await readLatestRound(rpc, feed, startBlock - 1);
  if (!round) {
    log(
      "warn",
      "feed_start_answer_missing",
      { feed, block: startBlock - 1, reason },
      "the ETH/USD answer in force at START_BLOCK cannot be read: USD values start at the feed's first indexed answer",
    );
  }
  return round;
}

/**
 * For a database indexed past `startBlock` without its start answer (indexed before the answer was
 * stored, or when the node could not tell then): reads and stores it, journaled at `startBlock`
 * like a range's rows (undone by a reorg to below it). Nothing when it is stored already.
 * @throws RpcError when the node cannot be reached; a PostgreSQL error when the write fails.
 */
export async function backfillStartAnswer(
  client: PoolClient,
  rpc: RpcClient,
  options: { feed: string; startBlock: number; indexedBlock: number; log: SyncLog },
): Promise<void> {
  const { feed, startBlock, indexedBlock, log } = options;
  if (indexedBlock < startBlock || startBlock === 0) return;
  const stored = await client.query(
    "SELECT 1 FROM eth_usd_answers WHERE block_number = $1 AND log_index = $2",
    [startBlock, START_ANSWER_LOG_INDEX],
  );
  if (stored.rowCount) return;
  const round = await readStartAnswer(rpc, feed, startBlock, log);
  if (!round) return;
  await client.query("BEGIN");
  try {
    await client.query(
      "SELECT set_config('tmi.journal_block', $1, true), set_config('tmi.journal_to_block', $1, true)",
      [String(startBlock)],
    );
    await client.query(
      `INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [
        startBlock,
        START_ANSWER_LOG_INDEX,
        round.roundId.toString(),
        round.answer.toString(),
        round.updatedAt.toString(),
      ],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
  log(
    "info",
    "feed_start_answer_stored",
    { feed, block: startBlock, answer: round.answer.toString() },
    "ETH/USD answer in force at START_BLOCK stored",
  );
}
