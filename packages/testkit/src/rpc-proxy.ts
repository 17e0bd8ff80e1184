// Owner: indexer (services/indexer). A JSON-RPC proxy that counts calls, caps eth_getLogs results
// and injects transport faults (held requests, dropped connections, HTTP errors).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Options of {@link startRpcProxy}. */
export interface RpcProxyOptions {
  /** The node's http(s) URL. */
  target: string;
  /**
   * Largest `eth_getLogs` result passed through; a larger one is answered as providers do
   * (code −32005, "query returned more than N results"). Default: no cap.
   */
  maxLogs?: number;
  /** Methods whose calls' params are kept for {@link RpcProxy.paramsOf} (default none). */
  record?: string[];
}

/**
 * A transport fault injected by {@link RpcProxy.fail} into requests that carry one of `methods`
 * (every request when omitted):
 * - `hang`: the request is held unanswered until the client gives up or the proxy closes (a node
 *   that stops answering: the client's timeout);
 * - `drop`: the connection is destroyed without an answer (a reset connection);
 * - `status`: answered with HTTP `status` (default 503) and a text body (an overloaded provider).
 */
export interface RpcFault {
  mode: "hang" | "drop" | "status";
  methods?: string[];
  status?: number;
}

/** A running proxy (see {@link startRpcProxy}). */
export interface RpcProxy {
  url: string;
  /** JSON-RPC calls by method (each call of a batch counted), since start or {@link reset}. */
  readonly calls: Map<string, number>;
  /** HTTP requests (a batch is one). */
  readonly requests: number;
  /** `eth_getLogs` calls refused for exceeding `maxLogs`. */
  readonly refused: number;
  /** Requests that met the fault set by {@link fail}. */
  readonly faulted: number;
  /** The params of every call of `method` (one of `record`) since start or {@link reset}, oldest first. */
  paramsOf(method: string): unknown[][];
  /** Injects `fault` into the following requests (null: none, the default). */
  fail(fault: RpcFault | null): void;
  /** Total calls of every method. */
  total(): number;
  /** Zeroes the counters. */
  reset(): void;
  close(): Promise<void>;
}

interface JsonRpcCall {
  id: unknown;
  method: string;
  params?: unknown[];
}

/**
 * Starts a JSON-RPC proxy on 127.0.0.1 in front of `target`: every call is counted by method and
 * forwarded; `eth_getLogs` results above `maxLogs` are replaced by a provider-style result-cap
 * error, as public providers (10,000 logs per call is common) answer; {@link RpcProxy.fail} injects
 * transport faults. For integration tests and benchmarks of the indexer's request budget, and tests
 * of what a service does when its node fails.
 */
export async function startRpcProxy(options: RpcProxyOptions): Promise<RpcProxy> {
  const calls = new Map<string, number>();
  const params = new Map<string, unknown[][]>();
  const state = { requests: 0, refused: 0, faulted: 0, fault: null as RpcFault | null };
  const cap = options.maxLogs ?? Number.POSITIVE_INFINITY;
  const capError = (id: unknown) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32005, message: `query returned more than ${cap} results` },
  });
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      state.requests++;
      let parsed: JsonRpcCall | JsonRpcCall[];
      try {
        parsed = JSON.parse(body.toString("utf8")) as JsonRpcCall | JsonRpcCall[];
      } catch {
        res.writeHead(400).end();
        return;
      }
      const list = Array.isArray(parsed) ? parsed : [parsed];
      for (const c of list) {
        calls.set(c.method, (calls.get(c.method) ?? 0) + 1);
        if (options.record?.includes(c.method)) {
          const kept = params.get(c.method) ?? [];
          params.set(c.method, kept);
          kept.push(c.params ?? []);
        }
      }
      const fault = state.fault;
      if (fault && (!fault.methods || list.some((c) => fault.methods?.includes(c.method)))) {
        state.faulted++;
        if (fault.mode === "drop") req.socket.destroy();
        else if (fault.mode === "status") res.writeHead(fault.status ?? 503).end("injected fault");
        // `hang`: no answer; closeAllConnections() at close ends the request.
        return;
      }
      const upstream = await fetch(options.target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const text = await upstream.text();
      if (!list.some((c) => c.method === "eth_getLogs") || !Number.isFinite(cap)) {
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
        return;
      }
      const answer = JSON.parse(text) as
        | { id: unknown; result?: unknown }
        | { id: unknown; result?: unknown }[];
      const capped = (Array.isArray(answer) ? answer : [answer]).map((a) => {
        const call = list.find((c) => c.id === a.id);
        if (call?.method !== "eth_getLogs" || !Array.isArray(a.result) || a.result.length <= cap) return a;
        state.refused++;
        return capError(a.id);
      });
      res
        .writeHead(upstream.status, { "content-type": "application/json" })
        .end(JSON.stringify(Array.isArray(answer) ? capped : capped[0]));
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    get requests() {
      return state.requests;
    },
    get refused() {
      return state.refused;
    },
    get faulted() {
      return state.faulted;
    },
    paramsOf: (method) => params.get(method) ?? [],
    fail(fault) {
      state.fault = fault;
    },
    total() {
      let n = 0;
      for (const v of calls.values()) n += v;
      return n;
    },
    reset() {
      calls.clear();
      params.clear();
      state.requests = 0;
      state.refused = 0;
      state.faulted = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
