import { describe, expect, test } from "vitest";
import { AppError } from "../errors/index.js";
import { isAddressString, parseAddress, parseTransactionHash } from "./address.js";

describe("parseAddress", () => {
  test("default: any letter case is accepted and lowercased", () => {
    expect(parseAddress("0xAbCdEf0123456789aBcDeF0123456789ABCDEF01")).toBe(
      "0xabcdef0123456789abcdef0123456789abcdef01",
    );
    expect(isAddressString("0x" + "0".repeat(40))).toBe(true);
  });

  test("error: malformed addresses are invalid_address", () => {
    for (const bad of [
      "",
      "0x",
      "0x123",
      "abcdef0123456789abcdef0123456789abcdef01",
      "0x" + "g".repeat(40),
      "0x" + "a".repeat(41),
      42,
      null,
    ]) {
      try {
        parseAddress(bad, "token");
        expect.unreachable(String(bad));
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("invalid_address");
        expect((error as AppError).details?.[0]?.field).toBe("token");
      }
    }
  });
});

describe("parseTransactionHash", () => {
  test("default: 32-byte hex hash lowercased", () => {
    expect(parseTransactionHash("0x" + "AB".repeat(32))).toBe("0x" + "ab".repeat(32));
  });

  test("error: wrong length is invalid_request", () => {
    expect(() => parseTransactionHash("0x" + "ab".repeat(31))).toThrowError(/32-byte/);
  });
});
