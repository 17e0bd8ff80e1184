import { describe, expect, it } from "vitest";
import { TOPIC0 } from "../events/index.js";
import { decodedEvent } from "../testing/synthetic-chain.js";
import {
  EmitterSet,
  emitterFilters,
  GENERIC_TOPICS,
  genericTopicFilter,
  PLATFORM_TOPICS,
  platformFilter,
} from "./log-filter.js";

const FACTORY = "0x00000000000000000000000000000000000000fa";
const FEED = "0x00000000000000000000000000000000000000fe";
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

const event = decodedEvent;

const launch = (emitter: string, token: string, curve: string, pool: string) =>
  event("TokenLaunchedV3", emitter, { creator: addr(1), token, curve, canonicalPool: pool });

describe("log filter", () => {
  it("default", () => {
    // The generic signatures are not in the platform query (by emitter, or by topic alone filtered
    // in memory: genericTopicFilter); every other one is.
    expect(PLATFORM_TOPICS).not.toContain(TOPIC0.Transfer);
    expect(PLATFORM_TOPICS).not.toContain(TOPIC0.Swap);
    expect(PLATFORM_TOPICS).not.toContain(TOPIC0.AnswerUpdated);
    expect(PLATFORM_TOPICS).toEqual(
      expect.arrayContaining([
        TOPIC0.TokenLaunchedV3,
        TOPIC0.TokensBought,
        TOPIC0.Graduated,
        TOPIC0.GraduatedV3,
      ]),
    );
    expect(platformFilter()).toEqual({ topics: [PLATFORM_TOPICS] });
    expect(GENERIC_TOPICS).toEqual([TOPIC0.Transfer, TOPIC0.Swap, TOPIC0.AnswerUpdated]);
    expect(genericTopicFilter()).toEqual({ topics: [GENERIC_TOPICS] });

    // Requests per range: one platform query + ⌈addresses / chunk⌉ generic ones.
    for (const [tokens, expected] of [
      [1_000, 2],
      [10_000, 11],
      [100_000, 101],
    ] as const) {
      const set = new EmitterSet(FACTORY, { proxy: null, aggregators: [FEED] });
      for (let i = 0; i < tokens; i++)
        set.add({
          token: addr(i + 100),
          curve: addr(i + 10_000_000),
          pool: addr(i + 20_000_000),
          graduated: false,
        });
      const filters = emitterFilters(set.addresses(), 1_000);
      expect(filters).toHaveLength(expected);
      expect(Math.max(...filters.map((f) => f.address!.length))).toBeLessThanOrEqual(1_000);
      expect(filters.flatMap((f) => f.address)).toHaveLength(tokens + 1);
    }
    expect(emitterFilters([], 1_000)).toEqual([]);
  });

  it("behavior: launches from the factory and graduations from known curves grow the set", () => {
    const set = new EmitterSet(FACTORY, null);
    const [token, curve, pool] = [addr(0xa1), addr(0xc1), addr(0xb1)];
    expect(set.discover([launch(FACTORY, token, curve, pool)])).toEqual([token]);
    expect(set.tokens.has(token)).toBe(true);
    expect(set.pools.has(pool)).toBe(false); // pool swaps only after graduation
    const graduated = event("Graduated", curve, { token, graduationManager: addr(0x99) }, 5);
    expect(set.discover([graduated])).toEqual([pool]);
    expect(set.addresses()).toEqual([token, pool]);
    // Idempotent.
    expect(set.discover([launch(FACTORY, token, curve, pool), graduated])).toEqual([]);
    // A launch and its graduation in the same range.
    const other = new EmitterSet(FACTORY, null);
    expect(other.discover([launch(FACTORY, token, curve, pool), graduated])).toEqual([token, pool]);
  });

  it("behavior: an impostor cannot make the indexer pull other contracts' logs", () => {
    const set = new EmitterSet(FACTORY, null);
    const impostor = addr(0xbad);
    const popular = addr(0x4200); // e.g. a busy ERC-20
    expect(set.discover([launch(impostor, popular, addr(0xc2), addr(0xb2))])).toEqual([]);
    const [token, curve, pool] = [addr(0xa1), addr(0xc1), addr(0xb1)];
    set.discover([launch(FACTORY, token, curve, pool)]);
    // Graduated from a contract that is not the token's curve, or for another token: ignored.
    expect(set.discover([event("Graduated", impostor, { token, graduationManager: addr(1) })])).toEqual([]);
    expect(set.discover([event("Graduated", curve, { token: popular, graduationManager: addr(1) })])).toEqual(
      [],
    );
    expect(set.addresses()).toEqual([token]);
  });

  it("behavior: a set seeded by address asks for the curve of a token it sees graduate, then follows its pool", () => {
    const set = new EmitterSet(FACTORY, { proxy: null, aggregators: [FEED] });
    const [token, curve, pool, graduatedPool] = [addr(0xa1), addr(0xc1), addr(0xb1), addr(0xb9)];
    set.seed([token, addr(0xa2)], [graduatedPool]);
    expect(set.has(token)).toBe(true);
    expect(set.has(graduatedPool)).toBe(true);
    expect(set.has(FEED)).toBe(true);
    expect(set.has(pool)).toBe(false);
    const graduated = event("Graduated", curve, { token, graduationManager: addr(0x99) }, 5);
    // Not for an unknown token, nor once the curve is known.
    expect(
      set.unresolved([event("Graduated", curve, { token: addr(0x4200), graduationManager: addr(1) })]),
    ).toEqual([]);
    expect(set.unresolved([graduated, graduated])).toEqual([token]);
    expect(set.discover([graduated])).toEqual([]); // the curve is not known yet: nothing is trusted
    set.add({ token, curve, pool, graduated: false }); // what the lookup returns
    expect(set.unresolved([graduated])).toEqual([]);
    expect(set.discover([graduated])).toEqual([pool]);
    expect(set.has(pool)).toBe(true);
  });

  it("behavior: a partial set asks about the addresses it meets once, and keeps what it learns", async () => {
    const set = new EmitterSet("0xfactory", null);
    set.seed(["0xa"], []);
    set.partial(1_000_000);
    expect(set.size).toBe(1_000_000);
    const asked: string[][] = [];
    const lookup = async (addresses: string[]) => {
      asked.push([...addresses].sort());
      return { tokens: addresses.filter((a) => a === "0xb"), pools: addresses.filter((a) => a === "0xp") };
    };
    expect(await set.resolve(["0xa", "0xb", "0xc", "0xp"], lookup)).toBe(3);
    expect(asked).toEqual([["0xb", "0xc", "0xp"]]);
    expect([set.has("0xb"), set.has("0xp"), set.has("0xc")]).toEqual([true, true, false]);
    expect(set.pools.has("0xp")).toBe(true);
    // Known and known-absent addresses are not asked about again.
    expect(await set.resolve(["0xa", "0xb", "0xc"], lookup)).toBe(0);
    expect(asked).toHaveLength(1);
    // A complete set never asks.
    const full = new EmitterSet("0xfactory", null);
    expect(await full.resolve(["0xz"], lookup)).toBe(0);
  });

  it("behavior: the feed proxy's AggregatorConfirmed adds its new aggregator, in the range that confirms it; another contract's does not", () => {
    const proxy = addr(0xf0);
    const [first, next, impostor] = [addr(0xf1), addr(0xf2), addr(0xf3)];
    const set = new EmitterSet(FACTORY, { proxy, aggregators: [first] });
    expect(set.addresses()).toEqual([first]);
    expect(PLATFORM_TOPICS).toContain(TOPIC0.AggregatorConfirmed); // fetched by topic, before the generic query
    const confirmed = (emitter: string, latest: string) =>
      event("AggregatorConfirmed", emitter, { previous: first, latest });
    expect(set.discover([confirmed(addr(0x66), impostor)])).toEqual([]);
    expect(set.discover([confirmed(proxy, next)])).toEqual([next]);
    expect(set.discover([confirmed(proxy, next)])).toEqual([]);
    expect(set.has(next)).toBe(true);
    expect(set.has(impostor)).toBe(false);
    expect(set.clone().addresses()).toEqual([first, next]);
    expect(set.size).toBe(2);
  });
});
