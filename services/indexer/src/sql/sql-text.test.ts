import { describe, expect, it } from "vitest";
import { copyValue, pgArray, sqlParams, unnestRows } from "./sql-text.js";

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

describe("unnestRows", () => {
  const rows = [
    { token: "0xa", amount: 5n, note: null },
    { token: "0xb", amount: -7n, note: "x y" },
  ];

  it("default: one typed array parameter per column, named in order", () => {
    const q = sqlParams();
    q.p(1, "int");
    const sql = unnestRows(q, rows, "d", {
      token: ["text", (r) => r.token],
      amount: ["numeric", (r) => r.amount],
      note: ["text", (r) => r.note],
    });
    expect(sql).toBe("unnest($2::text[], $3::numeric[], $4::text[]) AS d(token, amount, note)");
    expect(q.values).toEqual([1, "{0xa,0xb}", "{5,-7}", '{NULL,"x y"}']);
  });

  it("behavior: ordinality adds the row's position as a last column", () => {
    const q = sqlParams();
    expect(unnestRows(q, rows, "p", { token: ["text", (r) => r.token] }, "i")).toBe(
      "unnest($1::text[]) WITH ORDINALITY AS p(token, i)",
    );
  });
});
