import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { z } from "zod";

/**
 * A strict `limit` query parameter: digits only (no sign, exponent, fraction, blanks or
 * hex), `min`..`max`, `fallback` when absent. Anything else fails validation, which the shared
 * error handler answers with 400 `invalid_request`.
 */
export function limitParam(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^[0-9]{1,7}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback)
    .meta({ description: `integer ${min} to ${max}, default ${fallback}`, example: String(fallback) });
}

/** `cursor`: the opaque `next_cursor` of the previous page (validated by the cursor codec). */
export const cursorParam = z
  .string()
  .max(1024)
  .optional()
  .meta({ description: "opaque `next_cursor` of the previous page" });

/** `order` of trades and activity: `desc` (newest first, default) or `asc`. */
export const orderParam = z
  .enum(["asc", "desc"])
  .optional()
  .default("desc")
  .meta({ description: "`desc` newest first (default) or `asc` oldest first" });

/** Page query: `limit` 1–100 (default 20) and `cursor`. */
export const pageQuery = z.object({ limit: limitParam(1, 100, 20), cursor: cursorParam });

/** Path with one `address`, checked in the handler (malformed → 400 `invalid_address`). */
export const addressParams = z.object({
  address: z.string().meta({ description: "0x-prefixed 20-byte hex address (any letter case)" }),
});

/** Maximum search length in UTF-8 bytes. */
export const SEARCH_MAX_BYTES = 64;
const SEARCH_CHARS = /^[\p{L}\p{N} ._-]*$/u;

/**
 * Validates and normalizes a `search` query value: Unicode NFC, at most 64 UTF-8 bytes (counted
 * after NFC, before trimming), only letters, numbers (`\p{L}`, `\p{N}`), spaces, `.`, `_` and `-`;
 * then trimmed and lowercased (as the indexer writes `search_name`/`search_symbol`).
 * Returns `""` for an absent or blank search (no filter).
 * @throws AppError `invalid_request` on a longer value or an unsupported character.
 */
export function normalizeSearch(raw: string | undefined): string {
  if (raw === undefined) return "";
  const nfc = raw.normalize("NFC");
  if (Buffer.byteLength(nfc, "utf8") > SEARCH_MAX_BYTES) {
    throw new AppError("invalid_request", `search must be at most ${SEARCH_MAX_BYTES} bytes`, {
      details: [{ field: "search", reason: `longer than ${SEARCH_MAX_BYTES} UTF-8 bytes` }],
    });
  }
  if (!SEARCH_CHARS.test(nfc)) {
    throw new AppError("invalid_request", "search has unsupported characters", {
      details: [{ field: "search", reason: "only letters, numbers, spaces, '.', '_' and '-' are allowed" }],
    });
  }
  return nfc.trim().toLowerCase();
}

/**
 * A comma-separated list of 1 to `max` addresses (any letter case, blanks around commas
 * ignored), lowercased, duplicates dropped (first kept), in the given order.
 * @throws AppError `invalid_request` (field `field`) when empty or longer than `max`;
 *   `invalid_address` for a malformed address.
 */
export function parseAddressList(value: string, field: string, max: number): string[] {
  const list = value
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
  if (list.length === 0 || list.length > max) {
    throw new AppError("invalid_request", `${field} must hold 1 to ${max} addresses`, {
      details: [{ field, reason: list.length === 0 ? "no address" : `more than ${max} addresses` }],
    });
  }
  return [...new Set(list.map((a) => parseAddress(a, field)))];
}
