import { describe, expect, it } from "vitest";
import { evaluateEthUsd, FUTURE_TOLERANCE_SECONDS, isoSeconds, toPriceDecimals } from "./eth-usd-policy.js";
import type { FeedSnapshot, RoundData } from "./feed-reader.js";

const NOW = 1_800_000_000;
const FEED = "0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70" as const;
const policy = { chainId: 8453, maxAgeSeconds: 1800, sequencerGraceSeconds: 3600 };

function round(overrides: Partial<RoundData> = {}): RoundData {
  return {
    roundId: 10n,
    answer: 301245000000n,
    startedAt: BigInt(NOW - 60),
    updatedAt: BigInt(NOW - 60),
    answeredInRound: 10n,
    ...overrides,
  };
}
function snapshot(overrides: Partial<FeedSnapshot> = {}): FeedSnapshot {
  return {
    chainId: 8453,
    feed: FEED,
    decimals: 8,
    round: round(),
    sequencer: null,
    via: "batch",
    ...overrides,
  };
}
function fields(result: ReturnType<typeof evaluateEthUsd>): string[] {
  return result.ok ? [] : result.details.map((d) => d.field);
}

describe("evaluateEthUsd", () => {
  it("default", () => {
    expect(evaluateEthUsd(snapshot(), policy, NOW)).toEqual({
      ok: true,
      price: {
        price: "3012.45000000",
        price_decimals: 8,
        updated_at: "2027-01-15T07:59:00Z",
        feed: FEED,
        source: "chainlink_eth_usd",
        max_age_seconds: 1800,
        decimals: 8,
        chain_id: 8453,
        updated_at_unix: NOW - 60,
      },
    });
  });

  it("behavior: an 18-decimal answer is floored to 8 fractional digits, without floating point", () => {
    const result = evaluateEthUsd(
      snapshot({ decimals: 18, round: round({ answer: 3012456789019999999999n }) }),
      policy,
      NOW,
    );
    expect(result.ok && result.price).toMatchObject({
      price: "3012.45678901",
      price_decimals: 8,
      decimals: 8,
    });
  });
});

describe("toPriceDecimals", () => {
  it("default", () => {
    expect(toPriceDecimals(301245678901n, 8)).toBe("3012.45678901");
  });

  it("behavior: pads fewer decimals and floors more, also for tiny and negative values", () => {
    expect(toPriceDecimals(3012n, 0)).toBe("3012.00000000");
    expect(toPriceDecimals(3012456n, 3)).toBe("3012.45600000");
    expect(toPriceDecimals(1n, 18)).toBe("0.00000000");
    expect(toPriceDecimals(10n ** 10n - 1n, 18)).toBe("0.00000000");
    expect(toPriceDecimals(10n ** 10n, 18)).toBe("0.00000001");
    expect(toPriceDecimals(-1n, 9)).toBe("-0.00000001");
  });
});

describe("isoSeconds", () => {
  it("default", () => {
    expect(isoSeconds(1_786_788_000)).toBe("2026-08-15T10:00:00Z");
    expect(isoSeconds(0)).toBe("1970-01-01T00:00:00Z");
  });
});

describe("evaluateEthUsd rules", () => {
  it("behavior: accepts an answer exactly max age old and a sequencer up exactly the grace period", () => {
    const result = evaluateEthUsd(
      snapshot({
        round: round({ updatedAt: BigInt(NOW - 1800) }),
        sequencer: round({ answer: 0n, startedAt: BigInt(NOW - 3600) }),
      }),
      policy,
      NOW,
    );
    expect(result.ok).toBe(true);
  });

  it("error: wrong chain id is reported alone", () => {
    const result = evaluateEthUsd(snapshot({ chainId: 31337, round: round({ answer: 0n }) }), policy, NOW);
    expect(result).toEqual({
      ok: false,
      details: [{ field: "chain_id", reason: expect.stringContaining("31337") }],
    });
  });

  it("error: answer zero or negative", () => {
    expect(fields(evaluateEthUsd(snapshot({ round: round({ answer: 0n }) }), policy, NOW))).toEqual([
      "answer",
    ]);
    expect(fields(evaluateEthUsd(snapshot({ round: round({ answer: -1n }) }), policy, NOW))).toEqual([
      "answer",
    ]);
  });

  it("error: incomplete rounds", () => {
    expect(fields(evaluateEthUsd(snapshot({ round: round({ updatedAt: 0n }) }), policy, NOW))).toEqual([
      "round",
    ]);
    expect(fields(evaluateEthUsd(snapshot({ round: round({ answeredInRound: 9n }) }), policy, NOW))).toEqual([
      "round",
    ]);
  });

  it("error: stale and future answers", () => {
    expect(
      fields(evaluateEthUsd(snapshot({ round: round({ updatedAt: BigInt(NOW - 1801) }) }), policy, NOW)),
    ).toEqual(["updated_at"]);
    const future = BigInt(NOW + FUTURE_TOLERANCE_SECONDS + 1);
    expect(fields(evaluateEthUsd(snapshot({ round: round({ updatedAt: future }) }), policy, NOW))).toEqual([
      "updated_at",
    ]);
  });

  it("error: sequencer down, unknown, invalid or within the grace period", () => {
    const seq = (answer: bigint, startedAt: number) =>
      snapshot({ sequencer: round({ answer, startedAt: BigInt(startedAt) }) });
    expect(fields(evaluateEthUsd(seq(1n, NOW - 10_000), policy, NOW))).toEqual(["sequencer"]);
    expect(fields(evaluateEthUsd(seq(2n, NOW - 10_000), policy, NOW))).toEqual(["sequencer"]);
    expect(fields(evaluateEthUsd(seq(0n, 0), policy, NOW))).toEqual(["sequencer"]);
    expect(fields(evaluateEthUsd(seq(0n, NOW - 3599), policy, NOW))).toEqual(["sequencer"]);
  });

  it("behavior: lists every failing rule", () => {
    const result = evaluateEthUsd(
      snapshot({
        round: round({ answer: -5n, updatedAt: BigInt(NOW - 9999) }),
        sequencer: round({ answer: 1n }),
      }),
      policy,
      NOW,
    );
    expect(fields(result)).toEqual(["sequencer", "answer", "updated_at"]);
  });
});
