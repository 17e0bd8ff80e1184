import { describe, expect, it } from "vitest";
import { copyValue, pgArray } from "./sql-text.js";

describe("pgArray", () => {
  it("default", () => {
    expect(pgArray([1, 2n, "0xab", "123", null, true, false])).toBe("{1,2,0xab,123,NULL,t,f}");
    expect(pgArray([])).toBe("{}");
  });

  it("behavior: strings that need it are quoted and escaped", () => {
    expect(pgArray(['a "b" \\ c', "", "null", "x,y", "{}"])).toBe(
      '{"a \\"b\\" \\\\ c","","null","x,y","{}"}',
    );
  });
});

describe("copyValue", () => {
  it("default", () => {
    expect(copyValue(null)).toBe("\\N");
    expect(copyValue(12n)).toBe("12");
    expect(copyValue('{"a":"x\\ty\\\\"}')).toBe('{"a":"x\\\\ty\\\\\\\\"}');
    expect(copyValue("a\tb\nc\rd")).toBe("a\\tb\\nc\\rd");
  });
});
