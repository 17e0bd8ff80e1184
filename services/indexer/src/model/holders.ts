// Read model `token_balances` (holders) and the change of `tokens.holder_count`: a token's
// `Transfer` (handler `onTransfer`) moves balances; the token's platform contracts are never
// holders (`isExcludedHolder`, the one holder-exclusion rule of @tmi/shared/market). Its CTEs:
// prepare/holders.ts.
import { isExcludedHolder, type TokenPlatformContracts } from "@tmi/shared/market";

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
