import type { Sql } from "./draft-queries.js";

/** The identity of an indexed launch, read from the indexer's `tokens` table (read only). */
export interface IndexedLaunch {
  address: string;
  chainId: number;
  name: string;
  symbol: string;
  initialSupply: bigint;
  createdTransactionHash: string;
}

/**
 * The canonical launch of `tokenAddress` on `chainId`, or null when the indexer has not
 * stored it (the indexer keeps only canonical data in `tokens`: reorged launches are removed).
 */
export async function findIndexedLaunch(
  sql: Sql,
  chainId: number,
  tokenAddress: string,
): Promise<IndexedLaunch | null> {
  const result = await sql.query(
    `SELECT address, chain_id, name, symbol, initial_supply::text AS initial_supply, created_transaction_hash
       FROM tokens WHERE address = $1 AND chain_id = $2`,
    [tokenAddress, chainId],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    address: row.address,
    chainId: Number(row.chain_id),
    name: row.name,
    symbol: row.symbol,
    initialSupply: BigInt(row.initial_supply),
    createdTransactionHash: row.created_transaction_hash,
  };
}
