import { describe, expect, test } from "vitest";
import { selectEvents } from "../select/select-events.js";
import { addr, decodedEvent } from "../testing/synthetic-chain.js";
import { KnownState } from "./known-state.js";

const PROXY = addr(0xf0);
const [FIRST, SECOND, NEXT, IMPOSTOR] = [addr(0xf1), addr(0xf2), addr(0xf3), addr(0xf4)];

const answer = (aggregator: string, logIndex: number) =>
  decodedEvent("AnswerUpdated", aggregator, { current: 3_000n, roundId: 1n, updatedAt: 1n }, logIndex);
const confirmed = (proxy: string, latest: string, logIndex: number) =>
  decodedEvent("AggregatorConfirmed", proxy, { previous: SECOND, latest }, logIndex);

describe("selectEvents: the ETH/USD feed", () => {
  test("default: answers of every phase's aggregator count; another contract's do not", () => {
    const state = new KnownState(addr(0xfac), addr(0xffff), { proxy: PROXY, aggregators: [FIRST, SECOND] });
    const { events } = selectEvents([answer(FIRST, 0), answer(SECOND, 1), answer(IMPOSTOR, 2)], state);
    expect(events.map((e) => e.address)).toEqual([FIRST, SECOND]);
  });

  test("behavior: the proxy's AggregatorConfirmed adds the new aggregator; an impostor's confirmation adds nothing", () => {
    const state = new KnownState(addr(0xfac), addr(0xffff), { proxy: PROXY, aggregators: [FIRST, SECOND] });
    const { events } = selectEvents(
      [confirmed(IMPOSTOR, IMPOSTOR, 0), confirmed(PROXY, NEXT, 1), answer(NEXT, 2), answer(IMPOSTOR, 3)],
      state,
    );
    expect(events.map((e) => [e.name, e.address])).toEqual([
      ["AggregatorConfirmed", PROXY],
      ["AnswerUpdated", NEXT],
    ]);
    expect([...state.feedAggregators]).toEqual([FIRST, SECOND, NEXT]);
  });

  test("behavior: without a proxy (the feed is an aggregator) no confirmation counts", () => {
    const state = new KnownState(addr(0xfac), addr(0xffff), { proxy: null, aggregators: [FIRST] });
    const { events } = selectEvents([confirmed(FIRST, NEXT, 0), answer(NEXT, 1), answer(FIRST, 2)], state);
    expect(events.map((e) => e.address)).toEqual([FIRST]);
  });
});
