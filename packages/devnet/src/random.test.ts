import { describe, expect, it } from "vitest";
import { Random, tokenName } from "./random.js";

describe("Random", () => {
  it("default", () => {
    const a = new Random(42);
    const b = new Random(42);
    const seqA = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA);
    for (const x of seqA) expect(x).toBeGreaterThanOrEqual(0);
    for (const x of seqA) expect(x).toBeLessThan(1);
    expect(new Random(43).next()).not.toBe(seqA[0]);
  });

  it("behavior: amounts stay within their bounds and fractions within the amount", () => {
    const r = new Random(1);
    for (let i = 0; i < 1000; i++) {
      const wei = r.ethAmount(0.05, 1.5, 0.001, 0.5);
      expect(wei).toBeGreaterThanOrEqual(10n ** 15n);
      expect(wei).toBeLessThanOrEqual(5n * 10n ** 17n);
      const part = r.fraction(12345678901234567890n, 0.1, 1);
      expect(part).toBeLessThanOrEqual(12345678901234567890n);
      expect(r.int(7)).toBeLessThan(7);
    }
  });

  it("behavior: token names are deterministic", () => {
    expect(tokenName(new Random(5), 0)).toEqual(tokenName(new Random(5), 0));
    expect(tokenName(new Random(5), 0).symbol).toMatch(/^[A-Z]{2,5}$/);
  });
});
