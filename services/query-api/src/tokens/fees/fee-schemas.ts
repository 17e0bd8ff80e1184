import { z } from "zod";
import { addressSchema, amountSchema } from "../../common/wire-schemas.js";

const asset = addressSchema.meta({
  description:
    "the asset: native ETH is the zero address (as the vaults key it), WETH and the token by their addresses",
});

/** The creator's curve fees of one token (docs/api.md "Fees"). */
export const creatorFeesSchema = z
  .object({
    payout_address: addressSchema.nullable().meta({
      description:
        "who may claim the creator fees (TokenRegistered.payout, then CreatorPayoutAccepted.newPayout); null when not indexed",
    }),
    pending_payout_address: addressSchema.nullable().meta({
      description: "the proposed payout address awaiting acceptance (CreatorPayoutProposed), null when none",
    }),
    earned: amountSchema.meta({ description: "Σ FeesDeposited.creatorFee (wei)" }),
    claimed: amountSchema.meta({ description: "Σ CreatorFeesClaimed.amount (wei)" }),
    claimable: amountSchema.meta({
      description: "earned − claimed (wei): the fee manager's creatorFeesAccrued(token)",
    }),
  })
  .meta({ id: "CreatorFees" });

/** `GET /api/v1/tokens/{address}/fees` (docs/api.md "Fees"). */
export const tokenFeesSchema = z
  .object({
    curve: z.object({
      total: amountSchema.meta({ description: "Σ FeesDeposited.totalFee (wei)" }),
      protocol: amountSchema.meta({ description: "Σ FeesDeposited.protocolFee (wei)" }),
      creator: amountSchema.meta({ description: "Σ FeesDeposited.creatorFee (wei)" }),
      community: amountSchema.meta({ description: "Σ FeesDeposited.communityFee (wei)" }),
      trader_rewards: amountSchema.meta({ description: "Σ FeesDeposited.traderRewardsFee (wei)" }),
    }),
    creator: creatorFeesSchema,
    lp: z.array(
      z.object({
        asset,
        collected: amountSchema.meta({
          description: "Σ of the four shares of PermanentLPFeesAccrued (base units)",
        }),
        creator: amountSchema.meta({ description: "Σ PermanentLPFeesAccrued.creatorShare" }),
        protocol: amountSchema.meta({ description: "Σ PermanentLPFeesAccrued.protocolShare" }),
        community: amountSchema.meta({ description: "Σ PermanentLPFeesAccrued.communityShare" }),
        trader_rewards: amountSchema.meta({ description: "Σ PermanentLPFeesAccrued.traderRewardsShare" }),
      }),
    ),
    community: z.array(
      z.object({
        asset,
        funded: amountSchema.meta({ description: "Σ CommunityFunded.amount" }),
        forwarded: amountSchema.meta({ description: "Σ CommunityFundsForwarded.amount (to the treasury)" }),
        balance: amountSchema.meta({
          description: "funded − forwarded: the community vault's accrued(token, asset)",
        }),
      }),
    ),
    trader_rewards: z.array(
      z.object({
        asset,
        funded: amountSchema.meta({ description: "Σ TraderRewardsFunded.amount" }),
        paid: amountSchema.meta({ description: "Σ TraderRewardPaid.amount (distributor claims)" }),
        balance: amountSchema.meta({
          description: "funded − paid: the trader-rewards vault's accrued(token, asset)",
        }),
      }),
    ),
  })
  .meta({ id: "TokenFees" });

/** An amount of one asset. */
export const assetAmountSchema = z.object({ asset, amount: amountSchema });
