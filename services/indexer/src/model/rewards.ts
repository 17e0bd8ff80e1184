// Read model `rewards` (the trader-reward distributions of `TraderRewardsDistributorV3`): one row
// per published distribution (`reward_distributions`) and one per claim (`reward_claims`), from
// the distributor the deployment's trader-rewards vault is bound to. Handlers:
// events/rewards-distributor.ts; its CTEs: prepare/rewards.ts.

/** Position and time of a distributor log as stored with its row. */
export interface RewardLogPosition {
  blockNumber: number;
  /** Hash of the log's block (lowercase hex; the stream's event ids use it). */
  blockHash: string;
  /** Block time, Unix seconds. */
  blockTimestamp: number;
  transactionHash: string;
  logIndex: number;
}

/** A `DistributionPublished` row (`reward_distributions`). */
export interface RewardDistributionRow extends RewardLogPosition {
  /** `distributionId` = keccak256(abi.encode(epoch, launchToken, asset)), bytes32 lowercase hex. */
  distributionId: string;
  token: string;
  epoch: bigint;
  /** Lowercase; native ETH is the zero address. */
  asset: string;
  /** The Merkle root, bytes32 lowercase hex. */
  root: string;
}

/** A `RewardClaimed` row (`reward_claims`): the claimant's once-per-distribution claim. */
export interface RewardClaimRow extends RewardLogPosition {
  distributionId: string;
  claimant: string;
  token: string;
  epoch: bigint;
  asset: string;
  /** Asset base units (wei for ETH). */
  amount: bigint;
}

/** The rewards read model's part of a range (a field of `Batch`), in chain order. */
export interface RewardRows {
  distributions: RewardDistributionRow[];
  claims: RewardClaimRow[];
}

/** An empty {@link RewardRows}. */
export function emptyRewardRows(): RewardRows {
  return { distributions: [], claims: [] };
}
