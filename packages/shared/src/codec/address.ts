import { AppError } from "../errors/index.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

/** True when `value` is a 0x-prefixed 20-byte hex address (any letter case). */
export function isAddressString(value: unknown): value is string {
  return typeof value === "string" && ADDRESS.test(value);
}

/**
 * Parses an address from client input: 0x + 40 hex digits, any letter case (checksums are
 * not enforced, as block explorers accept both). Returns it lowercased, the form stored in the database.
 * @throws AppError `invalid_address` (400) otherwise.
 */
export function parseAddress(value: unknown, field = "address"): `0x${string}` {
  if (!isAddressString(value)) {
    throw new AppError("invalid_address", `${field} must be a 0x-prefixed 20-byte hex address`, {
      details: [{ field, reason: "malformed address" }],
    });
  }
  return value.toLowerCase() as `0x${string}`;
}

/**
 * Parses a transaction hash (0x + 64 hex digits), returned lowercased.
 * @throws AppError `invalid_request` (400) otherwise.
 */
export function parseTransactionHash(value: unknown, field = "transaction_hash"): `0x${string}` {
  if (typeof value !== "string" || !HASH.test(value)) {
    throw new AppError("invalid_request", `${field} must be a 0x-prefixed 32-byte hex hash`, {
      details: [{ field, reason: "malformed transaction hash" }],
    });
  }
  return value.toLowerCase() as `0x${string}`;
}

const HEX_DIGITS = "0123456789abcdef";

/**
 * Every lowercase hex digit d of `value` written 15 − d, other characters kept: for lowercase
 * addresses, ordering the results descending is ordering the addresses ascending. Its own
 * inverse. The JS twin of `tokens.address_tie` (a column PostgreSQL generates as
 * `translate(address, '0123456789abcdef', 'fedcba9876543210')`, migration
 * `tokens-address-tie-column`): the tie key of the value sorts, so a key "value desc, address asc"
 * is one direction and a keyset cursor bounds the index scan (row comparison).
 */
export function invertHexDigits(value: string): string {
  return value.replace(/[0-9a-f]/g, (d) => HEX_DIGITS[15 - HEX_DIGITS.indexOf(d)] as string);
}
