import { describe, expect, it } from "vitest";
import { LogQueryPlanner } from "./log-strategy.js";

const planner = (setting: "auto" | "emitters" | "topics" = "auto") =>
  new LogQueryPlanner({ setting, addressChunk: 1_000, targetLogs: 5_000 });

/** Feeds requests that cost 20 ms plus 10 µs per log. */
function measure(p: LogQueryPlanner, density: number) {
  for (let i = 0; i < 32; i++) p.observeRequest(20 + i * 300 * 0.01, i * 300);
  p.observeDensity(10, density * 10);
}

describe("LogQueryPlanner", () => {
  it("default", () => {
    const p = planner();
    measure(p, 1_100);
    // The head (1 block): one topic request beats 100 address chunks, and still beats 2.
    expect(p.choose(1, 100_001)).toBe("topics");
    expect(p.choose(1, 1_001)).toBe("topics");
    // One chunk is one request whatever the block count: emitters.
    expect(p.choose(1, 500)).toBe("emitters");
    // History (2,000 blocks = 2.2M chain logs): emitters even at 100k tokens.
    expect(p.choose(2_000, 100_001)).toBe("emitters");
    // At a million (1,001 chunks) topics win up to about 1,000 blocks (1.1M chain logs).
    expect(p.choose(200, 1_000_001)).toBe("topics");
    expect(p.chosen).toEqual({ emitters: 2, topics: 3 });
  });

  it("behavior: the measured cost model is fitted from the requests", () => {
    const p = planner();
    measure(p, 1_100);
    const { requestMs, logMs } = p.costModel();
    expect(requestMs).toBeCloseTo(20, 5);
    expect(logMs).toBeCloseTo(0.01, 5);
    const c = p.costs(1, 10_001);
    expect(c.emitters).toBeCloseTo(11 * 20, 5);
    expect(c.topics).toBeCloseTo(20 + 1_100 * 0.01, 5);
  });

  it("behavior: the crossover moves with the chain's density", () => {
    const quiet = planner();
    measure(quiet, 10);
    const busy = planner();
    measure(busy, 100_000);
    expect(quiet.choose(100, 2_001)).toBe("topics");
    expect(busy.choose(100, 2_001)).toBe("emitters");
  });

  it("behavior: an unmeasured chain is probed by topic on a short range, then re-probed every 64 ranges", () => {
    const p = planner();
    for (let i = 0; i < 32; i++) p.observeRequest(20 + i * 3, i * 300);
    expect(p.choose(1, 1_500)).toBe("topics"); // not measured yet: one probe
    p.observeDensity(1, 1_000_000); // a very busy chain: emitters win from now on
    const picks = Array.from({ length: 64 }, () => p.choose(1, 1_500));
    expect(picks.slice(0, 63).every((s) => s === "emitters")).toBe(true);
    expect(picks[63]).toBe("topics");
    // Long ranges are never probed.
    expect(p.choose(1_000, 1_500)).toBe("emitters");
  });

  it("behavior: a fixed setting is obeyed", () => {
    expect(planner("emitters").choose(1, 1_000_000)).toBe("emitters");
    expect(planner("topics").choose(100_000, 1)).toBe("topics");
    expect(planner("auto").choose(1, 0)).toBe("emitters");
  });
});
