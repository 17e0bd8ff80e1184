import { describe, expect, it } from "vitest";
import {
  computeBuy,
  computeSell,
  DEFAULT_GRADUATION_THRESHOLD,
  DEFAULT_INITIAL_VIRTUAL_RESERVE,
  initialVirtualTokenBalance,
  LAUNCHPAD_INITIAL_SUPPLY,
} from "./curve-math.js";
import { linkBytecode } from "./link.js";

const config = {
  protocolFeeBps: 100n,
  creatorFeeBps: 50n,
  graduationThreshold: DEFAULT_GRADUATION_THRESHOLD,
  initialVirtualReserve: DEFAULT_INITIAL_VIRTUAL_RESERVE,
};

describe("curve math", () => {
  it("default", () => {
    const t0 = initialVirtualTokenBalance(config);
    expect(t0).toBe((LAUNCHPAD_INITIAL_SUPPLY * 36n) / 35n);
    const buy = computeBuy({ reserveBalance: 10n ** 18n, tokenBalance: t0 }, 10n ** 18n, config);
    expect(buy.protocolFee).toBe(10n ** 16n);
    expect(buy.creatorFee).toBe(5n * 10n ** 15n);
    expect(buy.curveValue + buy.protocolFee + buy.creatorFee).toBe(buy.reserveAmount);
    expect(buy.reserveBalance * buy.tokenBalance).toBeGreaterThanOrEqual(10n ** 18n * t0);
    const sell = computeSell(buy, buy.tokenAmount, config);
    expect(sell.curveValue).toBeLessThanOrEqual(buy.curveValue);
    expect(sell.reserveAmount).toBe(sell.curveValue - sell.protocolFee - sell.creatorFee);
  });

  it("behavior: at graduation the remaining tokens match the reserve at the last price", () => {
    const t0 = initialVirtualTokenBalance(config);
    const buy = computeBuy({ reserveBalance: 10n ** 18n, tokenBalance: t0 }, 100n * 10n ** 18n, config);
    expect(buy.reserveAmount).toBeLessThan(100n * 10n ** 18n);
    const realReserve = buy.reserveBalance - config.initialVirtualReserve;
    expect(realReserve).toBeGreaterThanOrEqual(config.graduationThreshold);
    expect(realReserve - config.graduationThreshold).toBeLessThan(3n);
    const remaining = LAUNCHPAD_INITIAL_SUPPLY - buy.tokenAmount;
    const valueOfRemaining = (remaining * buy.reserveBalance) / buy.tokenBalance;
    expect((valueOfRemaining * 1_000_000n) / realReserve).toBeGreaterThanOrEqual(999_999n);
    expect((valueOfRemaining * 1_000_000n) / realReserve).toBeLessThanOrEqual(1_000_001n);
  });

  it("behavior: linkBytecode replaces library placeholders", () => {
    const placeholder = "__$0123456789abcdef0123456789abcdef01$__";
    const code =
      `0x6000${Buffer.from(placeholder).toString("hex").slice(0, 0)}${"ab".repeat(2)}${"__".repeat(20)}ff` as const;
    const linked = linkBytecode(
      code,
      { "a.sol": { Lib: [{ start: 4, length: 20 }] } },
      {
        Lib: "0x1111111111111111111111111111111111111111",
      },
    );
    expect(linked).toBe(`0x6000abab${"11".repeat(20)}ff`);
    expect(() => linkBytecode(code, { "a.sol": { Other: [{ start: 4, length: 20 }] } }, {})).toThrow(/Other/);
  });
});
