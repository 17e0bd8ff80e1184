import { z } from "zod";
import { addressSchema, amountSchema, intSchema, nextCursorSchema } from "../common/wire-schemas.js";
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
