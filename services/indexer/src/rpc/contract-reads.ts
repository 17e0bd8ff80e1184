import { aggregatorV3Abi } from "@tmi/shared/chain";
import { decodeAbiParameters, decodeFunctionResult, type Hex, toFunctionSelector } from "viem";
import { type RpcClient, RpcError, toQuantity } from "./rpc-client.js";

/** One `eth_call` of a view whose result never changes after the contract's deployment. */
export interface ImmutableCall {
  to: string;
  /** ABI-encoded call data (selector + arguments). */
  data: string;
}

/** Selectors of the immutable views the indexer reads. */
export const SELECTORS = Object.freeze({
  name: toFunctionSelector("name()"),
  symbol: toFunctionSelector("symbol()"),
  token0: toFunctionSelector("token0()"),
  weth: toFunctionSelector("weth()"),
  graduationManager: toFunctionSelector("graduationManager()"),
  feeManager: toFunctionSelector("feeManager()"),
  traderRewardsVault: toFunctionSelector("traderRewardsVault()"),
  distributor: toFunctionSelector("distributor()"),
  aggregator: toFunctionSelector("aggregator()"),
  phaseId: toFunctionSelector("phaseId()"),
  latestRoundData: toFunctionSelector("latestRoundData()"),
});

/** What {@link readImmutable} did, for metrics and logs. */
export interface ImmutableReadStats {
  /** Calls answered at the requested block. */
  historical: number;
  /** Calls that failed at the requested block (state pruned, non-archive node) and were read at `latest`. */
  latestFallbacks: number;
}

/**
 * Reads views that never change once a contract exists (ERC-20 `name()`/`symbol()`, a pool's
 * `token0()`, a factory's manager addresses) at `block`, in one JSON-RPC batch. A call that fails
 * there, or returns nothing (a node without that block's state: "block height is N but requested
 * was M", "missing trie node", "header not found", …), is read again at `latest`, also batched:
 * the value is the same, so indexing never stalls on a node without old state.
 * Returns the raw results (0x hex) in the order of `calls`; with `allowFailure`, null for a call
 * that fails at `latest` too.
 * @throws RpcError when a call fails at `latest` too (without `allowFailure`), or when the
 * transport fails after retries.
 */
export async function readImmutable(
  rpc: RpcClient,
  calls: ImmutableCall[],
  block: number | "latest",
  stats?: ImmutableReadStats,
): Promise<string[]>;
export async function readImmutable(
  rpc: RpcClient,
  calls: ImmutableCall[],
  block: number | "latest",
  stats: ImmutableReadStats | undefined,
  options: { allowFailure: true },
): Promise<(string | null)[]>;
export async function readImmutable(
  rpc: RpcClient,
  calls: ImmutableCall[],
  block: number | "latest",
  stats?: ImmutableReadStats,
  options?: { allowFailure: true },
): Promise<(string | null)[]> {
  if (calls.length === 0) return [];
  const tag = typeof block === "number" ? toQuantity(block) : block;
  const first = await rpc.batch<string>(calls.map((c) => ({ method: "eth_call", params: [c, tag] })));
  const results: (string | null)[] = first.map((o) => (o.ok && isAnswer(o.result) ? o.result : null));
  const retry = results.flatMap((r, i) => (r === null ? [i] : []));
  if (stats) stats.historical += calls.length - retry.length;
  if (retry.length > 0 && tag !== "latest") {
    if (stats) stats.latestFallbacks += retry.length;
    const second = await rpc.batch<string>(
      retry.map((i) => ({ method: "eth_call", params: [calls[i]!, "latest"] })),
    );
    second.forEach((o, j) => {
      if (o.ok && isAnswer(o.result)) results[retry[j]!] = o.result;
    });
  }
  return results.map((r, i) => {
    if (r !== null || options?.allowFailure) return r;
    const failed = first[i]!;
    const cause = failed.ok ? "empty result" : failed.error.message;
    throw new RpcError(
      `eth_call ${calls[i]!.data.slice(0, 10)} on ${calls[i]!.to} failed at block ${tag} and at latest: ${cause}`,
      "eth_call",
      { retryable: false, rangeError: false },
    );
  });
}

/** A non-empty `eth_call` result (a node without the block's state may answer `0x`). */
function isAnswer(result: unknown): result is string {
  return typeof result === "string" && result.length > 2;
}

/** Decodes an ABI `string` return value; bytes that are not UTF-8 become U+FFFD (the caller sanitizes further). */
export function decodeStringResult(hex: string): string {
  const [value] = decodeAbiParameters([{ type: "string" }], hex as Hex);
  return value;
}

/** Decodes an ABI `address` return value (lowercase). */
export function decodeAddressResult(hex: string): string {
  if (hex.length < 66) throw new Error(`not an address result: ${hex.slice(0, 80)}`);
  return `0x${hex.slice(26, 66)}`.toLowerCase();
}

/** Name and symbol of an ERC-20 as its views return them (undecodable → null, e.g. a `bytes32` name). */
export interface TokenLabel {
  name: string | null;
  symbol: string | null;
}

/**
 * `name()` and `symbol()` of `tokens` at `block` (one batch; latest-block fallback as
 * {@link readImmutable}). A view that fails or returns something else than an ABI string gives
 * null (never thrown); transport failures throw.
 */
export async function readTokenLabels(
  rpc: RpcClient,
  tokens: string[],
  block: number,
  stats?: ImmutableReadStats,
): Promise<Map<string, TokenLabel>> {
  const calls = tokens.flatMap((to) => [
    { to, data: SELECTORS.name },
    { to, data: SELECTORS.symbol },
  ]);
  const raw = await readImmutable(rpc, calls, block, stats, { allowFailure: true });
  const decode = (hex: string | null | undefined) => {
    try {
      return hex ? decodeStringResult(hex) : null;
    } catch {
      return null;
    }
  };
  const out = new Map<string, TokenLabel>();
  tokens.forEach((token, i) => {
    out.set(token, { name: decode(raw[2 * i]), symbol: decode(raw[2 * i + 1]) });
  });
  return out;
}

/** A Chainlink round as `latestRoundData()` returns it (answer in the feed's decimals, times in Unix s). */
export interface FeedRound {
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

/**
 * `latestRoundData()` of `feed` (a Chainlink proxy or aggregator) at the end of `block`: the answer
 * in force then. No latest-block fallback (a later answer would be wrong). Null when the node
 * answers the call with an error or nothing (no contract or no round yet at that block, or a node
 * without that block's state: see `reason`) or the round is empty (round id or `updatedAt` 0).
 * @throws RpcError when the node cannot be reached (after the client's retries).
 */
export async function readLatestRound(
  rpc: RpcClient,
  feed: string,
  block: number,
): Promise<{ round: FeedRound | null; reason: string | null }> {
  let raw: string;
  try {
    raw = await rpc.request<string>("eth_call", [
      { to: feed, data: SELECTORS.latestRoundData },
      toQuantity(block),
    ]);
  } catch (error) {
    // A JSON-RPC error is the node's answer (reverted, or state pruned); anything else is transport.
    if (error instanceof RpcError && error.options.code !== undefined)
      return { round: null, reason: error.message };
    throw error;
  }
  if (!isAnswer(raw)) return { round: null, reason: "no contract at that block" };
  const [roundId, answer, , updatedAt] = decodeFunctionResult({
    abi: aggregatorV3Abi,
    functionName: "latestRoundData",
    data: raw as Hex,
  });
  if (roundId === 0n || updatedAt === 0n) return { round: null, reason: "no round yet at that block" };
  return { round: { roundId, answer, updatedAt }, reason: null };
}
