import { z } from "zod";
import { cursorParam, limitParam } from "../../common/params.js";
import { HOLDER_TAGS } from "./holder-queries.js";

/** One holder of the holders page. */
export const holderSchema = z.object({
  address: z.string().describe("holder address, lowercase 0x hex"),
  balance: z.string().describe("balance in token base units (decimal string)"),
  share_bps: z
    .number()
    .int()
    .describe("balance × 10000 / initial_supply, floored (basis points of the fixed supply)"),
  tags: z
    .array(z.enum(HOLDER_TAGS))
    .describe('the holder\'s cohorts (docs/api.md "Risk and all-time high"), sorted; empty when none'),
});

/** Query of a token's holders: the page and an optional cohort. */
export const holdersQuery = z.object({
  limit: limitParam(1, 100, 20),
  cursor: cursorParam,
  tag: z.enum(HOLDER_TAGS).optional().meta({
    description:
      "only the holders with this tag (same order); cursors are bound to it: `creator`, `insider`, `launch_block_buyer`, `sniper`",
  }),
});

/** Page of holders. */
export const holderPageSchema = z.object({
  items: z.array(holderSchema),
  next_cursor: z.string().optional(),
});
