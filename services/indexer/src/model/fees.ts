// Read model `fees` (the platform's fee economy): per token the curve fees by part, the creator's
// curve claims and payout address (`token_fees`); per (token, asset) the LP fee vault's shares and
// the community / trader-rewards pots (`token_asset_fees`); per (recipient, asset) the LP creator
// share accrued and claimed (`creator_lp_fees`). Handlers: events/fee-manager.ts,
// events/graduation-custody.ts, events/ecosystem-vaults.ts; its CTEs: prepare/fees.ts.

/** A token's change over a range in `token_fees` (wei; sums add up). */
export interface TokenFeeDelta {
  token: string;
  /** Σ `FeesDeposited.totalFee` / `protocolFee` / `creatorFee` / `communityFee` / `traderRewardsFee`. */
  curveTotal: bigint;
  curveProtocol: bigint;
  curveCreator: bigint;
  curveCommunity: bigint;
  curveTraderRewards: bigint;
  /** Σ `CreatorFeesClaimed.amount`. */
  creatorClaimed: bigint;
  /** The payout address after the range (`TokenRegistered.payout`, `CreatorPayoutAccepted.newPayout`); undefined: unchanged. */
  payout: string | undefined;
  /** The pending payout after the range: an address, null (none), undefined (unchanged). */
  pending: string | null | undefined;
  updatedBlock: number;
}

/** A (token, asset)'s change over a range in `token_asset_fees` (asset base units; sums add up). */
export interface AssetFeeDelta {
  token: string;
  /** Lowercase; native ETH is the zero address (as the vaults key it). */
  asset: string;
  /** Σ `PermanentLPFeesAccrued` shares. */
  lpCreator: bigint;
  lpProtocol: bigint;
  lpCommunity: bigint;
  lpTraderRewards: bigint;
  /** Σ `CommunityFunded.amount`, Σ `CommunityFundsForwarded.amount`. */
  communityFunded: bigint;
  communityForwarded: bigint;
  /** Σ `TraderRewardsFunded.amount`, Σ `TraderRewardPaid.amount`. */
  traderRewardsFunded: bigint;
  traderRewardsPaid: bigint;
  updatedBlock: number;
}

/** A (recipient, asset)'s change over a range in `creator_lp_fees`. */
export interface CreatorLpDelta {
  recipient: string;
  asset: string;
  /** Σ `PermanentLPFeesAccrued.creatorShare` with this `creatorRecipient`. */
  earned: bigint;
  /** Σ `CreatorLPFeesClaimed.amount`. */
  claimed: bigint;
  updatedBlock: number;
}

/** The fee read model's part of a range (a field of `Batch`). */
export interface FeeDeltas {
  tokens: Map<string, TokenFeeDelta>;
  assets: Map<string, AssetFeeDelta>;
  creatorLp: Map<string, CreatorLpDelta>;
}

/** An empty {@link FeeDeltas}. */
export function emptyFeeDeltas(): FeeDeltas {
  return { tokens: new Map(), assets: new Map(), creatorLp: new Map() };
}

/** The range's `token_fees` delta of `token` (created on first use; `updatedBlock` moves to `block`). */
export function tokenFeeDelta(fees: FeeDeltas, token: string, block: number): TokenFeeDelta {
  let d = fees.tokens.get(token);
  if (!d) {
    d = {
      token,
      curveTotal: 0n,
      curveProtocol: 0n,
      curveCreator: 0n,
      curveCommunity: 0n,
      curveTraderRewards: 0n,
      creatorClaimed: 0n,
      payout: undefined,
      pending: undefined,
      updatedBlock: block,
    };
    fees.tokens.set(token, d);
  }
  if (block > d.updatedBlock) d.updatedBlock = block;
  return d;
}

/** The range's `token_asset_fees` delta of (`token`, `asset`) (created on first use). */
export function assetFeeDelta(fees: FeeDeltas, token: string, asset: string, block: number): AssetFeeDelta {
  const key = `${token}|${asset}`;
  let d = fees.assets.get(key);
  if (!d) {
    d = {
      token,
      asset,
      lpCreator: 0n,
      lpProtocol: 0n,
      lpCommunity: 0n,
      lpTraderRewards: 0n,
      communityFunded: 0n,
      communityForwarded: 0n,
      traderRewardsFunded: 0n,
      traderRewardsPaid: 0n,
      updatedBlock: block,
    };
    fees.assets.set(key, d);
  }
  if (block > d.updatedBlock) d.updatedBlock = block;
  return d;
}

/** The range's `creator_lp_fees` delta of (`recipient`, `asset`) (created on first use). */
export function creatorLpDelta(
  fees: FeeDeltas,
  recipient: string,
  asset: string,
  block: number,
): CreatorLpDelta {
  const key = `${recipient}|${asset}`;
  let d = fees.creatorLp.get(key);
  if (!d) {
    d = { recipient, asset, earned: 0n, claimed: 0n, updatedBlock: block };
    fees.creatorLp.set(key, d);
  }
  if (block > d.updatedBlock) d.updatedBlock = block;
  return d;
}
