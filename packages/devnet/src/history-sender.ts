import type { Address, Hex } from "viem";
import { sendBackgroundBlock } from "./background.js";
import { rpc, rpcBatch } from "./clients.js";

/** Gas price of the history's transactions: 1 gwei; the base fee is pinned below it while loading. */
export const GAS_PRICE = 1_000_000_000n;

/** A quantity as JSON-RPC hex (`0x…`). */
export const hex = (n: bigint | number) => `0x${n.toString(16)}`;

/** A transaction the history loader queues: sent from an impersonated wallet with fixed gas. */
export interface PendingTx {
  from: Address;
  to: Address;
  data: Hex;
  /** Wei sent (default 0). */
  value?: bigint;
  gas: bigint;
}

/**
 * A JSON-RPC batch in slices of 500 calls; the results in order.
 * @throws Error naming the first call the node answered with an error.
 */
export async function checkedBatch(
  rpcUrl: string,
  calls: { method: string; params: unknown[] }[],
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < calls.length; i += 500) {
    const results = await rpcBatch(rpcUrl, calls.slice(i, i + 500));
    for (const r of results) {
      if (r?.error) throw new Error(`loadHistory: ${r.error.message}`);
      out.push(r?.result);
    }
  }
  return out;
}

/** Options of {@link BlockSender}. */
export interface BlockSenderOptions {
  rpcUrl: string;
  /** Next nonce of each sender: advanced per send, read again from the node after a refusal. */
  nonces: Map<Address, bigint>;
  /** Base fee set before every block (below {@link GAS_PRICE}, so every transaction pays it). */
  pinnedBaseFee: bigint;
  /** The first block of the history (the background's arguments count from it). */
  fromBlock: number;
  /** A background emitter and its logs per block, sent into every block mined. */
  background?: { emitter: `0x${string}`; rates: { transfers: number; swaps: number } };
  /**
   * Block timestamps: each block `step` seconds after the last (from `from`, Unix seconds) while
   * that stays before `until` − 1; then the node's clock. Omitted: the node's clock.
   */
  spread?: { from: number; step: number; until: number };
}

/**
 * Sends queued transactions in JSON-RPC batches of `eth_sendTransaction` (locally managed nonces,
 * automine off) and mines them (`evm_mine`) until the node's pool is empty.
 */
export class BlockSender {
  /** Blocks mined so far. */
  blocks = 0;
  /** Sends the node refused (e.g. a nonce clash): their trades are topped up by the caller. */
  refused = 0;
  /** The first refusal's message ("" without one). */
  refusedSample = "";
  private queue: PendingTx[] = [];
  private lastTimestamp: number;

  constructor(private readonly options: BlockSenderOptions) {
    this.lastTimestamp = options.spread?.from ?? 0;
  }

  /** Transactions queued and not sent yet. */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues `tx` (sent by the next {@link send}, in queue order). */
  push(tx: PendingTx): void {
    this.queue.push(tx);
  }

  /**
   * Sends the queue and mines until the node's pool is empty (a block takes what fits in its gas
   * limit). Decreasing priority fees make each block execute in queue order. Refused sends are
   * counted and their senders' nonces read again.
   * @throws Error when a nonce cannot be read again.
   */
  async send(): Promise<void> {
    if (this.queue.length === 0) return;
    const { rpcUrl, nonces, pinnedBaseFee, background, spread } = this.options;
    const batch = this.queue;
    this.queue = [];
    const calls = batch.map((tx, i) => {
      const nonce = nonces.get(tx.from)!;
      nonces.set(tx.from, nonce + 1n);
      return {
        method: "eth_sendTransaction",
        params: [
          {
            from: tx.from,
            to: tx.to,
            data: tx.data,
            value: hex(tx.value ?? 0n),
            gas: hex(tx.gas),
            nonce: hex(nonce),
            // Decreasing priority fees make the block execute in queue order, so the local curve
            // mirror matches the chain.
            maxFeePerGas: hex(GAS_PRICE + BigInt(batch.length - i)),
            maxPriorityFeePerGas: hex(BigInt(batch.length - i)),
          },
        ],
      };
    });
    const results = await rpcBatch(rpcUrl, calls);
    const failedSenders = new Set<Address>();
    results.forEach((r, i) => {
      if (!r?.error) return;
      failedSenders.add(batch[i]!.from);
      this.refused += 1;
      this.refusedSample ||= r.error.message;
    });
    if (failedSenders.size > 0) {
      const fresh = await checkedBatch(
        rpcUrl,
        [...failedSenders].map((a) => ({ method: "eth_getTransactionCount", params: [a, "pending"] })),
      );
      for (const [i, a] of [...failedSenders].entries()) nonces.set(a, BigInt(fresh[i] as string));
    }
    // Mine until the pool is empty (a block takes what fits in its gas limit).
    for (;;) {
      if (background)
        await sendBackgroundBlock(
          rpcUrl,
          background.emitter,
          background.rates,
          BigInt(this.options.fromBlock + this.blocks),
        );
      await rpc(rpcUrl, "anvil_setNextBlockBaseFeePerGas", [hex(pinnedBaseFee)]);
      if (spread && this.lastTimestamp + spread.step < spread.until - 1) {
        this.lastTimestamp += spread.step;
        await rpc(rpcUrl, "evm_mine", [this.lastTimestamp]);
      } else {
        await rpc(rpcUrl, "evm_mine");
      }
      this.blocks += 1;
      const status = await rpc<{ pending: string }>(rpcUrl, "txpool_status");
      if (BigInt(status.pending) === 0n) break;
    }
  }
}
