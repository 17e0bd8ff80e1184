import { z } from "zod";
import { addressSchema, amountSchema, hashSchema, intSchema, pageSchema } from "../common/wire-schemas.js";

// Trader-reward distributions (docs/api.md "Reward distributions"): the deployment's
// `TraderRewardsDistributorV3` roots and claims, and the leaves of uploaded trees.

const asset = addressSchema.meta({
  description: "the rewarded asset: native ETH is the zero address (as the trader-rewards vault keys it)",
});
const distributionId = hashSchema.meta({
  description: "DistributionPublished.distributionId = keccak256(abi.encode(epoch, launchToken, asset))",
});
const epoch = amountSchema.meta({ description: "DistributionPublished.epoch (uint256, decimal string)" });

/** The position of a distributor log (block, time, transaction, log index). */
const logAt = (event: string) =>
  z.object({
    block_number: intSchema.meta({ description: `block of the ${event} log` }),
    timestamp: intSchema.meta({ description: `time of that block, Unix seconds` }),
    transaction_hash: hashSchema,
    log_index: intSchema,
  });

/** One published distribution of a token (`GET /api/v1/tokens/{address}/rewards/distributions`). */
export const rewardDistributionSchema = z
  .object({
    distribution_id: distributionId,
    epoch,
    asset,
    root: hashSchema.meta({
      description: "DistributionPublished.root: the Merkle root proofs verify against",
    }),
    published: logAt("DistributionPublished"),
    claimed_count: intSchema.meta({ description: "number of RewardClaimed of this distribution" }),
    claimed_amount: amountSchema.meta({
      description: "Σ RewardClaimed.amount of this distribution (base units)",
    }),
    tree_uploaded: z.boolean().meta({
      description:
        "a tree whose root equals `root` was uploaded (POST /api/v1/rewards/distributions/{id}/tree): wallets' proofs are served",
    }),
  })
  .meta({ id: "RewardDistribution" });

/** A page of a token's distributions, newest first. */
export const rewardDistributionPageSchema = pageSchema(rewardDistributionSchema, "RewardDistributionPage");

/** A claim of a wallet (`RewardClaimed`). */
export const rewardClaimSchema = z
  .object({
    distribution_id: distributionId,
    token_address: addressSchema.meta({ description: "RewardClaimed.launchToken" }),
    epoch,
    asset,
    amount: amountSchema.meta({ description: "RewardClaimed.amount (base units)" }),
    claimed: logAt("RewardClaimed"),
  })
  .meta({ id: "RewardClaim" });

/** A leaf of the wallet in an uploaded tree. */
export const rewardLeafSchema = z
  .object({
    distribution_id: distributionId,
    token_address: addressSchema.meta({ description: "DistributionPublished.launchToken" }),
    epoch,
    asset,
    root: hashSchema.meta({ description: "DistributionPublished.root (the uploaded tree's root equals it)" }),
    amount: amountSchema.meta({ description: "the leaf's amount (the uploaded tree; base units)" }),
    proof: z.array(hashSchema).meta({
      description:
        "bytes32[] for the distributor's claim(epoch, launchToken, asset, amount, proof): the uploaded tree's sorted-pair proof of leafHash(id, wallet, amount)",
    }),
    claimed: z.boolean().meta({ description: "a RewardClaimed of this distribution and wallet is indexed" }),
    claimable: z.boolean().meta({
      description:
        "not claimed, and the trader-rewards vault's indexed balance for (token, asset) (Σ TraderRewardsFunded − Σ TraderRewardPaid) covers amount",
    }),
  })
  .meta({ id: "RewardLeaf" });

/** `GET /api/v1/wallets/{address}/rewards`. */
export const walletRewardsSchema = z
  .object({
    address: addressSchema,
    claims: z
      .array(rewardClaimSchema)
      .meta({ description: "every RewardClaimed of the wallet, newest first" }),
    leaves: z.array(rewardLeafSchema).meta({
      description:
        "every leaf of the wallet in an uploaded tree of a published distribution, newest distribution first",
    }),
  })
  .meta({ id: "WalletRewards" });
