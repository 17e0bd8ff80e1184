import {
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  http,
  type PublicClient,
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
