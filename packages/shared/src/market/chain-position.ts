/**
 * Rule: the order of chain events (trades, activity): block number, transaction index, log
 * index, then transaction hash; the API lists newest first, the reverse.
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

/** The position columns of a row of alias `alias` in order, e.g. for `ORDER BY` or a row comparison. */
export function chainPositionColumnsSql(alias: string): string {
  return `${alias}.block_number, ${alias}.transaction_index, ${alias}.log_index, ${alias}.transaction_hash`;
}

/** `ORDER BY` list of {@link comparePositions} (`asc`) or the API's newest first (`desc`). */
export function chainOrderSql(alias: string, direction: "asc" | "desc"): string {
  return chainPositionColumnsSql(alias)
    .split(", ")
    .map((c) => `${c} ${direction.toUpperCase()}`)
    .join(", ");
}
