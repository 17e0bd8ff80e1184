// The SQL text of read model `positions` (its rows and deltas: model/positions.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.

import type { PositionDelta } from "../model/positions.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

/**
 * Positions (`positions`, one row per token and trader; docs/api.md "Positions"): the range's sums
 * and counts add up, the first trade is kept, the latest replaced, and (open_quantity, cost_basis,
 * realized_pnl) are folded from the stored values through the range's steps in chain order by
 * `tmi_position_fold` (the average-cost rule, exact NUMERIC) — for a position the range only
 * bought, the fold is the sum of its buys and is added directly. Only the positions the range traded
 * are read and written (incremental: nothing is recomputed from older trades).
 */
export function positionsCtes(positions: Map<string, PositionDelta>, q: SqlParams): string[] {
  const ps = [...positions.values()];
  const stepPair: number[] = [];
  const stepBuy: boolean[] = [];
  const stepTokens: bigint[] = [];
  const stepReserve: bigint[] = [];
  for (let i = 0; i < ps.length; i++) {
    // Without a sell the fold is a sum (computed in SQL from the buy totals): no steps sent.
    if (ps[i]!.sellCount === 0) continue;
    for (const s of ps[i]!.steps) {
      stepPair.push(i + 1);
      stepBuy.push(s.buy);
      stepTokens.push(s.tokens);
      stepReserve.push(s.reserve);
    }
  }
  const pairs = unnestRows(
    q,
    ps,
    "d",
    {
      token: ["text", (p) => p.tokenAddress],
      trader: ["text", (p) => p.trader],
      bt: ["numeric", (p) => p.boughtTokens.toString()],
      br: ["numeric", (p) => p.boughtReserve.toString()],
      st: ["numeric", (p) => p.soldTokens.toString()],
      sr: ["numeric", (p) => p.soldReserve.toString()],
      bc: ["int", (p) => p.buyCount],
      sc: ["int", (p) => p.sellCount],
      fb: ["bigint", (p) => p.first.blockNumber],
      fh: ["text", (p) => p.first.transactionHash],
      fl: ["int", (p) => p.first.logIndex],
      ft: ["bigint", (p) => p.first.blockTimestamp],
      lb: ["bigint", (p) => p.last.blockNumber],
      lh: ["text", (p) => p.last.transactionHash],
      ll: ["int", (p) => p.last.logIndex],
      lt: ["bigint", (p) => p.last.blockTimestamp],
    },
    "i",
  );
  return [
    `positions_in AS (SELECT * FROM ${pairs})`,
    `positions_steps AS (
    SELECT * FROM unnest(${q.p(stepPair, "bigint[]")}, ${q.p(stepBuy, "boolean[]")},
      ${q.p(stepTokens, "numeric[]")}, ${q.p(stepReserve, "numeric[]")}) WITH ORDINALITY AS s(i, buy, t, w, ord))`,
    `positions_old AS (
    SELECT pd.*, p.open_quantity AS oq, p.cost_basis AS oc, p.realized_pnl AS orl
    FROM positions_in pd LEFT JOIN positions p ON p.token_address = pd.token AND p.trader = pd.trader)`,
    `positions_fold AS (
    SELECT s.i, tmi_position_fold(po.oq, po.oc, po.orl, s.buy, s.t, s.w ORDER BY s.ord) AS f
    FROM positions_steps s JOIN positions_old po ON po.i = s.i GROUP BY s.i)`,
    `positions_up AS (
    INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
      buy_count, sell_count, open_quantity, cost_basis, realized_pnl,
      first_block_number, first_transaction_hash, first_log_index, first_timestamp,
      last_block_number, last_transaction_hash, last_log_index, last_timestamp)
    SELECT po.token, po.trader, po.bt, po.br, po.st, po.sr, po.br + po.sr, po.bc, po.sc,
      coalesce(pf.f[1], coalesce(po.oq, 0) + po.bt), coalesce(pf.f[2], coalesce(po.oc, 0) + po.br),
      coalesce(pf.f[3], coalesce(po.orl, 0)), po.fb, po.fh, po.fl, po.ft, po.lb, po.lh, po.ll, po.lt
    FROM positions_old po LEFT JOIN positions_fold pf ON pf.i = po.i
    ON CONFLICT (token_address, trader) DO UPDATE SET
      bought_tokens = positions.bought_tokens + excluded.bought_tokens,
      bought_reserve = positions.bought_reserve + excluded.bought_reserve,
      sold_tokens = positions.sold_tokens + excluded.sold_tokens,
      sold_reserve = positions.sold_reserve + excluded.sold_reserve,
      volume = positions.volume + excluded.volume,
      buy_count = positions.buy_count + excluded.buy_count,
      sell_count = positions.sell_count + excluded.sell_count,
      open_quantity = excluded.open_quantity,
      cost_basis = excluded.cost_basis,
      realized_pnl = excluded.realized_pnl,
      last_block_number = excluded.last_block_number,
      last_transaction_hash = excluded.last_transaction_hash,
      last_log_index = excluded.last_log_index,
      last_timestamp = excluded.last_timestamp)`,
  ];
}
