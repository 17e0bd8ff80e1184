// Chainlink-style ETH/USD feeds of our own on the devnet: aggregators behind a proxy with phases,
// as the feeds on Base are deployed, for tests of feed history and aggregator replacements.
import {
  devnetAggregatorAbi,
  devnetAggregatorBytecode,
  devnetAggregatorProxyAbi,
  devnetAggregatorProxyBytecode,
} from "@tmi/contracts";
import type { Abi, Hash, TransactionReceipt } from "viem";
import { FEED_ACCOUNT } from "./accounts.js";
import { localPublicClient, localWalletClient, waitForReceipt } from "./clients.js";
import type { EthUsdRound } from "./feeds.js";
import { serialize } from "./queue.js";

type Address = `0x${string}`;

/** Sends one transaction from the feed account (serialized per sender) and waits for its receipt. */
async function send(
  rpcUrl: string,
  chainId: number,
  call: { address: Address; abi: Abi; functionName: string; args: readonly unknown[] },
): Promise<{ hash: Hash; receipt: TransactionReceipt }> {
  const wallet = localWalletClient(rpcUrl, FEED_ACCOUNT, chainId);
  return serialize(`${rpcUrl}:${wallet.account.address}`, async () => {
    const hash = await wallet.writeContract(call as never);
    const receipt = await waitForReceipt(localPublicClient(rpcUrl, chainId), hash);
    if (receipt.status !== "success") throw new Error(`${call.functionName} reverted: ${hash}`);
    return { hash, receipt };
  });
}

/** Deploys a contract from the feed account; resolves with its address. */
async function deploy(rpcUrl: string, chainId: number, abi: Abi, bytecode: Address, args: unknown[]) {
  const wallet = localWalletClient(rpcUrl, FEED_ACCOUNT, chainId);
  return serialize(`${rpcUrl}:${wallet.account.address}`, async () => {
    const hash = await wallet.deployContract({ abi, bytecode, args } as never);
    const receipt = await waitForReceipt(localPublicClient(rpcUrl, chainId), hash);
    if (!receipt.contractAddress) throw new Error(`deployment failed: ${hash}`);
    return receipt.contractAddress.toLowerCase() as Address;
  });
}

/**
 * Deploys a new ETH/USD aggregator (`DevnetAggregator`, 8 decimals, no round yet) from devnet
 * account 9. Resolves with its address (lowercase).
 */
export function deployFeedAggregator(rpcUrl: string, chainId: number): Promise<Address> {
  return deploy(rpcUrl, chainId, devnetAggregatorAbi as Abi, devnetAggregatorBytecode as Address, [
    8,
    "ETH / USD",
  ]);
}

/**
 * Deploys a Chainlink-style proxy (`DevnetAggregatorProxy`, phase 1 = `aggregator`) owned by devnet
 * account 9. Resolves with its address (lowercase).
 */
export function deployFeedProxy(rpcUrl: string, chainId: number, aggregator: Address): Promise<Address> {
  return deploy(rpcUrl, chainId, devnetAggregatorProxyAbi as Abi, devnetAggregatorProxyBytecode as Address, [
    aggregator,
  ]);
}

/** Stores `round` in `aggregator` as its latest round (emits `AnswerUpdated`); resolves once mined. */
export function setAggregatorRound(
  rpcUrl: string,
  chainId: number,
  aggregator: Address,
  round: EthUsdRound,
): Promise<{ hash: Hash; receipt: TransactionReceipt }> {
  const { roundId, answer, startedAt, updatedAt, answeredInRound } = round;
  return send(rpcUrl, chainId, {
    address: aggregator,
    abi: devnetAggregatorAbi as Abi,
    functionName: "setRoundData",
    args: [roundId, answer, startedAt, updatedAt, answeredInRound],
  });
}

/**
 * Replaces `proxy`'s aggregator by `next` as Chainlink does, in two transactions:
 * `proposeAggregator`, then `confirmAggregator` (a new phase; emits `AggregatorConfirmed`).
 * Resolves with the confirmation once mined.
 */
export async function replaceFeedAggregator(
  rpcUrl: string,
  chainId: number,
  proxy: Address,
  next: Address,
): Promise<{ hash: Hash; receipt: TransactionReceipt }> {
  const call = (functionName: string) => ({
    address: proxy,
    abi: devnetAggregatorProxyAbi as Abi,
    functionName,
    args: [next],
  });
  await send(rpcUrl, chainId, call("proposeAggregator"));
  return send(rpcUrl, chainId, call("confirmAggregator"));
}
