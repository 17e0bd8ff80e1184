import { parseUint256 } from "@tmi/shared/codec";
import type { ErrorDetail } from "@tmi/shared/errors";

/** Text fields of `POST /api/v1/token-metadata` (everything but the `image` file). */
export const TEXT_FIELDS = [
  "name",
  "symbol",
  "initial_supply",
  "description",
  "website_url",
  "x_url",
  "telegram_url",
  "discord_url",
  "image_url",
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** Byte limits (UTF-8, after NFC + trim) of the spec, plus a sanity cap for URLs. */
export const LIMITS = { name: 64, symbol: 16, description: 1000, url: 2048 } as const;

/** Hosts allowed per social link (docs/api.md), each also with `www.`. */
export const SOCIAL_HOSTS = {
  x_url: ["x.com", "twitter.com"],
  telegram_url: ["t.me", "telegram.me"],
  discord_url: ["discord.gg", "discord.com"],
} as const;

/** The normalized, validated text fields of a draft. Optional fields are `null` when absent or empty. */
export interface DraftFields {
  name: string;
  symbol: string;
  initialSupply: bigint;
  description: string | null;
  websiteUrl: string | null;
  xUrl: string | null;
  telegramUrl: string | null;
  discordUrl: string | null;
  /** The `image_url` to fetch (HTTPS, re-serialized), or null when a file is uploaded. */
  imageUrl: string | null;
}

/** Result of {@link validateDraftFields}: the fields, or every problem found. */
export type DraftFieldsResult = { ok: true; fields: DraftFields } | { ok: false; details: ErrorDetail[] };

// C0/C1 control characters and the Unicode line/paragraph separators; refused in single-line fields.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// The same minus tab, LF and CR, refused in the description.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const CONTROL_MULTILINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Unicode NFC, then trimmed (docs/api.md). */
export function normalizeText(value: string): string {
  return value.normalize("NFC").trim();
}

/** Length of `value` in UTF-8 bytes. */
export function utf8Length(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/**
 * Validates and normalizes the text fields of a draft (spec "POST /api/v1/token-metadata",
 * docs/api.md): NFC + trim, limits in UTF-8 bytes after normalizing, `initial_supply` a
 * positive canonical uint256 decimal, URLs re-serialized with WHATWG URL and host rules for
 * the social links. `hasImageFile` says whether a non-empty `image` file part came with the
 * form: exactly one of `image` and `image_url` is required. Never throws.
 */
export function validateDraftFields(
  raw: Partial<Record<TextField, string>>,
  hasImageFile: boolean,
): DraftFieldsResult {
  const details: ErrorDetail[] = [];
  const fail = (field: string, reason: string) => {
    details.push({ field, reason });
    return null;
  };

  const single = (field: "name" | "symbol", max: number): string | null => {
    const value = raw[field];
    if (value === undefined) return fail(field, "required");
    const text = normalizeText(value);
    if (text.length === 0) return fail(field, "must not be empty");
    if (utf8Length(text) > max)
      return fail(field, `must be at most ${max} bytes (UTF-8, after NFC and trim)`);
    if (CONTROL.test(text)) return fail(field, "must not contain control characters");
    return text;
  };
  const name = single("name", LIMITS.name);
  const symbol = single("symbol", LIMITS.symbol);

  let initialSupply: bigint | null = null;
  if (raw.initial_supply === undefined) fail("initial_supply", "required");
  else {
    const text = normalizeText(raw.initial_supply);
    const parsed = parseUint256(text);
    if (parsed === null)
      fail(
        "initial_supply",
        "must be a canonical uint256 decimal string (digits only, no sign, exponent or fraction, at most 2^256-1)",
      );
    else if (parsed === 0n) fail("initial_supply", "must be positive");
    else initialSupply = parsed;
  }

  let description: string | null = null;
  if (raw.description !== undefined) {
    // Browsers send form line breaks as CRLF; stored as LF.
    const text = normalizeText(raw.description).replace(/\r\n?/g, "\n");
    if (utf8Length(text) > LIMITS.description)
      fail("description", `must be at most ${LIMITS.description} bytes (UTF-8, after NFC and trim)`);
    else if (CONTROL_MULTILINE.test(text)) fail("description", "must not contain control characters");
    else description = text.length > 0 ? text : null;
  }

  const websiteUrl = optionalUrl(raw.website_url, "website_url", ["http:", "https:"], null, fail);
  const xUrl = optionalUrl(raw.x_url, "x_url", ["http:", "https:"], SOCIAL_HOSTS.x_url, fail);
  const telegramUrl = optionalUrl(
    raw.telegram_url,
    "telegram_url",
    ["http:", "https:"],
    SOCIAL_HOSTS.telegram_url,
    fail,
  );
  const discordUrl = optionalUrl(
    raw.discord_url,
    "discord_url",
    ["http:", "https:"],
    SOCIAL_HOSTS.discord_url,
    fail,
  );
  const imageUrl = optionalUrl(raw.image_url, "image_url", ["https:"], null, fail);

  if (raw.image_url !== undefined && normalizeText(raw.image_url) !== "" && hasImageFile) {
    fail("image", "send either an image file or image_url, not both");
  } else if (!hasImageFile && (raw.image_url === undefined || normalizeText(raw.image_url) === "")) {
    fail("image", "an image file or image_url is required");
  }

  if (details.length > 0 || name === null || symbol === null || initialSupply === null) {
    return { ok: false, details };
  }
  return {
    ok: true,
    fields: { name, symbol, initialSupply, description, websiteUrl, xUrl, telegramUrl, discordUrl, imageUrl },
  };
}

/**
 * Parses an optional URL field: empty means absent; otherwise WHATWG-parsed, scheme in
 * `protocols`, no credentials, host in `hosts` (with or without `www.`) when given, and
 * re-serialized. Returns null when absent or invalid (the problem is reported through `fail`).
 */
function optionalUrl(
  value: string | undefined,
  field: string,
  protocols: readonly string[],
  hosts: readonly string[] | null,
  fail: (field: string, reason: string) => null,
): string | null {
  if (value === undefined) return null;
  const text = normalizeText(value);
  if (text.length === 0) return null;
  if (utf8Length(text) > LIMITS.url) return fail(field, `must be at most ${LIMITS.url} bytes`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(field, "must be an absolute URL");
  }
  if (!protocols.includes(url.protocol)) {
    return fail(field, `must use ${protocols.map((p) => p.replace(":", "")).join(" or ")}`);
  }
  if (url.username !== "" || url.password !== "") return fail(field, "must not contain credentials");
  if (url.hostname === "") return fail(field, "must have a host");
  if (hosts) {
    const host = url.hostname.replace(/^www\./, "");
    if (!hosts.includes(host) || url.port !== "")
      return fail(field, `host must be one of ${hosts.join(", ")}`);
  }
  return url.href;
}
