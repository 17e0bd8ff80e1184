// Read model `chain_events` (the activity log): every accepted event under its on-chain name.
// Handlers add a row through `RangeBuilder.activity`; the range writes them with one COPY
// (prepare/activity.ts).

import type { DecodedArgs } from "../decode/event-decoder.js";

/**
 * One row of `chain_events` (the activity log). `decoded` is the JSON text of `args` (the exact
 * arguments) with `decodedToken` first as `token` when set (`decodedJsonText`); it is made when the
 * row's COPY line is, so that the range's JSON texts do not outlive their line.
 */
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
  args: DecodedArgs;
  decodedToken: string | undefined;
}
