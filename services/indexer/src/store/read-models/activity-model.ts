import type { Batch } from "../../model/batch.js";
import { copyChunks, copyValue } from "../sql-text.js";

/** COPY of the activity log (`chain_events`): every accepted event under its on-chain name. */
export const COPY_CHAIN_EVENTS =
  "COPY chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash, contract_address, event_name, token_address, decoded) FROM STDIN";

/** The COPY text of a range's activity rows (append-only; a reorg removes them through the journal). */
export function activityCopy(batch: Batch): Promise<string[]> {
  return copyChunks(
    batch.events,
    (e) =>
      `${e.blockNumber}\t${e.logIndex}\t${e.blockHash}\t${e.blockTimestamp}\t${e.transactionIndex}\t${e.transactionHash}\t${e.contractAddress}\t${e.eventName}\t${copyValue(e.tokenAddress)}\t${copyValue(e.decoded)}\n`,
  );
}
