import { describe, expect, it } from "vitest";
import { evaluateEthUsd, FUTURE_TOLERANCE_SECONDS } from "./eth-usd-policy.js";
import type { FeedSnapshot, RoundData } from "./feed-reader.js";

const NOW = 1_800_000_000;
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
  return { chainId: 8453, decimals: 8, round: round(), sequencer: null, via: "batch", ...overrides };
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
        decimals: 8,
        updated_at: NOW - 60,
        source: "chainlink_eth_usd",
        chain_id: 8453,
      },
    });
  });

  it("behavior: formats 18-decimal answers exactly, without floating point", () => {
    const result = evaluateEthUsd(
      snapshot({ decimals: 18, round: round({ answer: 3012450000000000000001n }) }),
      policy,
      NOW,
    );
    expect(result.ok && result.price.price).toBe("3012.450000000000000001");
  });

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
