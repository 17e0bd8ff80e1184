/** 2^256 − 1, the largest uint256. */
export const MAX_UINT256 = (1n << 256n) - 1n;

const UNSIGNED_DECIMAL = /^(0|[1-9]\d*)$/;

/**
 * Parses a canonical unsigned decimal integer string (no sign, no exponent, no fraction, no
 * leading zeros, at most 78 digits) into a bigint. Returns `null` when `value` is not one
 * or exceeds 2^256 − 1.
 */
export function parseUint256(value: string): bigint | null {
  if (value.length > 78 || !UNSIGNED_DECIMAL.test(value)) return null;
  const n = BigInt(value);
  return n <= MAX_UINT256 ? n : null;
}

/**
 * Converts a NUMERIC value read from the database (Prisma `Decimal`, a pg string, a bigint
 * or a safe integer) into a bigint without passing through floating point.
 * @throws RangeError when the value has a fractional part or is not numeric.
 */
export function toBigInt(value: { toFixed(): string } | string | bigint | number): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
    return BigInt(value);
  }
  const text = typeof value === "string" ? value : value.toFixed();
  if (!/^-?\d+$/.test(text)) throw new RangeError(`not an integer: ${text}`);
  return BigInt(text);
}

/** Decimal string of a bigint amount, the wire form of every amount. */
export function toDecimalString(value: bigint): string {
  return value.toString(10);
}

/** {@link toDecimalString} that keeps `null`/`undefined` as `null`. */
export function toDecimalStringOrNull(value: bigint | null | undefined): string | null {
  return value === null || value === undefined ? null : value.toString(10);
}

/**
 * Formats a fixed-point integer with `decimals` fractional digits, exactly:
 * `formatFixed(123456789n, 8)` → `"1.23456789"`, `formatFixed(-5n, 2)` → `"-0.05"`,
 * `formatFixed(7n, 0)` → `"7"`.
 */
export function formatFixed(value: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) throw new RangeError(`bad decimals: ${decimals}`);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString(10);
  if (decimals === 0) return (negative ? "-" : "") + digits;
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals);
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}
