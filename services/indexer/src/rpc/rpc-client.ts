import { webSocket } from "viem";
import { RpcError } from "../errors.js";
import { isRangeError } from "./block-range.js";

export { RpcError };

/** One call of a JSON-RPC batch ({@link RpcClient.batch}). */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** The outcome of one call of a batch: its result, or its error (classified as for `request`). */
export type RpcOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: RpcError };

/** Raw JSON-RPC access (results unformatted: hex quantities). */
export interface RpcClient {
  /** Sends one request with retries (backoff on transport errors, 429, 5xx, timeouts); never retries range errors. */
  request<T = unknown>(method: string, params: unknown[]): Promise<T>;
  /**
   * Sends `calls` as one JSON-RPC batch (http) or concurrently (websocket) and returns one outcome
   * per call, in order. The batch as a whole is retried like `request` on transport failures; the
   * per-call errors are returned, not thrown (the caller decides, e.g. a historical read falling
   * back to the latest block).
   */
  batch<T = unknown>(calls: RpcCall[]): Promise<RpcOutcome<T>[]>;
  /** Subscribes to new heads when the transport supports it (websocket); returns an unsubscribe or null. */
  subscribeNewHeads(onHead: () => void): Promise<(() => void) | null>;
  close(): Promise<void>;
}

export interface RpcClientOptions {
  url: string;
  /** Requests in flight at once (across all callers). */
  maxConcurrent: number;
  timeoutMs?: number;
  maxAttempts?: number;
  /** Called on every failed attempt (metrics). */
  onError?: (error: RpcError) => void;
  /** Calls per JSON-RPC batch request (default 50; providers cap batch sizes). */
  maxBatch?: number;
  /** Called once when the node refuses batches (the client then sends one call per request). */
  onBatchRefused?: (error: RpcError) => void;
  /**
   * Aborts every call in flight or waiting (shutdown): they reject at once with an
   * {@link RpcError} whose `aborted` is true, and no new call starts.
   */
  signal?: AbortSignal;
}

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason);
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiting.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

function abortedError(method: string, cause?: unknown): RpcError {
  return new RpcError(`${method}: aborted (shutting down)`, method, {
    retryable: false,
    rangeError: false,
    aborted: true,
    cause,
  });
}

/** Sleeps `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (the listener is removed when `promise` settles). */
function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function classify(method: string, error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const e = error as { name?: string; message?: string; code?: number; status?: number; details?: string };
  const message = String(e?.details ?? e?.message ?? error);
  const code = typeof e?.code === "number" ? e.code : undefined;
  const rangeError = method === "eth_getLogs" && isRangeError(message, code);
  const timeout = e?.name === "TimeoutError" || e?.name === "AbortError" || /timed? ?out/i.test(message);
  return new RpcError(message, method, {
    code,
    status: e?.status,
    rangeError,
    retryable:
      !rangeError && (timeout || code === undefined || code === -32603 || code === 429 || code === -32005),
    cause: error,
  });
}

let nextId = 1;

/** Classifies a JSON-RPC error object of a response. */
function errorOfBody(method: string, error: { code?: number; message?: string; data?: unknown }): RpcError {
  const message = `${error.message ?? "error"}${error.data ? ` ${JSON.stringify(error.data)}` : ""}`;
  const code = error.code;
  const rangeError = method === "eth_getLogs" && isRangeError(message, code);
  return new RpcError(`${method}: ${message}`, method, {
    code,
    rangeError,
    retryable:
      !rangeError &&
      (code === 429 || code === -32603 || code === -32000 || /rate|limit|busy|timeout/i.test(message)),
  });
}

interface JsonRpcResponse {
  id?: number;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

/** POSTs `body` and returns the parsed JSON; transport, HTTP and JSON failures throw a classified {@link RpcError}. */
async function httpPost(
  url: string,
  method: string,
  body: unknown,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  // One controller per request, linked to the client's signal and a timer (the listener is removed
  // afterwards: the client's signal lives as long as the process).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => controller.abort(signal!.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw abortedError(method, error);
    const reason = controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error);
    throw new RpcError(`${method}: ${reason?.message ?? String(reason)}`, method, {
      retryable: true,
      rangeError: false,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (!response.ok) {
    const rangeError = method === "eth_getLogs" && (response.status === 413 || isRangeError(text));
    throw new RpcError(`${method}: HTTP ${response.status} ${text.slice(0, 300)}`, method, {
      status: response.status,
      rangeError,
      retryable:
        !rangeError && (response.status === 429 || response.status >= 500 || response.status === 408),
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RpcError(`${method}: invalid JSON response`, method, {
      retryable: true,
      rangeError: false,
      cause: error,
    });
  }
}

async function httpRequest(
  url: string,
  method: string,
  params: unknown[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const body = (await httpPost(
    url,
    method,
    { jsonrpc: "2.0", id: nextId++, method, params },
    timeoutMs,
    signal,
  )) as JsonRpcResponse;
  if (body.error) throw errorOfBody(method, body.error);
  return body.result;
}

async function httpBatch(
  url: string,
  calls: RpcCall[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<RpcOutcome[]> {
  const first = nextId;
  nextId += calls.length;
  const label = `batch(${calls[0]?.method ?? ""}×${calls.length})`;
  let body: unknown;
  try {
    body = await httpPost(
      url,
      label,
      calls.map((c, i) => ({ jsonrpc: "2.0", id: first + i, method: c.method, params: c.params })),
      timeoutMs,
      signal,
    );
  } catch (error) {
    const status = (error as RpcError).options?.status;
    if (status === 400 || status === 413)
      throw new RpcError((error as Error).message, label, {
        status,
        retryable: false,
        rangeError: false,
        batchRefused: true,
        cause: error,
      });
    throw error;
  }
  if (!Array.isArray(body)) {
    // A node without batch support (or over its batch size) answers one object for the whole request.
    const error = (body as JsonRpcResponse).error;
    throw new RpcError(
      `${label}: batch refused: ${error ? `${error.message ?? "error"} (${error.code ?? "no code"})` : "not a batch response"}`,
      label,
      { code: error?.code, retryable: false, rangeError: false, batchRefused: true },
    );
  }
  const byId = new Map<number, JsonRpcResponse>();
  for (const item of body as JsonRpcResponse[]) if (typeof item.id === "number") byId.set(item.id, item);
  return calls.map((c, i): RpcOutcome => {
    const item = byId.get(first + i);
    if (!item)
      return {
        ok: false,
        error: new RpcError(`${c.method}: missing from the batch response`, c.method, {
          retryable: true,
          rangeError: false,
        }),
      };
    if (item.error) return { ok: false, error: errorOfBody(c.method, item.error) };
    return { ok: true, result: item.result };
  });
}

/**
 * Creates the JSON-RPC client of the indexer: plain `fetch` for http(s) URLs (no per-call
 * formatting overhead), viem's websocket transport for ws(s) URLs (with `eth_subscribe`
 * newHeads). A semaphore bounds requests in flight; retryable failures back off
 * exponentially (100 ms doubling to 5 s, with jitter) up to `maxAttempts`.
 */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 8;
  const semaphore = new Semaphore(Math.max(1, options.maxConcurrent));
  const isWs = /^wss?:\/\//.test(options.url);
  const ws = isWs
    ? webSocket(options.url, { retryCount: 0, timeout: timeoutMs, keepAlive: true, reconnect: true })({})
    : null;

  const signal = options.signal;
  const maxBatch = Math.max(1, options.maxBatch ?? 50);
  let batchRefused = false;
  const once = async (method: string, params: unknown[]): Promise<unknown> => {
    if (ws) {
      try {
        // viem's websocket transport takes no signal: race it (the socket is closed on shutdown).
        return await raceAbort(ws.request({ method: method as "eth_chainId", params: params as [] }), signal);
      } catch (error) {
        if (signal?.aborted) throw abortedError(method, error);
        throw classify(method, error);
      }
    }
    return httpRequest(options.url, method, params, timeoutMs, signal);
  };

  /** Runs `attempt` under the semaphore with retries and backoff; aborts with `signal`. */
  const withRetries = async <T>(label: string, attempt: () => Promise<T>): Promise<T> => {
    let delay = 100;
    for (let n = 1; ; n++) {
      if (signal?.aborted) throw abortedError(label);
      try {
        await semaphore.acquire(signal);
      } catch (error) {
        throw abortedError(label, error);
      }
      try {
        return await attempt();
      } catch (raw) {
        const error = signal?.aborted ? abortedError(label, raw) : classify(label, raw);
        if (!error.aborted) options.onError?.(error);
        if (!error.retryable || n >= maxAttempts) throw error;
      } finally {
        semaphore.release();
      }
      try {
        await sleep(delay + Math.floor(Math.random() * delay * 0.2), signal);
      } catch (error) {
        throw abortedError(label, error);
      }
      delay = Math.min(5_000, delay * 2);
    }
  };

  return {
    request<T>(method: string, params: unknown[]): Promise<T> {
      return withRetries(method, () => once(method, params) as Promise<T>);
    },
    async batch<T>(calls: RpcCall[]): Promise<RpcOutcome<T>[]> {
      if (calls.length === 0) return [];
      const one = (c: RpcCall) =>
        withRetries(c.method, () => once(c.method, c.params)).then(
          (result): RpcOutcome<T> => ({ ok: true, result: result as T }),
          (error): RpcOutcome<T> => {
            if ((error as RpcError).aborted) throw error;
            return { ok: false, error: classify(c.method, error) };
          },
        );
      if (ws || batchRefused) return Promise.all(calls.map(one));
      const chunks: RpcCall[][] = [];
      for (let i = 0; i < calls.length; i += maxBatch) chunks.push(calls.slice(i, i + maxBatch));
      const parts = await Promise.all(
        chunks.map(async (chunk) => {
          try {
            return (await withRetries(`batch(${chunk[0]!.method}×${chunk.length})`, () =>
              httpBatch(options.url, chunk, timeoutMs, signal),
            )) as RpcOutcome<T>[];
          } catch (error) {
            if ((error as RpcError).aborted || !(error as RpcError).batchRefused) throw error;
            // The node (or a proxy in front of it) takes no batches, or not this large: one call each from now on.
            batchRefused = true;
            options.onBatchRefused?.(error as RpcError);
            return Promise.all(chunk.map(one));
          }
        }),
      );
      // Calls the node failed inside a batch for a transient reason (rate limit, busy) are retried alone.
      const outcomes = parts.flat();
      await Promise.all(
        outcomes.map(async (o, i) => {
          if (!o.ok && o.error.retryable) outcomes[i] = await one(calls[i]!);
        }),
      );
      return outcomes;
    },
    async subscribeNewHeads(onHead) {
      if (!ws) return null;
      const { unsubscribe } = await ws.value!.subscribe({
        params: ["newHeads"],
        onData: () => onHead(),
        onError: () => onHead(),
      });
      return () => {
        void unsubscribe().catch(() => {});
      };
    },
    async close() {
      if (ws) {
        const client = await ws.value?.getRpcClient().catch(() => null);
        client?.close();
      }
    },
  };
}

/** A block header as the indexer uses it. */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
}

/** Raw `eth_getBlockByNumber` result (hex quantities). */
export interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  transactions?: (string | { hash: string; from: string })[];
}

/** Converts a raw block to a {@link BlockHeader}. */
export function toHeader(block: RpcBlock): BlockHeader {
  return {
    number: Number.parseInt(block.number, 16),
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    timestamp: Number.parseInt(block.timestamp, 16),
  };
}

/** `0x`-hex quantity of a block number. */
export function toQuantity(n: number): string {
  return `0x${n.toString(16)}`;
}
