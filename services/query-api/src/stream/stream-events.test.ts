import { compareStreamPositions } from "@tmi/shared/market";
import { describe, expect, it } from "vitest";
import { dataEventId, hash8, parseEventId, sseFrame } from "./stream-events.js";
import { subscriberKey } from "./stream-subscribers.js";

describe("stream events", () => {
  it("default", () => {
    const id = dataEventId(1234n, 5, "0xABCDEF0123456789");
    expect(id).toBe("1234-5-abcdef01");
    expect(dataEventId(1234n, 5, "0xabcdef0123", "1h")).toBe("1234-5-abcdef01-1h");
    expect(parseEventId(id)).toEqual({
      kind: "data",
      position: { block: 1234n, logIndex: 5, sub: 0 },
      hash8: "abcdef01",
    });
    expect(parseEventId("1234-5-abcdef01-1h")?.position).toEqual({ block: 1234n, logIndex: 5, sub: 4 });
    expect(parseEventId("77-reorg-80")).toEqual({
      kind: "marker",
      position: { block: 77n, logIndex: -1, sub: 0 },
    });
    expect(parseEventId("77-reorg-80-1h-1763337600-abcdef01")).toEqual({
      kind: "marker",
      position: { block: 77n, logIndex: -1, sub: 0 },
    });
    expect(parseEventId("78-reset")).toEqual({
      kind: "marker",
      position: { block: 78n, logIndex: -1, sub: 0 },
    });
    expect(sseFrame({ id: "1-2-00000000", name: "trade", data: { a: "x\ny" } })).toBe(
      'id: 1-2-00000000\nevent: trade\ndata: {"a":"x\\ny"}\n\n',
    );
  });

  it("behavior: positions order by block, log index, then kind; equal filters share a key", () => {
    const a = { block: 5n, logIndex: 2, sub: 0 };
    expect(compareStreamPositions(a, { block: 5n, logIndex: 2, sub: 1 })).toBeLessThan(0);
    expect(compareStreamPositions(a, { block: 4n, logIndex: 9, sub: 7 })).toBeGreaterThan(0);
    expect(compareStreamPositions({ block: 5n, logIndex: -1, sub: 0 }, a)).toBeLessThan(0);
    expect(
      subscriberKey({
        tokens: new Set(["0xb", "0xa"]),
        events: new Set(["trade", "candle"]),
        interval: "1m",
      }),
    ).toBe(
      subscriberKey({
        tokens: new Set(["0xa", "0xb"]),
        events: new Set(["candle", "trade"]),
        interval: "1m",
      }),
    );
  });

  it("error: ids not issued by the server do not parse", () => {
    for (const bad of [
      "",
      "abc",
      "1-2",
      "1-2-xyz",
      "1-2-abcdef01-2m",
      "-1-2-abcdef01",
      "1-reorg",
      `${"9".repeat(30)}-1-abcdef01`,
    ]) {
      expect(parseEventId(bad), bad).toBeNull();
    }
    expect(hash8(null)).toBe("00000000");
  });
});
