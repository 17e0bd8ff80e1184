import { z } from "zod";
import { addressSchema, amountSchema, intSchema, nextCursorSchema } from "../common/wire-schemas.js";
import { assetAmountSchema, creatorFeesSchema } from "../tokens/fees/fee-schemas.js";
import { tokenItemSchema } from "../tokens/token-schemas.js";

/** Creator profile (docs/api.md "Creators"). */
export const creatorProfileSchema = z
  .object({
    address: addressSchema,
    token_count: intSchema,
    volume: amountSchema,
    tokens: z.array(tokenItemSchema),
    next_cursor: nextCursorSchema,
  })
  .meta({ id: "CreatorProfile" });

/** One token's entry of a creator's earnings: its curve creator fees and LP creator share. */
export const creatorTokenEarningsSchema = creatorFeesSchema
  .extend({
    token: addressSchema,
    lp: z.array(assetAmountSchema).meta({
      description:
        "Σ PermanentLPFeesAccrued.creatorShare of the token, by asset (accrued to the payout address at collection)",
    }),
  })
  .meta({ id: "CreatorTokenEarnings" });

/** `GET /api/v1/creators/{address}/earnings` (docs/api.md "Fees"). */
export const creatorEarningsSchema = z
  .object({
    address: addressSchema,
    curve_claimable: amountSchema.meta({
      description: "Σ over the tokens the address launched of the creator fees earned − claimed (wei)",
    }),
    lp_claimable: z.array(assetAmountSchema).meta({
      description:
        "the LP fee vault's creatorLPFeesAccrued(address, asset), by asset: LP creator fees accrue per recipient",
    }),
    claimed: z.object({
      curve: amountSchema.meta({
        description: "Σ CreatorFeesClaimed of the tokens the address launched (wei)",
      }),
      lp: z
        .array(assetAmountSchema)
        .meta({ description: "Σ CreatorLPFeesClaimed with the address as recipient, by asset" }),
    }),
    tokens: z.array(creatorTokenEarningsSchema),
    next_cursor: nextCursorSchema,
  })
  .meta({ id: "CreatorEarnings" });
