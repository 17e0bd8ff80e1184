/**
 * Strings that come from the chain (token `name()`/`symbol()`, ABI `string` arguments) are
 * arbitrary bytes chosen by whoever sent the transaction. PostgreSQL `text` cannot hold U+0000,
 * `jsonb` rejects `\u0000` and unpaired surrogate escapes, and JSON text with a lone surrogate is
 * not valid UTF-8. One rule for every such string, applied before it is stored or served:
 * invalid UTF-8 sequences, lone surrogates and U+0000 become U+FFFD (the replacement character);
 * everything else (other control characters, RTL marks, any length) is kept as is.
 */

/** U+FFFD REPLACEMENT CHARACTER, what every unstorable character becomes. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

/** A lone (unpaired) UTF-16 surrogate. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const lossyUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * A chain string made safe for PostgreSQL `text`/`jsonb` and for JSON responses: lone
 * surrogates and U+0000 replaced by U+FFFD. Idempotent; returns the same string when nothing
 * needed replacing.
 */
export function sanitizeChainString(value: string): string {
  let out = value.includes("\u0000") ? value.replaceAll("\u0000", REPLACEMENT_CHARACTER) : value;
  LONE_SURROGATE.lastIndex = 0;
  if (LONE_SURROGATE.test(out)) out = out.replace(LONE_SURROGATE, REPLACEMENT_CHARACTER);
  return out;
}

/**
 * Decodes bytes as UTF-8 (each invalid sequence becomes U+FFFD, as the WHATWG decoder does) and
 * applies {@link sanitizeChainString}. For ABI-encoded `string` values read from logs or calls.
 */
export function decodeChainString(bytes: Uint8Array): string {
  return sanitizeChainString(lossyUtf8.decode(bytes));
}

/**
 * Decodes the hex of an ABI `string` value's bytes (`0x`-prefixed or not) with
 * {@link decodeChainString}. An odd trailing nibble is ignored.
 */
export function decodeChainStringHex(hex: string): string {
  const start = hex.startsWith("0x") || hex.startsWith("0X") ? 2 : 0;
  return decodeChainString(Buffer.from(hex.slice(start, start + ((hex.length - start) & ~1)), "hex"));
}
