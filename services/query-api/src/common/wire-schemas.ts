import { z } from "zod";

// Wire building blocks shared by the resources' schemas (docs/api.md "Units"). The schemas
// validate requests and generate the OpenAPI document (`/api/v1/openapi.json`); responses are
// checked against that document in the tests.

/** 0x-prefixed lowercase hex address. */
export const addressSchema = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/)
  .meta({ description: "0x-prefixed lowercase hex address" });

/** 0x-prefixed lowercase hex hash. */
export const hashSchema = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .meta({ description: "0x-prefixed lowercase hex hash" });

/** Unsigned integer amount as a decimal string in base units. */
export const amountSchema = z
  .string()
  .regex(/^[0-9]+$/)
  .meta({ description: "unsigned integer, decimal string in base units" });

/** A price in wei per whole token, or null. */
export const priceSchema = amountSchema.nullable().meta({
  description:
    "wei per whole token (10^18 base units), floored decimal string; null when no valid price exists",
});

/** `schema` as an optional field (absent, never null) with its OpenAPI `description`. */
export function optionalField<T extends z.ZodType>(schema: T, description: string) {
  return schema.optional().meta({ description });
}

/** A JSON integer. */
export const intSchema = z.number().int();

/**
 * Where a chain event stands, the fields of its keyset order on the wire (trades and activity
 * items): `block_number`, `transaction_index`, `transaction_hash`, `log_index`.
 */
export const eventOrderFields = {
  block_number: intSchema,
  transaction_index: intSchema,
  transaction_hash: hashSchema,
  log_index: intSchema,
};

const nextCursor = z
  .string()
  .optional()
  .meta({ description: "opaque; present only when a further page exists" });

/** A page of `item` (`next_cursor` only when a further page exists). */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), next_cursor: nextCursor }).meta({ id });
}

/** `next_cursor` of pages embedded in a larger object (the creator profile). */
export const nextCursorSchema = nextCursor;

/** Error body: the envelope of every error (docs/api.md "Errors"). */
export const errorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      request_id: z.string(),
      details: z
        .array(z.object({ field: z.string(), reason: z.string() }))
        .optional()
        .meta({ description: "only for field validation" }),
    }),
  })
  .meta({ id: "Error" });
