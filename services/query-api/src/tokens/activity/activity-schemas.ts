import { z } from "zod";
import { eventOrderFields, pageSchema } from "../../common/wire-schemas.js";

/** Activity item: a canonical decoded chain event (docs/api.md "Trades and activity"). */
export const activitySchema = z
  .object({
    event_name: z.string(),
    decoded: z
      .record(z.string(), z.unknown())
      .meta({ description: "decoded event arguments (uint256 as decimal strings)" }),
    ...eventOrderFields,
  })
  .meta({ id: "ActivityItem" });

/** A page of activity items. */
export const activityPageSchema = pageSchema(activitySchema, "ActivityPage");

/** One activity item on the wire. */
export type ActivityItem = z.output<typeof activitySchema>;
