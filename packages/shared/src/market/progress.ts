/**
 * Rule: `curve.progress_bps` = floor(sold_supply × 10000 / graduation_threshold), at most 10000;
 * 0 without a threshold. Served from `tokens` by {@link progressBpsSql}; the same rule is the SQL
 * function `tmi_progress_bps` of the `token.progress` webhooks (migration 1796800000000_); the
 * indexer applies it to keep `token_progress_highs` (services/indexer/src/model/progress.ts).
 */

/** Basis points of a complete curve. */
export const PROGRESS_BPS_MAX = 10_000;

/** `progress_bps` of a curve (token base units in, basis points out). */
export function progressBps(soldSupply: bigint, graduationThreshold: bigint): number {
  if (graduationThreshold <= 0n) return 0;
  const bps = (soldSupply * BigInt(PROGRESS_BPS_MAX)) / graduationThreshold;
  return Number(bps > BigInt(PROGRESS_BPS_MAX) ? PROGRESS_BPS_MAX : bps < 0n ? 0n : bps);
}

/** SQL form of {@link progressBps} over `numeric` expressions (an `int4`). */
export function progressBpsSql(soldSupply: string, graduationThreshold: string): string {
  return `CASE WHEN ${graduationThreshold} <= 0 THEN 0 ELSE GREATEST(0, LEAST(${PROGRESS_BPS_MAX}, div(${soldSupply} * ${PROGRESS_BPS_MAX}, ${graduationThreshold})))::int END`;
}
