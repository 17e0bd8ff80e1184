import { randomBytes } from "node:crypto";
import { invertHexDigits } from "@tmi/shared/codec";
import { describe, expect, it } from "vitest";
import { checkKeyset, keysetPositionOf } from "../common/keyset-page.js";
import { TOKEN_ORDERS } from "./token-orders.js";

const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;
/** Byte order (PostgreSQL's `C` collation; the same for these characters under the others). */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe("the value sorts' tie key", () => {
  const addresses = [
    ...Array.from({ length: 500 }, randomAddress),
    `0x${"0".repeat(40)}`,
    `0x${"f".repeat(40)}`,
    `0x${"0".repeat(39)}1`,
    `0x${"a".repeat(40)}`,
    `0x${"9".repeat(40)}`,
  ];

  it("behavior: the inverted digits descending are the addresses ascending", () => {
    const ascending = [...addresses].sort(byBytes);
    const byTie = [...addresses].sort((a, b) => byBytes(invertHexDigits(b), invertHexDigits(a)));
    expect(byTie).toEqual(ascending);
  });

  it("behavior: the inversion is its own inverse and maps 0-9a-f to f-0, keeping other characters", () => {
    for (const a of addresses) expect(invertHexDigits(invertHexDigits(a))).toBe(a);
    expect(invertHexDigits("0x0123456789abcdef")).toBe("fxfedcba9876543210");
  });

  it("behavior: a cursor carries the address; decoding gives the key's form back", () => {
    for (const sort of ["market_cap", "last_trade", "holders", "progress"] as const) {
      const order = TOKEN_ORDERS[sort];
      const address = randomAddress();
      const value = order.key[0]?.type === "int4" ? 7 : 7n;
      const row = { k0: String(value), k1: invertHexDigits(address) };
      const position = keysetPositionOf(order, row);
      expect(position, sort).toEqual([value, address]);
      expect(checkKeyset(order.key, position), sort).toEqual([value, invertHexDigits(address)]);
    }
  });

  it("default: the newest order's cursor is its own key", () => {
    const row = { k0: "12", k1: 3 };
    expect(checkKeyset(TOKEN_ORDERS.newest.key, keysetPositionOf(TOKEN_ORDERS.newest, row))).toEqual([
      12n,
      3,
    ]);
  });
});
