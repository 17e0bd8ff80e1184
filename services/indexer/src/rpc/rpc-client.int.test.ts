import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AnvilProcess, startAnvil } from "@tmi/devnet";
import { encodeAbiParameters } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readImmutable, readTokenLabels, SELECTORS } from "./contract-reads.js";
import { createRpcClient, RpcError } from "./rpc-client.js";

/** Runtime code that returns `abi.encode(value)` for any call (CODECOPY of the data after 12 bytes of code). */
function returnsString(value: string): string {
  const data = encodeAbiParameters([{ type: "string" }], [value]).slice(2);
  const size = (data.length / 2).toString(16).padStart(2, "0");
  if (data.length / 2 > 255) throw new Error("value too long for this stub");
  return `0x60${size}600c600039${`60${size}`}6000f3${data}`;
}

async function raw(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

describe("historical eth_call on a node without old state", () => {
  let anvil: AnvilProcess;
  beforeAll(async () => {
    // --prune-history: anvil keeps no historical states, as a non-archive node after a while.
    anvil = await startAnvil({ args: ["--prune-history"] });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("default", async () => {
    const token = "0x00000000000000000000000000000000000000a1";
    await raw(anvil.rpcUrl, "anvil_setCode", [token, returnsString("Alpha")]);
    await raw(anvil.rpcUrl, "anvil_mine", ["0x1"]);
    const deployedAt = Number.parseInt((await raw(anvil.rpcUrl, "eth_blockNumber", [])) as string, 16);
    await raw(anvil.rpcUrl, "anvil_mine", ["0x5"]);
    const rpc = createRpcClient({ url: anvil.rpcUrl, maxConcurrent: 2, maxAttempts: 2 });
    // The node refuses the old block ...
    await expect(
      rpc.request("eth_call", [{ to: token, data: SELECTORS.name }, `0x${deployedAt.toString(16)}`]),
    ).rejects.toThrow(/block height is \d+ but requested was/);
    // ... and the immutable read answers from the latest block instead of stalling.
    const stats = { historical: 0, latestFallbacks: 0 };
    const labels = await readTokenLabels(rpc, [token], deployedAt, stats);
    expect(labels.get(token)).toEqual({ name: "Alpha", symbol: "Alpha" });
    expect(stats).toEqual({ historical: 0, latestFallbacks: 2 });
    // At the latest block no fallback is needed.
    const latest = await readImmutable(rpc, [{ to: token, data: SELECTORS.name }], "latest", stats);
    expect(latest[0]).toMatch(/^0x0{62}20/);
    expect(stats.historical).toBe(1);
  });

  it("error: a view that fails at the latest block too", async () => {
    const rpc = createRpcClient({ url: anvil.rpcUrl, maxConcurrent: 2, maxAttempts: 2 });
    const nothing = "0x00000000000000000000000000000000000000b2"; // no code: empty result
    await expect(readImmutable(rpc, [{ to: nothing, data: SELECTORS.token0 }], 1)).rejects.toThrow(
      /failed at block 0x1 and at latest/,
    );
    const labels = await readTokenLabels(rpc, [nothing], 1);
    expect(labels.get(nothing)).toEqual({ name: null, symbol: null });
  });
});

describe("rpc client against a node that never answers", () => {
  let server: Server;
  let url: string;
  const pending = new Set<import("node:http").ServerResponse>();
  beforeAll(async () => {
    server = createServer((_req, res) => {
      pending.add(res); // never answered
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of pending) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("behavior: aborting the client's signal rejects the hung call and every waiting one", async () => {
    const controller = new AbortController();
    const rpc = createRpcClient({ url, maxConcurrent: 1, timeoutMs: 600_000, signal: controller.signal });
    const hung = rpc.request("eth_blockNumber", []);
    const waiting = rpc.batch([{ method: "eth_chainId", params: [] }]);
    await expect.poll(() => pending.size).toBeGreaterThan(0);
    controller.abort(new Error("shutdown"));
    const errors = await Promise.all([hung.catch((e) => e), waiting.catch((e) => e)]);
    for (const e of errors) {
      expect(e).toBeInstanceOf(RpcError);
      expect((e as RpcError).aborted).toBe(true);
    }
    await expect(rpc.request("eth_chainId", [])).rejects.toMatchObject({ aborted: true });
  });

  it("error: a call that times out is retried, then fails as retryable", async () => {
    const rpc = createRpcClient({ url, maxConcurrent: 1, timeoutMs: 50, maxAttempts: 2 });
    const error = (await rpc.request("eth_blockNumber", []).catch((e) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/timed out/);
  });
});

describe("rpc client against a node that refuses batches", () => {
  it("behavior: batches are split to maxBatch calls, and a refused batch falls back to one call each", async () => {
    const seen: number[] = []; // calls per request
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      res.setHeader("content-type", "application/json");
      if (Array.isArray(body)) {
        seen.push(body.length);
        // As some providers do above their batch limit: one error object for the whole request.
        if (body.length > 2)
          return res.end(
            JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch too large" } }),
          );
        return res.end(
          JSON.stringify(body.map((b: { id: number }) => ({ jsonrpc: "2.0", id: b.id, result: "0x1" }))),
        );
      }
      seen.push(1);
      res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: "0x1" }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const calls = Array.from({ length: 4 }, () => ({ method: "eth_blockNumber", params: [] }));
      const split = createRpcClient({ url, maxConcurrent: 1, maxBatch: 2 });
      expect(await split.batch(calls)).toEqual(calls.map(() => ({ ok: true, result: "0x1" })));
      expect(seen).toEqual([2, 2]);
      seen.length = 0;
      let refused = 0;
      const whole = createRpcClient({ url, maxConcurrent: 1, maxBatch: 10, onBatchRefused: () => refused++ });
      expect(await whole.batch(calls)).toEqual(calls.map(() => ({ ok: true, result: "0x1" })));
      expect(await whole.batch(calls)).toHaveLength(4);
      expect(seen).toEqual([4, 1, 1, 1, 1, 1, 1, 1, 1]); // refused once, then single calls only
      expect(refused).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
