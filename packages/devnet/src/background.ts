import { devnetBackgroundEmitterAbi, devnetBackgroundEmitterBytecode } from "@tmi/contracts";
import { encodeDeployData, encodeFunctionData, type Hex } from "viem";
import { localPublicClient, rpc, waitForReceipt } from "./clients.js";

/**
 * Base-like background traffic: unrelated ERC-20 `Transfer` and Uniswap V3 `Swap` logs (the
 * standard signatures) from contracts that are not the platform's, at a steady rate per block. On
 * Base a block carries hundreds to thousands of `Transfer`s; an indexer that asks for a generic
 * signature without an address pays for all of them.
 */
export interface BackgroundOptions {
  /** `Transfer` logs per block (default 1,000). */
  transfersPerBlock?: number;
  /** `Swap` logs per block (default 100). */
  swapsPerBlock?: number;
}

/** The background's sender: an impersonated address of its own (no nonce clash with other wallets). */
export const BACKGROUND_SENDER = "0x00000000000000000000000000000000000b0b0b" as const;

/** Logs per emitter call: larger calls are split (≈ 1,900 gas per `Transfer`, 3,000 per `Swap`). */
const LOGS_PER_CALL = 2_000;

/** The default background: 1,000 `Transfer` and 100 `Swap` logs per block. */
export function backgroundRates(options: BackgroundOptions = {}): { transfers: number; swaps: number } {
  return { transfers: options.transfersPerBlock ?? 1_000, swaps: options.swapsPerBlock ?? 100 };
}

/** Funds and impersonates {@link BACKGROUND_SENDER}. Anvil only. */
async function prepareSender(rpcUrl: string): Promise<void> {
  await rpc(rpcUrl, "anvil_setBalance", [BACKGROUND_SENDER, `0x${(10n ** 24n).toString(16)}`]);
  await rpc(rpcUrl, "anvil_impersonateAccount", [BACKGROUND_SENDER]);
}

/**
 * Deploys one `DevnetBackgroundEmitter` from {@link BACKGROUND_SENDER} and waits for it (the chain
 * must mine: automine, interval mining, or `mine` called by the caller, e.g. the history loader).
 * @returns the emitter's address (lowercase).
 */
export async function deployBackgroundEmitter(
  rpcUrl: string,
  chainId: number,
  mine?: () => Promise<void>,
): Promise<`0x${string}`> {
  await prepareSender(rpcUrl);
  const hash = await rpc<Hex>(rpcUrl, "eth_sendTransaction", [
    {
      from: BACKGROUND_SENDER,
      data: encodeDeployData({ abi: devnetBackgroundEmitterAbi, bytecode: devnetBackgroundEmitterBytecode }),
      gas: "0x200000",
    },
  ]);
  if (mine) await mine();
  const receipt = await waitForReceipt(localPublicClient(rpcUrl, chainId), hash);
  if (receipt.status !== "success" || !receipt.contractAddress)
    throw new Error("DevnetBackgroundEmitter deployment failed");
  return receipt.contractAddress.toLowerCase() as `0x${string}`;
}

/**
 * Sends the transactions of one block's background (calls of at most 2,000 logs each) without
 * waiting for them to be mined. `seed` varies the made-up arguments (e.g. the block number).
 * @throws Error when the node refuses a transaction.
 */
export async function sendBackgroundBlock(
  rpcUrl: string,
  emitter: `0x${string}`,
  rates: { transfers: number; swaps: number },
  seed: bigint,
): Promise<void> {
  let transfers = rates.transfers;
  let swaps = rates.swaps;
  let part = 0n;
  while (transfers > 0 || swaps > 0) {
    const t = Math.min(transfers, LOGS_PER_CALL);
    const s = Math.min(swaps, LOGS_PER_CALL - t);
    transfers -= t;
    swaps -= s;
    await rpc(rpcUrl, "eth_sendTransaction", [
      {
        from: BACKGROUND_SENDER,
        to: emitter,
        data: encodeFunctionData({
          abi: devnetBackgroundEmitterAbi,
          functionName: "emitBackground",
          args: [BigInt(t), BigInt(s), seed * 1_000n + part++],
        }),
        gas: `0x${(60_000 + t * 2_400 + s * 3_600).toString(16)}`,
      },
    ]);
  }
}

/** A running background (see {@link startBackground}). */
export interface Background {
  emitter: `0x${string}`;
  /** Blocks that got their background so far. */
  readonly blocks: number;
  /** Stops sending (transactions already sent are still mined). */
  stop(): Promise<void>;
}

/**
 * Starts the background on an interval-mining devnet: deploys an emitter, then for every new block
 * (polled every 100 ms) sends the next block's `Transfer`s and `Swap`s, so that each block carries
 * them. Anvil only.
 * @throws Error when the emitter cannot be deployed.
 */
export async function startBackground(
  rpcUrl: string,
  chainId: number,
  options: BackgroundOptions = {},
): Promise<Background> {
  const rates = backgroundRates(options);
  const emitter = await deployBackgroundEmitter(rpcUrl, chainId);
  let stopped = false;
  let blocks = 0;
  let last = -1;
  const loop = (async () => {
    while (!stopped) {
      try {
        const head = Number.parseInt(await rpc<string>(rpcUrl, "eth_blockNumber"), 16);
        if (head !== last) {
          last = head;
          await sendBackgroundBlock(rpcUrl, emitter, rates, BigInt(head));
          blocks++;
        }
      } catch {
        if (stopped) break; // the node went away first
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    emitter,
    get blocks() {
      return blocks;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
