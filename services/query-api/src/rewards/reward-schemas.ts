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

/**
 * One distribution of a wallet (`GET /api/v1/wallets/{address}/rewards`): its claim
 * (`RewardClaimed`) and its leaf in an uploaded tree, either or both.
 */
export const walletRewardSchema = z
  .object({
    distribution_id: distributionId,
    token_address: addressSchema.meta({ description: "DistributionPublished.launchToken" }),
    epoch,
    asset,
    root: hashSchema.meta({
      description: "DistributionPublished.root (an uploaded tree's root equals it)",
    }),
    amount: amountSchema.meta({
      description:
        "the wallet's amount (base units): the uploaded leaf's amount, else RewardClaimed.amount (equal when both exist: the distributor verifies the claim's proof of that amount)",
    }),
    proof: z.array(hashSchema).nullable().meta({
      description:
        "bytes32[] for the distributor's claim(epoch, launchToken, asset, amount, proof): the uploaded tree's sorted-pair proof of leafHash(id, wallet, amount) (served after a claim too); null when no uploaded tree of the distribution has a leaf of the wallet",
    }),
    claimed: z.boolean().meta({ description: "a RewardClaimed of this distribution and wallet is indexed" }),
    claim: logAt("RewardClaimed").nullable().meta({
      description: "the RewardClaimed log of the wallet's claim; null when not claimed",
    }),
    claimable: z.boolean().meta({
      description:
        "not claimed, a leaf is uploaded (proof not null), and the trader-rewards vault's indexed balance for (token, asset) (Σ TraderRewardsFunded − Σ TraderRewardPaid) covers amount",
    }),
  })
  .meta({ id: "WalletReward" });

/** A page of a wallet's rewards, newest epoch first (`GET /api/v1/wallets/{address}/rewards`). */
export const walletRewardPageSchema = pageSchema(walletRewardSchema, "WalletRewardPage");
