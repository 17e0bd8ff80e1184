// Read model `token_balances` (holders) and the change of `tokens.holder_count`: a token's
// `Transfer` (handler `onTransfer`) moves balances; the token's platform contracts are never
// holders (`isExcludedHolder`, the one holder-exclusion rule of @tmi/shared/market).
import { isExcludedHolder, type TokenPlatformContracts } from "@tmi/shared/market";
import { type SqlParams, unnestRows } from "../store/sql-text.js";

/** A net balance change of one holder (never a platform contract) of one token over the range. */
export interface BalanceDelta {
  tokenAddress: string;
  holder: string;
  delta: bigint;
}

/** The range's balance changes: token → holder → net change. */
export type BalanceChanges = Map<string, Map<string, BalanceDelta>>;

/**
 * Adds `amount` (negative: sent) to `holder`'s net change of the token of `contracts`; skipped
 * when zero or when `holder` is not a holder (`isExcludedHolder` with the `factory`).
 */
export function addBalance(
  changes: BalanceChanges,
  contracts: TokenPlatformContracts,
  factory: string,
  holder: string,
  amount: bigint,
): void {
  if (amount === 0n || isExcludedHolder(holder, contracts, factory)) return;
  let perToken = changes.get(contracts.address);
  if (!perToken) {
    perToken = new Map();
    changes.set(contracts.address, perToken);
  }
  const row = perToken.get(holder);
  if (row) row.delta += amount;
  else perToken.set(holder, { tokenAddress: contracts.address, holder, delta: amount });
}

/** The rows of {@link BalanceChanges}, token by token. */
export function balanceRows(changes: BalanceChanges): BalanceDelta[] {
  const rows: BalanceDelta[] = [];
  for (const perToken of changes.values()) for (const row of perToken.values()) rows.push(row);
  return rows;
}

/**
 * Balances of holders (`token_balances`): net deltas of the range; a row reaching 0 is deleted.
 * Offers `holderChange`, the name of a relation (token_address, n): the change of each token's
 * holder count (addresses whose balance became positive minus those that left).
 */
export function holdersCtes(b: BalanceDelta[], q: SqlParams): { ctes: string[]; holderChange: string } {
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
  return { ctes, holderChange: "holders_change" };
}
