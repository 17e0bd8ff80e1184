import { describe, expect, it } from "vitest";
import {
  ChainMismatchError,
  DatabaseOutageError,
  DatabaseUnavailableError,
  FatalIndexerError,
  RpcError,
} from "../errors.js";
import { findFirstFailing, isDataError } from "./failed-log-isolation.js";

describe("findFirstFailing", () => {
  it("default", async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const tried: number[] = [];
    const found = await findFirstFailing(items, async (prefix) => {
      tried.push(prefix.length);
      if (prefix.includes(617)) throw new Error("invalid byte sequence");
    });
    expect(found).not.toBeNull();
    expect(found!.index).toBe(617);
    expect((found!.error as Error).message).toBe("invalid byte sequence");
    expect(tried.length).toBeLessThanOrEqual(12); // whole + ⌈log2 1000⌉
  });

  it("behavior: the first and the last item", async () => {
    const items = [1, 2, 3, 4, 5];
    expect((await findFirstFailing(items, async (p) => void (p.includes(1) && fail())))?.index).toBe(0);
    expect((await findFirstFailing(items, async (p) => void (p.includes(5) && fail())))?.index).toBe(4);
  });

  it("error: an error that is not a failure of the items ends the search", async () => {
    const lost = Object.assign(new Error("Connection terminated"), { code: "57P01" });
    let calls = 0;
    const search = findFirstFailing(
      [1, 2, 3, 4],
      async (p) => {
        calls++;
        if (calls > 1) throw lost; // the database went away after the first attempt
        if (p.includes(3)) fail();
      },
      (e) => (e as { code?: string }).code !== "57P01",
    );
    await expect(search).rejects.toBe(lost);
  });

  it("behavior: a failure that is not the items' own blames none", async () => {
    expect(await findFirstFailing([1, 2, 3], async () => fail())).toBeNull();
    expect(await findFirstFailing([1, 2, 3], async () => {})).toBeNull();
    expect(await findFirstFailing([], async () => fail())).toBeNull();
  });
});

describe("isDataError", () => {
  it("default", () => {
    expect(
      isDataError(Object.assign(new Error("unsupported Unicode escape sequence"), { code: "22P05" })),
    ).toBe(true);
    expect(isDataError(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(true);
    expect(isDataError(new RangeError("Invalid array length"))).toBe(true);
  });

  it("error: connection, RPC and chain failures are not the logs' fault", () => {
    expect(isDataError(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))).toBe(false);
    expect(isDataError(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(false);
    const rpc = new RpcError("eth_getLogs: 502", "eth_getLogs", {
      status: 502,
      retryable: true,
      rangeError: false,
    });
    expect(isDataError(rpc)).toBe(false);
    expect(isDataError(new ChainMismatchError("block 5 changed"))).toBe(false);
    expect(isDataError(new FatalIndexerError("reorg too deep"))).toBe(false);
    expect(isDataError(new DatabaseUnavailableError("connection refused"))).toBe(false);
    expect(isDataError(new DatabaseOutageError("unreachable for 60 s"))).toBe(false);
    expect(isDataError(null)).toBe(false);
  });
});

function fail(): never {
  throw new Error("bad log");
}
