import type { Batch } from "../../model/batch.js";
import { ONE_ROW, type SqlParams } from "../sql-text.js";

/**
 * Balances of holders (`token_balances`, platform contracts never included): net deltas of the
 * range; a row reaching 0 is deleted. CTE `hd` (token_address, n) is the change of each token's
 * holder count (addresses whose balance became positive minus those that left).
 */
export function holdersCtes(batch: Batch, q: SqlParams): string[] {
  const b = batch.balances;
  return [
    `bd AS (
    SELECT * FROM unnest(${q.p(
      b.map((r) => r.tokenAddress),
      "text[]",
    )}, ${q.p(
      b.map((r) => r.holder),
      "text[]",
    )}, ${q.p(
      b.map((r) => r.delta.toString()),
      "numeric[]",
    )}) AS d(token, holder, delta))`,
    `bo AS (
    SELECT bd.token, bd.holder, bd.delta, coalesce(tb.balance, 0) AS old
    FROM bd LEFT JOIN LATERAL (SELECT tb.balance FROM token_balances tb
      WHERE tb.token_address = bd.token AND tb.holder = bd.holder ${ONE_ROW}) tb ON true)`,
    `bdel AS (
    DELETE FROM token_balances tb USING bo
    WHERE tb.token_address = bo.token AND tb.holder = bo.holder AND bo.old + bo.delta = 0)`,
    `bup AS (
    INSERT INTO token_balances (token_address, holder, balance)
    SELECT token, holder, old + delta FROM bo WHERE old + delta <> 0
    ON CONFLICT (token_address, holder) DO UPDATE SET balance = excluded.balance)`,
    `hd AS (
    SELECT token AS token_address, sum(CASE WHEN old + delta > 0 AND old <= 0 THEN 1
                                            WHEN old > 0 AND old + delta <= 0 THEN -1 ELSE 0 END)::int AS n
    FROM bo GROUP BY token)`,
  ];
}
