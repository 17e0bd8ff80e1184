// The SQL text of read model `activity` (its rows and deltas: model/activity.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.

import { decodedJsonText } from "../decode/event-decoder.js";
import type { ChainEventRow } from "../model/activity.js";
import { type CopyTable, copyValue } from "../sql/sql-text.js";

/** The activity log by COPY (append-only; a reorg removes the rows through the journal). */
export const CHAIN_EVENTS_COPY: CopyTable<ChainEventRow> = {
  sql: "COPY chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash, contract_address, event_name, token_address, decoded) FROM STDIN",
  line: (e) =>
    `${e.blockNumber}\t${e.logIndex}\t${e.blockHash}\t${e.blockTimestamp}\t${e.transactionIndex}\t${e.transactionHash}\t${e.contractAddress}\t${e.eventName}\t${copyValue(e.tokenAddress)}\t${decodedJsonText(e.args, e.decodedToken, true)}\n`,
};
