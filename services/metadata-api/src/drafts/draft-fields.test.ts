import { describe, expect, test } from "vitest";
import { validateDraftFields } from "./draft-fields.js";

const base = { name: "Moon Cat", symbol: "MCAT", initial_supply: "1000000000000000000000000000" };

function reasons(raw: Record<string, string>, hasImage = true) {
  const result = validateDraftFields(raw, hasImage);
  return result.ok ? [] : result.details.map((d) => d.field);
}

describe("validateDraftFields", () => {
  test("default", () => {
    const result = validateDraftFields({ ...base, description: "  hi  " }, true);
    expect(result).toEqual({
      ok: true,
      fields: {
        name: "Moon Cat",
        symbol: "MCAT",
        initialSupply: 10n ** 27n,
        description: "hi",
        websiteUrl: null,
        xUrl: null,
        telegramUrl: null,
        discordUrl: null,
        imageUrl: null,
      },
    });
  });

  test("behavior: NFC then trim, limits in UTF-8 bytes after normalizing", () => {
    // "e" + combining acute (2 code points, 3 bytes) becomes "é" (1 code point, 2 bytes).
    const decomposed = "e\u0301".repeat(32); // 96 bytes raw, 64 bytes after NFC
    const ok = validateDraftFields({ ...base, name: `  ${decomposed}  ` }, true);
    expect(ok.ok && ok.fields.name).toBe("\u00e9".repeat(32));
    expect(reasons({ ...base, name: "a".repeat(65) })).toEqual(["name"]);
    expect(reasons({ ...base, name: "é".repeat(33) })).toEqual(["name"]); // 66 bytes
    expect(reasons({ ...base, name: "a".repeat(64) })).toEqual([]);
    expect(reasons({ ...base, symbol: "S".repeat(16) })).toEqual([]);
    expect(reasons({ ...base, symbol: "S".repeat(17) })).toEqual(["symbol"]);
    expect(reasons({ ...base, symbol: "€".repeat(6) })).toEqual(["symbol"]); // 18 bytes
    expect(reasons({ ...base, description: "d".repeat(1000) })).toEqual([]);
    expect(reasons({ ...base, description: "d".repeat(1001) })).toEqual(["description"]);
    expect(reasons({ ...base, description: "ü".repeat(501) })).toEqual(["description"]);
  });

  test("error: required, empty and control characters", () => {
    expect(reasons({})).toEqual(["name", "symbol", "initial_supply"]);
    expect(reasons({ ...base, name: "   " })).toEqual(["name"]);
    expect(reasons({ ...base, symbol: "A\u0000B" })).toEqual(["symbol"]);
    expect(reasons({ ...base, name: "a\nb" })).toEqual(["name"]);
    expect(reasons({ ...base, description: "line 1\nline 2" })).toEqual([]);
    expect(reasons({ ...base, description: "bell\u0007" })).toEqual(["description"]);
  });

  test("error: initial_supply must be a positive canonical uint256", () => {
    for (const bad of [
      "0",
      "-1",
      "+1",
      "1e27",
      "1.0",
      "0x10",
      "01",
      " ",
      "",
      "1 000",
      `${2n ** 256n}`,
      "١٢٣",
    ]) {
      expect(reasons({ ...base, initial_supply: bad }), bad).toEqual(["initial_supply"]);
    }
    expect(reasons({ ...base, initial_supply: `${2n ** 256n - 1n}` })).toEqual([]);
    expect(reasons({ ...base, initial_supply: " 42 " })).toEqual([]);
  });

  test("behavior: URLs re-serialized, hosts of the social links", () => {
    const result = validateDraftFields(
      {
        ...base,
        website_url: "HTTPS://Example.COM/a b",
        x_url: "https://www.x.com/moon",
        telegram_url: "https://t.me/moon",
        discord_url: "https://discord.gg/abc",
      },
      true,
    );
    expect(result.ok && result.fields).toMatchObject({
      websiteUrl: "https://example.com/a%20b",
      xUrl: "https://www.x.com/moon",
      telegramUrl: "https://t.me/moon",
      discordUrl: "https://discord.gg/abc",
    });
    expect(
      reasons({
        ...base,
        x_url: "https://twitter.com/a",
        telegram_url: "https://telegram.me/a",
        discord_url: "https://discord.com/invite/a",
      }),
    ).toEqual([]);
    expect(reasons({ ...base, website_url: "" })).toEqual([]);
  });

  test("error: bad URLs and foreign hosts", () => {
    expect(reasons({ ...base, website_url: "ftp://example.com" })).toEqual(["website_url"]);
    expect(reasons({ ...base, website_url: "javascript:alert(1)" })).toEqual(["website_url"]);
    expect(reasons({ ...base, website_url: "not a url" })).toEqual(["website_url"]);
    expect(reasons({ ...base, website_url: "https://user:pw@example.com" })).toEqual(["website_url"]);
    expect(reasons({ ...base, x_url: "https://x.com.evil.io/a" })).toEqual(["x_url"]);
    expect(reasons({ ...base, x_url: "https://evilx.com/a" })).toEqual(["x_url"]);
    expect(reasons({ ...base, x_url: "https://x.com:8443/a" })).toEqual(["x_url"]);
    expect(reasons({ ...base, telegram_url: "https://t.me.evil.io" })).toEqual(["telegram_url"]);
    expect(reasons({ ...base, discord_url: "https://discordapp.io" })).toEqual(["discord_url"]);
  });

  test("error: exactly one of image and image_url", () => {
    expect(reasons(base, false)).toEqual(["image"]);
    expect(reasons({ ...base, image_url: "https://example.com/a.png" }, true)).toEqual(["image"]);
    expect(reasons({ ...base, image_url: "http://example.com/a.png" }, false)).toEqual(["image_url"]);
    const ok = validateDraftFields({ ...base, image_url: "https://example.com/a.png" }, false);
    expect(ok.ok && ok.fields.imageUrl).toBe("https://example.com/a.png");
  });
});
