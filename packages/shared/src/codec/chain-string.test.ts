import { describe, expect, test } from "vitest";
import {
  decodeChainString,
  decodeChainStringHex,
  REPLACEMENT_CHARACTER,
  sanitizeChainString,
} from "./chain-string.js";

const R = REPLACEMENT_CHARACTER;

/** Hostile names a wallet can pass to the factory, and what must be stored for each. */
const HOSTILE: [label: string, input: string, stored: string][] = [
  ["NUL inside", "Evil\u0000Name", `Evil${R}Name`],
  ["only NULs", "\u0000\u0000", `${R}${R}`],
  ["lone high surrogate", "a\uD800b", `a${R}b`],
  ["lone low surrogate", "\uDC00x", `${R}x`],
  ["reversed pair", "\uDC00\uD800", `${R}${R}`],
  ["valid pair kept", "\uD83D\uDE80", "\uD83D\uDE80"],
  ["control characters kept", "\u0001\u0007\u001b[31m\t\n\r\u007f", "\u0001\u0007\u001b[31m\t\n\r\u007f"],
  ["RTL override kept", "\u202Egnp.exe", "\u202Egnp.exe"],
  ["10 KB kept", "Z".repeat(10_240), "Z".repeat(10_240)],
  ["quotes and backslashes kept", "\"\\'", "\"\\'"],
  ["empty", "", ""],
];

describe("sanitizeChainString", () => {
  test("default: ordinary names are returned unchanged", () => {
    expect(sanitizeChainString("Zonk Coin")).toBe("Zonk Coin");
  });

  test.each(HOSTILE)("behavior: %s", (_label, input, stored) => {
    const out = sanitizeChainString(input);
    expect(out).toBe(stored);
    expect(Buffer.from(out, "utf8").toString("utf8")).toBe(out);
    expect(out.includes("\u0000")).toBe(false);
    // What PostgreSQL jsonb parses: JSON without \u0000 and without unpaired surrogate escapes.
    expect(JSON.stringify(out)).not.toMatch(
      /\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f]/i,
    );
    expect(sanitizeChainString(out)).toBe(out);
  });
});

describe("decodeChainString", () => {
  test("default: valid UTF-8 decodes as is", () => {
    expect(decodeChainString(new TextEncoder().encode("Zönk 🚀"))).toBe("Zönk 🚀");
  });

  test("behavior: invalid UTF-8 bytes become U+FFFD", () => {
    expect(decodeChainString(Uint8Array.from([0x41, 0xff, 0x42]))).toBe(`A${R}B`);
    expect(decodeChainString(Uint8Array.from([0xc3]))).toBe(R); // truncated sequence
    expect(decodeChainString(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe(`${R}${R}${R}`); // encoded surrogate
    expect(decodeChainString(Uint8Array.from([0xc0, 0xaf]))).toBe(`${R}${R}`); // overlong
    expect(decodeChainString(Uint8Array.from([0x00, 0x41]))).toBe(`${R}A`);
  });

  test("behavior: hex input with or without 0x", () => {
    expect(decodeChainStringHex("0x41ff00")).toBe(`A${R}${R}`);
    expect(decodeChainStringHex("4142")).toBe("AB");
    expect(decodeChainStringHex("0x414")).toBe("A");
  });
});
