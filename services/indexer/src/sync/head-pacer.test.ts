import { describe, expect, it } from "vitest";
import { HeadPacer } from "./head-pacer.js";

const head = (number: number, timestamp: number) => ({
  number,
  timestamp,
  hash: `0x${number}`,
  parentHash: "0x",
});

describe("HeadPacer", () => {
  it("default", () => {
    const pacer = new HeadPacer();
    expect(pacer.quietMs(250)).toBe(250);
    for (let n = 0; n < 5; n++) pacer.observe(head(n, 1000 + 2 * n));
    expect(pacer.quietMs(250)).toBe(1750);
  });

  it("behavior: a chain that mines on demand (0 s intervals) keeps polling every interval", () => {
    const pacer = new HeadPacer();
    for (let n = 0; n < 5; n++) pacer.observe(head(n, 1000));
    expect(pacer.quietMs(250)).toBe(250);
  });

  it("behavior: the median recent interval counts (a burst's 1 s interval does not), skipped heights are spread", () => {
    const pacer = new HeadPacer();
    pacer.observe(head(1, 1000));
    pacer.observe(head(3, 1004)); // 2 s per block
    pacer.observe(head(3, 1004)); // the same head again
    pacer.observe(head(4, 1007)); // a late block (3 s)...
    pacer.observe(head(5, 1008)); // ...and the next in a burst (1 s)
    pacer.observe(head(6, 1010));
    expect(pacer.quietMs(100)).toBe(1900);
  });
});
