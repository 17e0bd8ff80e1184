// Read model `chain_events` (the activity log): every accepted event under its on-chain name.
// Handlers add a row through `RangeBuilder.activity`; the range writes them with one COPY
// (prepare/activity.ts).

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
