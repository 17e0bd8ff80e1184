// Read model `creators`: per creator, the count of tokens launched (handler `onTokenLaunched`)
// and the volume of their tokens' trades (every trade, through `RangeBuilder.trade`);
// its CTE: prepare/creators.ts.

/** Per-creator change of a range. */
export interface CreatorDelta {
  /** The creator. */
  address: string;
  tokenCount: number;
  /** Σ curve_value of the creator's tokens' trades. */
  volume: bigint;
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
    c = { address: creator, tokenCount: 0, volume: 0n, updatedBlock: block };
    creators.set(creator, c);
  }
  if (block > c.updatedBlock) c.updatedBlock = block;
  return c;
}
