// The USD arithmetic of docs/api.md "USD values" written plainly in TypeScript: the reference
// the SQL fragments of `src/common/usd-sql.ts` are checked against.

/** `wei × answer / 10^(18 + decimals)` as an exact decimal string (trailing zeros trimmed); null when an input is null. */
export function weiToUsd(
  wei: bigint | null | undefined,
  answer: bigint | null | undefined,
  decimals = 8,
): string | null {
  if (wei === null || wei === undefined || answer === null || answer === undefined) return null;
  const scale = 18 + decimals;
  const product = wei * answer;
  const negative = product < 0n;
  const digits = (negative ? -product : product).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
