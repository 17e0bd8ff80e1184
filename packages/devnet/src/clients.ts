import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  http,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEVNET_CHAIN_ID, devnetAccounts, devnetChain } from "./accounts.js";

/** Public client for a local RPC: no block-number cache, 50 ms polling. */
export function localPublicClient(
  rpcUrl: string,
  chainId: number = DEVNET_CHAIN_ID,
): PublicClient<Transport, Chain> {
  return createPublicClient({
    chain: devnetChain(rpcUrl, chainId),
    transport: http(rpcUrl, { retryCount: 0 }),
    cacheTime: 0,
    pollingInterval: 50,
  });
}

/** Wallet client for `account` (index into devnetAccounts or a private key) on a local RPC. */
export function localWalletClient(
  rpcUrl: string,
  account: number | `0x${string}`,
  chainId: number = DEVNET_CHAIN_ID,
): WalletClient<Transport, Chain, Account> {
  return createWalletClient({
    account: privateKeyToAccount(resolvePrivateKey(account)),
    chain: devnetChain(rpcUrl, chainId),
    transport: http(rpcUrl, { retryCount: 0 }),
    cacheTime: 0,
    pollingInterval: 50,
  });
}

/** Private key of `account`: an index into devnetAccounts() or a key itself. */
export function resolvePrivateKey(account: number | `0x${string}`): `0x${string}` {
  if (typeof account === "string") return account;
  const entry = devnetAccounts()[account];
  if (!entry) throw new Error(`no devnet account #${account} (0–9)`);
  return entry.privateKey;
}

/** Raw JSON-RPC call (anvil_*, evm_* methods viem has no typed action for). */
export async function rpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * JSON-RPC batch: one HTTP request for many calls. Resolves with each call's result or error,
 * in order.
 */
export async function rpcBatch(
  rpcUrl: string,
  calls: { method: string; params: unknown[] }[],
): Promise<{ result?: unknown; error?: { message: string } }[]> {
  if (calls.length === 0) return [];
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params }))),
  });
  const body = (await response.json()) as { id: number; result?: unknown; error?: { message: string } }[];
  const out = new Array(calls.length);
  for (const item of body) out[item.id] = item;
  return out;
}

/**
 * Polls `eth_getTransactionReceipt` every `intervalMs` (default 25) until the receipt exists.
 * Unlike viem's `waitForTransactionReceipt` (which re-checks only when the block number moves) it
 * cannot miss a receipt on an automining chain that goes quiet right after the transaction.
 * @throws Error after `timeoutMs` (default 120 s).
 */
export async function waitForReceipt(
  client: PublicClient<Transport, Chain>,
  hash: `0x${string}`,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<TransactionReceipt> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`transaction ${hash} not mined within ${options.timeoutMs ?? 120_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
