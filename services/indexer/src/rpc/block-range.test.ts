import { describe, expect, it } from "vitest";
import { BlockRangeController, isRangeError, suggestedSpan } from "./block-range.js";

describe("BlockRangeController", () => {
  it("default", () => {
    const c = new BlockRangeController(100, { targetLogs: 1000, maxSpan: 10_000 });
    expect(c.current()).toBe(100);
    c.onSuccess(100, 0); // empty: widen (doubling at most)
    expect(c.current()).toBe(200);
    c.onSuccess(200, 4000); // 4× the target: shrink towards it (halving at most)
    expect(c.current()).toBe(100);
    c.onSuccess(100, 500); // half the target: widen towards it
    expect(c.current()).toBe(200);
    for (let i = 0; i < 20; i++) c.onSuccess(c.current(), 0);
    expect(c.current()).toBe(10_000);
  });

  it("behavior: range errors shrink to the provider's suggestion or by half, and a span ceiling is kept", () => {
    const c = new BlockRangeController(1000, { targetLogs: 1000 });
    expect(c.onRangeError(1000, 250)).toBe(250);
    expect(c.onRangeError(250, null)).toBe(125);
    // The failing span is a ceiling: widening stays below it.
    for (let i = 0; i < 10; i++) c.onSuccess(c.current(), 0);
    expect(c.current()).toBe(249);
    c.resetCeiling();
    c.onSuccess(c.current(), 0);
    expect(c.current()).toBe(498);
    expect(new BlockRangeController(1, {}).onRangeError(1, null)).toBe(1);
  });
});

describe("provider messages", () => {
  it("default", () => {
    for (const message of [
      "query returned more than 10000 results. Try with this block range [0x1, 0x3e8].",
      "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range",
      "block range is too wide",
      "exceed maximum block range: 5000",
      "eth_getLogs is limited to a 10,000 range",
      "Query timeout exceeded. Consider reducing your block range.",
      "ranges over 10000 blocks are not supported",
    ]) {
      expect(isRangeError(message), message).toBe(true);
    }
    expect(isRangeError("whatever", -32005)).toBe(true);
    expect(isRangeError("execution reverted")).toBe(false);
    expect(isRangeError("nonce too low")).toBe(false);
  });

  it("behavior: suggested spans are parsed from hex ranges and block counts", () => {
    expect(
      suggestedSpan("query returned more than 10000 results. Try with this block range [0x10, 0x1f]."),
    ).toBe(16);
    expect(suggestedSpan("You can make eth_getLogs requests with up to a 2000 block range")).toBe(2000);
    expect(suggestedSpan("eth_getLogs is limited to 1,000 blocks")).toBe(1000);
    expect(suggestedSpan("block range is too wide")).toBeNull();
  });
});
