import { describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID, parseDevnetChainId } from "./accounts.js";

describe("parseDevnetChainId", () => {
  it("default", () => {
    expect(parseDevnetChainId(undefined)).toBe(DEVNET_CHAIN_ID);
    expect(parseDevnetChainId(" ")).toBe(31337);
    expect(parseDevnetChainId("8453")).toBe(8453);
  });

  it("error: anything but a positive integer", () => {
    for (const bad of ["0", "-1", "1.5", "0x2105", "base", "9007199254740993"])
      expect(() => parseDevnetChainId(bad)).toThrow(/DEVNET_CHAIN_ID/);
    expect(() => parseDevnetChainId("x", "--chain-id")).toThrow(/--chain-id/);
  });
});
