import { z } from "zod";

/** One holder of the holders page. */
export const holderSchema = z.object({
  address: z.string().describe("holder address, lowercase 0x hex"),
  balance: z.string().describe("balance in token base units (decimal string)"),
  share_bps: z
    .number()
    .int()
    .describe("balance × 10000 / initial_supply, floored (basis points of the fixed supply)"),
});

/** Page of holders. */
export const holderPageSchema = z.object({
  items: z.array(holderSchema),
  next_cursor: z.string().optional(),
});
