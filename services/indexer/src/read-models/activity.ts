// Read model `chain_events` (the activity log): every accepted event under its on-chain name.
// Handlers add a row through `RangeBuilder.activity`; the range writes them with one COPY
// ({@link CHAIN_EVENTS_COPY}).
import { type CopyTable, copyValue } from "../store/sql-text.js";

/** One row of `chain_events` (the activity log). `decoded` is the JSON text of the exact arguments. */
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

/** The activity log by COPY (append-only; a reorg removes the rows through the journal). */
export const CHAIN_EVENTS_COPY: CopyTable<ChainEventRow> = {
  sql: "COPY chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash, contract_address, event_name, token_address, decoded) FROM STDIN",
  line: (e) =>
    `${e.blockNumber}\t${e.logIndex}\t${e.blockHash}\t${e.blockTimestamp}\t${e.transactionIndex}\t${e.transactionHash}\t${e.contractAddress}\t${e.eventName}\t${copyValue(e.tokenAddress)}\t${copyValue(e.decoded)}\n`,
};
