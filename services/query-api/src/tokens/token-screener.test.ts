import { AppError } from "@tmi/shared/errors";
import { describe, expect, test } from "vitest";
import { parseScreener, SCREENER_BOUNDS, screenerKey, screenerValues } from "./token-screener.js";

// The screener's parameters (docs/api.md "Screener filters"): parsing, the key cursors are bound
// to, the bind values of its one condition.

describe("screener parameters", () => {
  test("default: no filter is no screener; the key lists the filters set, in one order, values normalized", () => {
    expect(parseScreener({})).toBeUndefined();
    expect(screenerKey(undefined)).toBe("");
    const a = parseScreener({ max_holders: "009", creator_has_sold: "false", min_market_cap: "10" });
    const b = parseScreener({ min_market_cap: "10", max_holders: "9", creator_has_sold: "false" });
    expect(screenerKey(a)).toBe("min_market_cap=10&max_holders=9&creator_has_sold=false");
    expect(screenerKey(b)).toBe(screenerKey(a));
    expect(screenerKey(parseScreener({ max_holders: "9" }))).not.toBe(screenerKey(a));
  });

  test("behavior: every bound has a bind value (null when not set), so one statement serves any set", () => {
    const values = screenerValues(parseScreener({ max_top10_share_bps: "0" }) ?? { bounds: {} });
    expect(Object.keys(values)).toHaveLength(SCREENER_BOUNDS.length + 1);
    expect(values.s_max_top10_share_bps).toBe("0");
    expect(values.s_min_market_cap).toBeNull();
    expect(values.s_creator_has_sold).toBeNull();
    expect(screenerValues({ bounds: {}, creatorHasSold: true }).s_creator_has_sold).toBe(true);
  });

  test("error: a min above its max names both; equal bounds are allowed", () => {
    expect(() => parseScreener({ min_age_seconds: "5", max_age_seconds: "4" })).toThrow(AppError);
    const error = (() => {
      try {
        parseScreener({ min_volume_24h: "2", max_volume_24h: "1" });
      } catch (caught) {
        return caught as AppError;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error?.code).toBe("invalid_request");
    expect(error?.details?.map((d) => d.field)).toEqual(["min_volume_24h", "max_volume_24h"]);
    expect(parseScreener({ min_holders: "4", max_holders: "4" })?.bounds).toEqual({
      min_holders: 4n,
      max_holders: 4n,
    });
  });
});
