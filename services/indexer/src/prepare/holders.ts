// The SQL text of read model `holders` (its rows and deltas: model/holders.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.

import type { BalanceDelta } from "../model/holders.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

/**
 * Balances of holders (`token_balances`): net deltas of the range; a row reaching 0 is deleted.
 * Offers `holderChange`, the name of a relation (token_address, n): the change of each token's
 * holder count (addresses whose balance became positive minus those that left), and
 * `oldBalances`, a relation (token, holder, delta, old): each changed holder's stored balance
 * before the range (`old`, 0 when none).
 */
export function holdersCtes(
  b: BalanceDelta[],
  q: SqlParams,
): { ctes: string[]; holderChange: string; oldBalances: string } {
  const ctes = [
    `holders_in AS (
    SELECT * FROM ${unnestRows(q, b, "d", {
      token: ["text", (r) => r.tokenAddress],
      holder: ["text", (r) => r.holder],
      delta: ["numeric", (r) => r.delta.toString()],
    })})`,
    `holders_old AS (
    SELECT bd.token, bd.holder, bd.delta, coalesce(tb.balance, 0) AS old
    FROM holders_in bd LEFT JOIN token_balances tb ON tb.token_address = bd.token AND tb.holder = bd.holder)`,
    `holders_del AS (
    DELETE FROM token_balances tb USING holders_old bo
    WHERE tb.token_address = bo.token AND tb.holder = bo.holder AND bo.old + bo.delta = 0)`,
    `holders_up AS (
    INSERT INTO token_balances (token_address, holder, balance)
    SELECT token, holder, old + delta FROM holders_old WHERE old + delta <> 0
    ON CONFLICT (token_address, holder) DO UPDATE SET balance = excluded.balance)`,
    `holders_change AS (
    SELECT token AS token_address, sum(CASE WHEN old + delta > 0 AND old <= 0 THEN 1
                                            WHEN old > 0 AND old + delta <= 0 THEN -1 ELSE 0 END)::int AS n
    FROM holders_old GROUP BY token)`,
  ];
  return { ctes, holderChange: "holders_change", oldBalances: "holders_old" };
}
