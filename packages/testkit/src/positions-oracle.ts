/**
 * An independent statement of the position rule (docs/api.md "Positions"), for tests that
 * recompute what the indexer stores: trades in chain order folded by the average-cost method
 * in bigint. Not used by any service.
 */

/** One trade as the oracle needs it (amounts in base units / wei). */
export interface OracleTrade {
  token: string;
  trader: string;
  side: "buy" | "sell";
  blockNumber: bigint;
  transactionIndex: number;
  logIndex: number;
  transactionHash: string;
  timestamp: bigint;
  tokenAmount: bigint;
  reserveAmount: bigint;
}

/** A position recomputed by {@link oraclePositions} (stored column names, values as decimal text). */
export interface OraclePosition {
  token_address: string;
  trader: string;
  bought_tokens: string;
  bought_reserve: string;
  sold_tokens: string;
  sold_reserve: string;
  volume: string;
  buy_count: number;
  sell_count: number;
  open_quantity: string;
  cost_basis: string;
  realized_pnl: string;
  first_block_number: string;
  first_transaction_hash: string;
  first_log_index: number;
  first_timestamp: string;
  last_block_number: string;
  last_transaction_hash: string;
  last_log_index: number;
  last_timestamp: string;
}

/** Positions of `trades` (any order in; sorted by chain position here), sorted by token then trader. */
export function oraclePositions(trades: readonly OracleTrade[]): OraclePosition[] {
  const sorted = [...trades].sort((a, b) =>
    a.blockNumber !== b.blockNumber
      ? a.blockNumber < b.blockNumber
        ? -1
        : 1
      : a.transactionIndex !== b.transactionIndex
        ? a.transactionIndex - b.transactionIndex
        : a.logIndex - b.logIndex,
  );
  const byKey = new Map<
    string,
    { p: OraclePosition; qty: bigint; cost: bigint; realized: bigint; sums: bigint[] }
  >();
  for (const t of sorted) {
    const key = `${t.token}|${t.trader}`;
    let e = byKey.get(key);
    if (!e) {
      e = {
        p: {
          token_address: t.token,
          trader: t.trader,
          bought_tokens: "0",
          bought_reserve: "0",
          sold_tokens: "0",
          sold_reserve: "0",
          volume: "0",
          buy_count: 0,
          sell_count: 0,
          open_quantity: "0",
          cost_basis: "0",
          realized_pnl: "0",
          first_block_number: t.blockNumber.toString(),
          first_transaction_hash: t.transactionHash,
          first_log_index: t.logIndex,
          first_timestamp: t.timestamp.toString(),
          last_block_number: "",
          last_transaction_hash: "",
          last_log_index: 0,
          last_timestamp: "",
        },
        qty: 0n,
        cost: 0n,
        realized: 0n,
        sums: [0n, 0n, 0n, 0n],
      };
      byKey.set(key, e);
    }
    if (t.side === "buy") {
      e.qty += t.tokenAmount;
      e.cost += t.reserveAmount;
      e.sums[0]! += t.tokenAmount;
      e.sums[1]! += t.reserveAmount;
      e.p.buy_count++;
    } else {
      // biome-ignore lint/complexity/useMathMinMax: bigint operands (Math.min takes numbers)
      const sold = t.tokenAmount < e.qty ? t.tokenAmount : e.qty;
      const c = e.qty === 0n ? 0n : (e.cost * sold) / e.qty;
      e.realized += t.reserveAmount - c;
      e.cost -= c;
      e.qty -= sold;
      e.sums[2]! += t.tokenAmount;
      e.sums[3]! += t.reserveAmount;
      e.p.sell_count++;
    }
    e.p.last_block_number = t.blockNumber.toString();
    e.p.last_transaction_hash = t.transactionHash;
    e.p.last_log_index = t.logIndex;
    e.p.last_timestamp = t.timestamp.toString();
  }
  const out: OraclePosition[] = [];
  for (const e of byKey.values()) {
    const [bt, br, st, sr] = e.sums as [bigint, bigint, bigint, bigint];
    out.push({
      ...e.p,
      bought_tokens: bt.toString(),
      bought_reserve: br.toString(),
      sold_tokens: st.toString(),
      sold_reserve: sr.toString(),
      volume: (br + sr).toString(),
      open_quantity: e.qty.toString(),
      cost_basis: e.cost.toString(),
      realized_pnl: e.realized.toString(),
    });
  }
  return out.sort((a, b) =>
    a.token_address !== b.token_address
      ? a.token_address < b.token_address
        ? -1
        : 1
      : a.trader < b.trader
        ? -1
        : a.trader > b.trader
          ? 1
          : 0,
  );
}

/** SQL selecting stored positions in the shape of {@link OraclePosition}, same order. */
export const STORED_POSITIONS_SQL = `SELECT token_address, trader, bought_tokens::text, bought_reserve::text,
  sold_tokens::text, sold_reserve::text, volume::text, buy_count, sell_count, open_quantity::text,
  cost_basis::text, realized_pnl::text, first_block_number::text, first_transaction_hash, first_log_index,
  first_timestamp::text, last_block_number::text, last_transaction_hash, last_log_index, last_timestamp::text
  FROM positions ORDER BY token_address COLLATE "C", trader COLLATE "C"`;
