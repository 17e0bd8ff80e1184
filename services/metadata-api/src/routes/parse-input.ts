import { AppError } from "@tmi/shared/errors";
import type { z } from "zod";

/**
 * `value` (a request's body, params or query; absent: `{}`) parsed with `schema`.
 * @throws AppError `invalid_request` naming the first issue (`<path>: <message>`).
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw new AppError("invalid_request", `${where}${issue?.message ?? "invalid body"}`);
  }
  return result.data;
}
