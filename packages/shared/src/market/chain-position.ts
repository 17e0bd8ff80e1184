/**
 * Rule: the order of chain events (trades, activity, the live stream): block number, transaction
 * index, log index, then transaction hash; the API lists newest first, the reverse. The live
 * stream orders by block and log index alone ({@link compareStreamPositions}): a log index is
 * unique within a block and grows with the transaction index, so that is the same order.
 */

/** Where an event sits in the chain. */
export interface ChainPosition {
  blockNumber: number;
  transactionIndex: number;
  logIndex: number;
  transactionHash: string;
}

/** Chain order of two positions: negative when `a` comes first. */
export function comparePositions(a: ChainPosition, b: ChainPosition): number {
  return (
    a.blockNumber - b.blockNumber ||
    a.transactionIndex - b.transactionIndex ||
    a.logIndex - b.logIndex ||
    (a.transactionHash < b.transactionHash ? -1 : a.transactionHash > b.transactionHash ? 1 : 0)
  );
}

/**
 * The columns of a chain position in order (for an `ORDER BY`, an index, a keyset), with their
 * SQL types: `int8` block number, `int4` transaction and log index, `text` transaction hash.
 */
export const CHAIN_POSITION_COLUMNS = Object.freeze([
  { column: "block_number", type: "int8" },
  { column: "transaction_index", type: "int4" },
  { column: "log_index", type: "int4" },
  { column: "transaction_hash", type: "text" },
] as const);

/**
 * A position in the live stream: block, log index (−1 = before the block's first log) and kind
 * (0 the event itself, 1+ the candles that follow it).
 */
export interface StreamPosition {
  block: bigint;
  logIndex: number;
  sub: number;
}

/** Stream order of two positions (chain order, then kind): negative when `a` comes first. */
export function compareStreamPositions(a: StreamPosition, b: StreamPosition): number {
  if (a.block !== b.block) return a.block < b.block ? -1 : 1;
  if (a.logIndex !== b.logIndex) return a.logIndex - b.logIndex;
  return a.sub - b.sub;
}
