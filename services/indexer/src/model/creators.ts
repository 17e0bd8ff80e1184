// Read model `creators`: per creator, the count of tokens launched (handler `onTokenLaunched`)
// the volume of their tokens' trades (every trade, through `RangeBuilder.trade`) and their tokens'
// curve creator fees earned and claimed (events/fee-manager.ts);
// its CTE: prepare/creators.ts.

/** Per-creator change of a range. */
export interface CreatorDelta {
  /** The creator. */
  address: string;
  tokenCount: number;
  /** Σ curve_value of the creator's tokens' trades. */
  volume: bigint;
  /** Σ `FeesDeposited.creatorFee` of the creator's tokens (wei). */
  feesEarned: bigint;
  /** Σ `CreatorFeesClaimed.amount` of the creator's tokens (wei). */
  feesClaimed: bigint;
  updatedBlock: number;
}

/** The range's delta of `creator` in `creators` (created on first use; `updatedBlock` moves forward to `block`). */
export function creatorDelta(
  creators: Map<string, CreatorDelta>,
  creator: string,
  block: number,
): CreatorDelta {
  let c = creators.get(creator);
  if (!c) {
    c = { address: creator, tokenCount: 0, volume: 0n, feesEarned: 0n, feesClaimed: 0n, updatedBlock: block };
    creators.set(creator, c);
  }
  if (block > c.updatedBlock) c.updatedBlock = block;
  return c;
}
