import { describe, expect, test } from "vitest";
import { createHeadClock } from "./head-clock.js";

function clockAt(startMs: number) {
  let t = startMs;
  const clock = createHeadClock({ staleAfterMs: 5_000, now: () => t });
  return { clock, advance: (ms: number) => (t += ms), nowS: () => t / 1000 };
}

describe("createHeadClock", () => {
  test("default", () => {
    const { clock, advance } = clockAt(1_000_000);
    expect(clock.state()).toEqual({ knownHead: -1, head: -1, ageSeconds: 0, stale: false });
    clock.observe({ number: 510, timestamp: 996 });
    advance(2_000);
    clock.observe({ number: 512, timestamp: 1_000 });
    expect(clock.blockIntervalSeconds()).toBe(2);
    advance(1_000);
    expect(clock.state()).toEqual({ knownHead: 512, head: 512, ageSeconds: 1, stale: false });
    // Caught up with a fresh head: no lag.
    expect(clock.lag({ number: 512, timestamp: 1_000 })).toEqual({ blocks: 0, seconds: 0 });
    // Behind: wall clock minus the tip's block time.
    expect(clock.lag({ number: 510, timestamp: 996 })).toEqual({ blocks: 2, seconds: 1_003 - 996 });
  });

  test("behavior: a hung node makes the head stale and the lag grow with wall time", () => {
    const { clock, advance } = clockAt(1_000_000);
    clock.observe({ number: 510, timestamp: 996 });
    advance(2_000);
    clock.observe({ number: 512, timestamp: 998 });
    const tip = { number: 512, timestamp: 998 };
    advance(5_000);
    expect(clock.state().stale).toBe(false);
    advance(10_000); // 15 s without a head
    expect(clock.state()).toEqual({ knownHead: 512, head: 512 + 15, ageSeconds: 15, stale: true });
    expect(clock.lag(tip)).toEqual({ blocks: 15, seconds: 1_017 - 998 });
    advance(15_000);
    const later = clock.lag(tip);
    expect(later.blocks).toBe(30);
    expect(later.seconds).toBeGreaterThanOrEqual(30);
    // The node answers again: the known head replaces the estimate.
    clock.observe({ number: 530, timestamp: 1_030 });
    expect(clock.state()).toMatchObject({ head: 530, stale: false, ageSeconds: 0 });
    expect(clock.lag({ number: 530, timestamp: 1_030 })).toEqual({ blocks: 0, seconds: 0 });
  });

  test("behavior: without a known block interval the stale lag is in seconds only", () => {
    const { clock, advance } = clockAt(0);
    clock.observe({ number: 7, timestamp: 100 });
    advance(20_000);
    expect(clock.lag({ number: 7, timestamp: 100 })).toEqual({ blocks: 0, seconds: 20 });
  });
});
