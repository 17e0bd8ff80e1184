/**
 * Rule: the value of a quantity of a token at a price = floor(quantity × price / 10^18) in wei
 * (quantity in base units, price in wei per whole token of 10^18 base units). One rule for every
 * such value: a token's `fully_diluted_value` (its initial supply at `current_price`, stored by
 * the indexer in `tokens.fully_diluted_value` with each new price), a holding's `value` and a
 * position's open quantity at the current price (query-api, per request).
 */

/** Base units of one whole token (the divisor of {@link valueAtPrice}). */
const WHOLE_TOKEN = 10n ** 18n;

/** Value (wei) of `quantity` base units at `price` (wei per whole token), floored; both non-negative. */
export function valueAtPrice(quantity: bigint, price: bigint): bigint {
  return (quantity * price) / WHOLE_TOKEN;
}

/**
 * SQL form of {@link valueAtPrice} over `numeric` expressions `quantity` and `price` (null when
 * either is; `div` truncates, the floor of these non-negative operands).
 */
export function valueAtPriceSql(quantity: string, price: string): string {
  return `div((${quantity}) * (${price}), ${WHOLE_TOKEN}::numeric)`;
}

/** Fully diluted value (wei) of a token at `price` (wei per whole token): {@link valueAtPrice} of its supply; null without a price. */
export function fullyDilutedValue(price: bigint | null, initialSupply: bigint): bigint | null {
  return price === null ? null : valueAtPrice(initialSupply, price);
}

/** SQL form of {@link fullyDilutedValue} over `numeric` expressions (null when `price` is). */
export function fullyDilutedValueSql(price: string, initialSupply: string): string {
  return valueAtPriceSql(initialSupply, price);
}
