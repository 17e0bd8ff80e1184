// Read model `holder_counts` (holders at the end of each 1h/4h/1d bucket; docs/api.md
// "GET /api/v1/tokens/{address}/holders/history"): every `Transfer` (`RangeBuilder.transfer`) adds
// to its holders' net balance change per hour bucket ({@link addHolderHourDelta}); the write folds
// them over the stored balances in bucket order (prepare/holder-history.ts).
import { bucketStart, isExcludedHolder, type TokenPlatformContracts } from "@tmi/shared/market";

/** The intervals kept (all whole multiples of an hour, aligned on UTC midnight). */
export const HOLDER_HISTORY_INTERVALS = ["1h", "4h", "1d"] as const;

/** A holder's net balance change of one token within one hour bucket of the range. */
export interface HolderHourDelta {
  tokenAddress: string;
  holder: string;
  /** Start of the hour bucket (Unix seconds). */
  bucket: number;
  delta: bigint;
}

/** The range's per-hour balance changes: `token|holder|bucket` → change. */
export type HolderHourChanges = Map<string, HolderHourDelta>;

/**
 * Adds `amount` (negative: sent) to `holder`'s change in the hour bucket of `timestamp`; skipped
 * when zero or when `holder` is not a holder (`isExcludedHolder`, the rule of `token_balances`).
 */
export function addHolderHourDelta(
  changes: HolderHourChanges,
  contracts: TokenPlatformContracts,
  factory: string,
  holder: string,
  amount: bigint,
  timestamp: number,
): void {
  if (amount === 0n || isExcludedHolder(holder, contracts, factory)) return;
  const bucket = bucketStart(timestamp, "1h");
  const key = `${contracts.address}|${holder}|${bucket}`;
  const row = changes.get(key);
  if (row) row.delta += amount;
  else changes.set(key, { tokenAddress: contracts.address, holder, bucket, delta: amount });
}
