import { describe, expect, test } from "vitest";
import { parseObjectKey } from "./object-storage.js";

const sha = "a".repeat(64);

describe("parseObjectKey", () => {
  test("default", () => {
    expect(parseObjectKey(`images/${sha}.png`)).toEqual({
      key: `images/${sha}.png`,
      contentType: "image/png",
      sha256: sha,
    });
    expect(parseObjectKey(`images/${sha}.jpg`)?.contentType).toBe("image/jpeg");
    expect(parseObjectKey(`images/${sha}.webp`)?.contentType).toBe("image/webp");
    expect(parseObjectKey(`images/${sha}.gif`)?.contentType).toBe("image/gif");
    expect(parseObjectKey(`metadata/${sha}.json`)?.contentType).toBe("application/json");
  });

  test("error: traversal and odd keys", () => {
    for (const key of [
      "",
      "../etc/passwd",
      `images/../metadata/${sha}.json`,
      `images/${sha}.svg`,
      `images/${sha}.html`,
      `images/${sha.toUpperCase()}.png`,
      `images/${sha}.png/`,
      `/images/${sha}.png`,
      `images\\${sha}.png`,
      `images/${sha.slice(1)}.png`,
      `metadata/${sha}.png`,
      `images/${sha}.json`,
      `images/%2e%2e/${sha}.png`,
      `images/${sha}.png\u0000`,
      ".tmp/x.part",
    ]) {
      expect(parseObjectKey(key), key).toBeNull();
    }
  });
});
