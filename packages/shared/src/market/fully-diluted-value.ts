/**
 * Rule: `fully_diluted_value` = floor(current_price × initial_supply / 10^18) in wei (the price is
 * wei per whole token of 10^18 base units); null without a price. The indexer stores it in
 * `tokens.fully_diluted_value` with each new price.
 */

const WHOLE_TOKEN = 10n ** 18n;

/** Fully diluted value (wei) of a token at `price` (wei per whole token). */
export function fullyDilutedValue(price: bigint | null, initialSupply: bigint): bigint | null {
  return price === null ? null : (price * initialSupply) / WHOLE_TOKEN;
}

/** SQL form of {@link fullyDilutedValue} over `numeric` expressions (null when `price` is). */
export function fullyDilutedValueSql(price: string, initialSupply: string): string {
  return `div(${price} * ${initialSupply}, ${WHOLE_TOKEN})`;
}
