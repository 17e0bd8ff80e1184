import { traderRewardsDistributorV3Abi } from "@tmi/shared/chain";
import type { KnownState } from "../model/known-state.js";
import type { RewardLogPosition } from "../model/rewards.js";
import { declareEvents, type EventHandler, launchTokenKey } from "./declaration.js";
import type { EventPosition } from "./handler-context.js";

// The deployment's trader-rewards distributor (`TraderRewardsDistributorV3`): the one the
// trader-rewards vault is bound to (`distributor()`, read at start: `sync/chain-contracts.ts`).
// Its roots and claims in `reward_distributions` and `reward_claims` (model/rewards); its logs
// stay out of the activity log.

/** The stored position of the distributor log `e` at `p`. */
function logPosition(e: { blockHash: string }, p: EventPosition): RewardLogPosition {
  return {
    blockNumber: p.blockNumber,
    blockHash: e.blockHash,
    blockTimestamp: p.blockTimestamp,
    transactionHash: p.transactionHash,
    logIndex: p.logIndex,
  };
}

/** `DistributionPublished`: a `reward_distributions` row. */
const onDistributionPublished: EventHandler<"DistributionPublished"> = (e, p, b) => {
  b.batch.rewards.distributions.push({
    distributionId: e.args.distributionId,
    token: e.args.launchToken,
    epoch: e.args.epoch,
    asset: e.args.asset,
    root: e.args.root,
    ...logPosition(e, p),
  });
};

/** `RewardClaimed`: a `reward_claims` row (the claimant's once-per-distribution claim). */
const onRewardClaimed: EventHandler<"RewardClaimed"> = (e, p, b) => {
  b.batch.rewards.claims.push({
    distributionId: e.args.distributionId,
    claimant: e.args.claimant,
    token: e.args.launchToken,
    epoch: e.args.epoch,
    asset: e.args.asset,
    amount: e.args.amount,
    ...logPosition(e, p),
  });
};

/** A distributor log counts from the deployment's distributor, about a launched token. */
function fromDistributor(e: { address: string; args: { launchToken: string } }, state: KnownState): boolean {
  return (
    state.rewardsDistributor !== null &&
    e.address === state.rewardsDistributor &&
    state.tokens.has(e.args.launchToken)
  );
}

/** The trader-rewards distributor (see docs/indexer.md, "Which logs count"). */
export const REWARDS_DISTRIBUTOR_EVENTS = declareEvents({
  DistributionPublished: {
    abi: traderRewardsDistributorV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    accept: fromDistributor,
    handle: onDistributionPublished,
  },
  RewardClaimed: {
    abi: traderRewardsDistributorV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    accept: fromDistributor,
    handle: onRewardClaimed,
  },
});
