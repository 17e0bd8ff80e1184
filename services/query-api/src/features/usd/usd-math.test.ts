import { describe, expect, it } from "vitest";
import { shareBps } from "../holders/holder-queries.js";
import { STATS_WINDOWS, windowStart } from "../stats/window-stats-queries.js";
import { tokenUsd, weiToUsd } from "./usd-queries.js";

describe("USD, share and window arithmetic", () => {
  it("default", () => {
    expect(weiToUsd(10n ** 18n, 3_000_12345678n)).toBe("3000.12345678");
    expect(weiToUsd(1_000_000_000n, 3_000_00000000n)).toBe("0.000003");
    expect(weiToUsd(10n ** 18n, 3_000n, 0)).toBe("3000");
    expect(tokenUsd({ currentPrice: null, fullyDilutedValue: null, volume: 0n }, { answer: 1n })).toEqual({
      price: null,
      fully_diluted_value: null,
      volume: "0",
    });
  });

  it("behavior: share_bps floors; windows end with the bucket of now", () => {
    expect(shareBps(10n ** 26n, 10n ** 27n)).toBe(1000);
    expect(shareBps(99_999n, 10n ** 9n)).toBe(0);
    expect(shareBps(1n, 0n)).toBe(0);
    const [fiveMinutes, , , day] = STATS_WINDOWS;
    expect(windowStart(1_000_030, fiveMinutes)).toBe(1_000_020 - 300 + 60);
    expect(windowStart(1_000_030, day)).toBe(999_900 - 86_400 + 900);
  });
});
