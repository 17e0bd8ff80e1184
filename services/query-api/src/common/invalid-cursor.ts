import { AppError } from "@tmi/shared/errors";

/**
 * The error of a cursor that decodes but does not hold the expected position shape (wrong
 * arity or value types): 400 `invalid_request` with field `cursor`. Lives below both the
 * keyset-page helper and the route helpers, which both throw it.
 */
export function invalidCursor(): AppError {
  return new AppError("invalid_request", "invalid cursor", {
    details: [{ field: "cursor", reason: "not a cursor issued by this route" }],
  });
}
