import { aggregatorV3Abi } from "@tmi/shared/chain";
import {
  BaseError,
  type Client,
  createClient,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  HttpRequestError,
  hexToNumber,
  http,
  parseAbi,
  RpcError,
  TimeoutError,
} from "viem";

/** One Chainlink round as returned by `latestRoundData()`. All integers as on chain. */
export interface RoundData {
  roundId: bigint;
  answer: bigint;
  startedAt: bigint;
  updatedAt: bigint;
  answeredInRound: bigint;
}

/** Everything one request reads from the chain, in one HTTP round trip to the RPC. */
export interface FeedSnapshot {
  /** The chain id the RPC (or Multicall3's `getChainId()`, i.e. `block.chainid`) reported. */
  chainId: number;
  /** The ETH/USD feed's address (as configured, lowercase). */
  feed: `0x${string}`;
  /** `decimals()` of the ETH/USD feed. */
  decimals: number;
  /** `latestRoundData()` of the ETH/USD feed. */
  round: RoundData;
  /** `latestRoundData()` of the sequencer uptime feed, when one is configured. */
  sequencer: RoundData | null;
  /** How the values were read: one Multicall3 `aggregate3` call, or a JSON-RPC batch. */
  via: "multicall" | "batch";
}

/** Why a read failed: the RPC timed out, could not be reached or answered with an error, or a feed call reverted or returned data that is not a feed's. */
export type FeedReadFailure =
  | "timeout"
  | "rpc_unreachable"
  | "rpc_error"
  | "call_failed"
  | "invalid_response";

/** Thrown by {@link FeedReader.read} and {@link FeedReader.chainId}; `failure` classifies it, `message` is safe to return to clients. */
export class FeedReadError extends Error {
  readonly failure: FeedReadFailure;
  constructor(failure: FeedReadFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "FeedReadError";
    this.failure = failure;
  }
}

/** Reads the ETH/USD feed (and the optional sequencer uptime feed) fresh on every call; never caches answers. */
export interface FeedReader {
  /** Reads chain id, `decimals()` and `latestRoundData()` (and the sequencer's round) in one round trip. @throws FeedReadError */
  read(): Promise<FeedSnapshot>;
  /** `eth_chainId` of the RPC (for readiness). @throws FeedReadError */
  chainId(): Promise<number>;
  /** Whether reads currently go through Multicall3 (`unknown` until the first probe finishes). */
  multicallState(): "unknown" | "present" | "absent" | "off";
}

/** Options of {@link createFeedReader}. */
export interface FeedReaderOptions {
  rpcUrl: string;
  feedAddress: `0x${string}`;
  sequencerAddress?: `0x${string}` | undefined;
  /** Bound of one read, in milliseconds (HTTP timeout of the RPC request and an outer guard). */
  timeoutMs: number;
  /** `auto`: probe for Multicall3 at `multicallAddress` and use it when present; `off`: always a JSON-RPC batch. */
  multicall: "auto" | "off";
  multicallAddress: `0x${string}`;
  /** How often the Multicall3 probe is repeated (ms, default 10 minutes). */
  multicallProbeIntervalMs?: number;
}

/** The two Multicall3 functions used (https://github.com/mds1/multicall). */
const multicall3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
  "function getChainId() view returns (uint256 chainid)",
]);

const DECIMALS_DATA = encodeFunctionData({ abi: aggregatorV3Abi, functionName: "decimals" });
const LATEST_ROUND_DATA = encodeFunctionData({ abi: aggregatorV3Abi, functionName: "latestRoundData" });
const GET_CHAIN_ID_DATA = encodeFunctionData({ abi: multicall3Abi, functionName: "getChainId" });

/**
 * Creates a {@link FeedReader} over viem's HTTP transport with JSON-RPC batching (calls issued
 * in the same tick share one HTTP request), no retries and `timeoutMs` as the request timeout.
 *
 * Each `read()` is one HTTP round trip:
 * - Multicall3 present (probed with `eth_getCode` in the background, first at the first read and
 *   then every `multicallProbeIntervalMs`): one `eth_call` of `aggregate3` with `getChainId()`,
 *   `decimals()`, `latestRoundData()` (and the sequencer's `latestRoundData()`), all from one block.
 * - Otherwise (e.g. a plain anvil): one JSON-RPC batch of `eth_chainId` and the `eth_call`s.
 * The chain id is thus checked on every request without an extra round trip.
 */
export function createFeedReader(options: FeedReaderOptions): FeedReader {
  const client: Client = createClient({
    transport: http(options.rpcUrl, {
      // Calls of concurrent requests issued in the same tick share one HTTP request: measured on
      // anvil, large batches beat one small batch per request (fewer HTTP round trips).
      batch: { batchSize: 1000, wait: 0 },
      retryCount: 0,
      timeout: options.timeoutMs,
    }),
    cacheTime: 0,
  });
  const feed = options.feedAddress;
  const sequencer = options.sequencerAddress;
  const probeInterval = options.multicallProbeIntervalMs ?? 600_000;

  const aggregateCalls = [
    { target: options.multicallAddress, allowFailure: true, callData: GET_CHAIN_ID_DATA },
    { target: feed, allowFailure: true, callData: DECIMALS_DATA },
    { target: feed, allowFailure: true, callData: LATEST_ROUND_DATA },
    ...(sequencer ? [{ target: sequencer, allowFailure: true, callData: LATEST_ROUND_DATA }] : []),
  ];
  const aggregateData = encodeFunctionData({
    abi: multicall3Abi,
    functionName: "aggregate3",
    args: [aggregateCalls],
  });

  let multicall: "unknown" | "present" | "absent" | "off" = options.multicall === "off" ? "off" : "unknown";
  let probedAt = 0;
  let probing: Promise<void> | null = null;

  const request = <T>(method: string, params?: unknown[]): Promise<T> =>
    (client.request as (args: { method: string; params?: unknown[] }) => Promise<T>)({ method, params });
  const ethCall = (to: `0x${string}`, data: Hex) => request<Hex>("eth_call", [{ to, data }, "latest"]);

  function probeMulticall(): void {
    if (multicall === "off" || probing || Date.now() - probedAt < probeInterval) return;
    probedAt = Date.now();
    probing = request<Hex>("eth_getCode", [options.multicallAddress, "latest"])
      .then((code) => {
        multicall = code && code !== "0x" ? "present" : "absent";
      })
      .catch(() => {
        probedAt = 0; // retry at the next read
      })
      .finally(() => {
        probing = null;
      });
  }

  async function readViaBatch(): Promise<FeedSnapshot> {
    const [chainIdHex, decimalsHex, roundHex, sequencerHex] = await Promise.all([
      request<Hex>("eth_chainId"),
      ethCall(feed, DECIMALS_DATA),
      ethCall(feed, LATEST_ROUND_DATA),
      sequencer ? ethCall(sequencer, LATEST_ROUND_DATA) : Promise.resolve(null),
    ]);
    return {
      chainId: hexToNumber(chainIdHex),
      feed,
      decimals: decodeDecimals(decimalsHex),
      round: decodeRound(roundHex, "latestRoundData()"),
      sequencer: sequencerHex === null ? null : decodeRound(sequencerHex, "sequencer latestRoundData()"),
      via: "batch",
    };
  }

  /** Returns null when Multicall3 turned out to have no code (the caller falls back to a batch). */
  async function readViaMulticall(): Promise<FeedSnapshot | null> {
    const result = await ethCall(options.multicallAddress, aggregateData);
    if (!result || result === "0x") {
      multicall = "absent";
      return null;
    }
    const results = decodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", data: result });
    const part = (index: number, what: string): Hex => {
      const r = results[index];
      if (!r?.success) throw new FeedReadError("call_failed", `${what} reverted`);
      return r.returnData;
    };
    const chainId = decodeFunctionResult({
      abi: multicall3Abi,
      functionName: "getChainId",
      data: part(0, "getChainId()"),
    });
    return {
      chainId: Number(chainId),
      feed,
      decimals: decodeDecimals(part(1, "decimals()")),
      round: decodeRound(part(2, "latestRoundData()"), "latestRoundData()"),
      sequencer: sequencer
        ? decodeRound(part(3, "sequencer latestRoundData()"), "sequencer latestRoundData()")
        : null,
      via: "multicall",
    };
  }

  return {
    async read() {
      probeMulticall();
      return withTimeout(options.timeoutMs, async () => {
        if (multicall === "present") {
          const snapshot = await readViaMulticall();
          if (snapshot) return snapshot;
        }
        return readViaBatch();
      });
    },
    async chainId() {
      return withTimeout(options.timeoutMs, async () => hexToNumber(await request<Hex>("eth_chainId")));
    },
    multicallState: () => multicall,
  };
}

function decodeDecimals(data: Hex): number {
  try {
    return decodeFunctionResult({ abi: aggregatorV3Abi, functionName: "decimals", data });
  } catch (error) {
    throw new FeedReadError(
      "invalid_response",
      "decimals() returned no valid uint8 (is the address a feed?)",
      {
        cause: error,
      },
    );
  }
}

function decodeRound(data: Hex, what: string): RoundData {
  try {
    const [roundId, answer, startedAt, updatedAt, answeredInRound] = decodeFunctionResult({
      abi: aggregatorV3Abi,
      functionName: "latestRoundData",
      data,
    });
    return { roundId, answer, startedAt, updatedAt, answeredInRound };
  } catch (error) {
    throw new FeedReadError("invalid_response", `${what} returned no valid round (is the address a feed?)`, {
      cause: error,
    });
  }
}

/** Runs `fn` with an outer time bound and maps every failure to a {@link FeedReadError}. */
async function withTimeout<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FeedReadError("timeout", `RPC did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([fn(), deadline]);
  } catch (error) {
    throw classify(error, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

function classify(error: unknown, timeoutMs: number): FeedReadError {
  if (error instanceof FeedReadError) return error;
  if (error instanceof BaseError) {
    if (error.walk((e) => e instanceof TimeoutError)) {
      return new FeedReadError("timeout", `RPC did not answer within ${timeoutMs} ms`, { cause: error });
    }
    const rpc = error.walk((e) => e instanceof RpcError) as RpcError | null;
    if (rpc) {
      // -32000/3 with "execution reverted": the call itself failed (not the RPC).
      if (rpc.code === 3 || /revert/i.test(rpc.details ?? rpc.shortMessage)) {
        return new FeedReadError("call_failed", `a feed call reverted: ${rpc.shortMessage}`, {
          cause: error,
        });
      }
      return new FeedReadError("rpc_error", `RPC answered with error ${rpc.code}: ${rpc.shortMessage}`, {
        cause: error,
      });
    }
    const httpError = error.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null;
    if (httpError) {
      return httpError.status
        ? new FeedReadError("rpc_error", `RPC answered with HTTP ${httpError.status}`, { cause: error })
        : new FeedReadError("rpc_unreachable", "RPC could not be reached", { cause: error });
    }
    return new FeedReadError("invalid_response", `unexpected RPC response: ${error.shortMessage}`, {
      cause: error,
    });
  }
  return new FeedReadError("rpc_unreachable", "RPC request failed", { cause: error });
}
