import { webSocket } from "viem";
import { isRangeError } from "./block-range.js";

/** An RPC failure, classified for the retry and range logic. */
export class RpcError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly options: {
      code?: number;
      status?: number;
      retryable: boolean;
      rangeError: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { cause: options.cause });
    this.name = "RpcError";
  }
  get retryable(): boolean {
    return this.options.retryable;
  }
  get rangeError(): boolean {
    return this.options.rangeError;
  }
}

/** Raw JSON-RPC access (results unformatted: hex quantities). */
export interface RpcClient {
  /** Sends one request with retries (backoff on transport errors, 429, 5xx, timeouts); never retries range errors. */
  request<T = unknown>(method: string, params: unknown[]): Promise<T>;
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
}

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
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

async function httpRequest(
  url: string,
  method: string,
  params: unknown[],
  timeoutMs: number,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new RpcError(`${method}: ${(error as Error).message}`, method, {
      retryable: true,
      rangeError: false,
      cause: error,
    });
  }
  const text = await response.text();
  if (!response.ok) {
    const rangeError = method === "eth_getLogs" && (response.status === 413 || isRangeError(text));
    throw new RpcError(`${method}: HTTP ${response.status} ${text.slice(0, 300)}`, method, {
      status: response.status,
      rangeError,
      retryable:
        !rangeError && (response.status === 429 || response.status >= 500 || response.status === 408),
    });
  }
  let body: { result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new RpcError(`${method}: invalid JSON response`, method, {
      retryable: true,
      rangeError: false,
      cause: error,
    });
  }
  if (body.error) {
    const message = `${body.error.message ?? "error"}${body.error.data ? ` ${JSON.stringify(body.error.data)}` : ""}`;
    const code = body.error.code;
    const rangeError = method === "eth_getLogs" && isRangeError(message, code);
    throw new RpcError(`${method}: ${message}`, method, {
      code,
      rangeError,
      retryable:
        !rangeError &&
        (code === 429 || code === -32603 || code === -32000 || /rate|limit|busy|timeout/i.test(message)),
    });
  }
  return body.result;
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

  const once = async (method: string, params: unknown[]): Promise<unknown> => {
    if (ws) {
      try {
        return await ws.request({ method: method as "eth_chainId", params: params as [] });
      } catch (error) {
        throw classify(method, error);
      }
    }
    return httpRequest(options.url, method, params, timeoutMs);
  };

  return {
    async request<T>(method: string, params: unknown[]): Promise<T> {
      let delay = 100;
      for (let attempt = 1; ; attempt++) {
        await semaphore.acquire();
        try {
          return (await once(method, params)) as T;
        } catch (raw) {
          const error = classify(method, raw);
          options.onError?.(error);
          if (!error.retryable || attempt >= maxAttempts) throw error;
        } finally {
          semaphore.release();
        }
        await new Promise((r) => setTimeout(r, delay + Math.floor(Math.random() * delay * 0.2)));
        delay = Math.min(5_000, delay * 2);
      }
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
