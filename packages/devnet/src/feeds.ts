import { devnetAggregatorAbi, devnetSequencerUptimeFeedAbi } from "@tmi/contracts";
import type { Hash, TransactionReceipt } from "viem";
import { FEED_ACCOUNT } from "./accounts.js";
import { localPublicClient, localWalletClient, waitForReceipt } from "./clients.js";
import type { Deployment } from "./deploy.js";
import { serialize } from "./queue.js";

/** One round of the ETH/USD feed (8 decimals: 300000000000 = 3,000 USD). */
export interface EthUsdRound {
  roundId: bigint;
  answer: bigint;
  startedAt: bigint;
  updatedAt: bigint;
  answeredInRound: bigint;
}

/** A setter of one devnet feed: its contract in the deployment, ABI and function. */
interface FeedSetter {
  contract: "ethUsdFeed" | "sequencerUptimeFeed";
  abi: unknown;
  functionName: string;
}

const ETH_USD_ROUND: FeedSetter = {
  contract: "ethUsdFeed",
  abi: devnetAggregatorAbi,
  functionName: "setRoundData",
};
const SEQUENCER_STATUS: FeedSetter = {
  contract: "sequencerUptimeFeed",
  abi: devnetSequencerUptimeFeedAbi,
  functionName: "setStatus",
};

/**
 * Calls `setter` with `args` from `account` (default devnet account 9), one transaction at a
 * time per sender, and waits for it to be mined.
 * @throws Error when the transaction reverts.
 */
async function sendFeed(
  rpcUrl: string,
  deployment: Deployment,
  setter: FeedSetter,
  args: readonly unknown[],
  account: number | `0x${string}` = FEED_ACCOUNT,
): Promise<{ hash: Hash; receipt: TransactionReceipt }> {
  const wallet = localWalletClient(rpcUrl, account, deployment.chainId);
  return serialize(`${rpcUrl}:${wallet.account.address}`, async () => {
    const call = {
      address: deployment.contracts[setter.contract],
      abi: setter.abi,
      functionName: setter.functionName,
      args,
    };
    const hash = await wallet.writeContract(call as never);
    const receipt = await waitForReceipt(localPublicClient(rpcUrl, deployment.chainId), hash);
    if (receipt.status !== "success") throw new Error(`feed update reverted: ${hash}`);
    return { hash, receipt };
  });
}

/**
 * Stores `round` in the devnet ETH/USD feed and makes it the latest round (emits `AnswerUpdated`).
 * Any values are accepted (stale, zero, negative, answeredInRound < roundId) to test consumers.
 * Sent from devnet account 9 (or `options.account`); resolves once mined.
 * @throws Error when the transaction fails.
 */
export async function setEthUsdRound(
  rpcUrl: string,
  deployment: Deployment,
  round: EthUsdRound,
  options: { account?: number | `0x${string}` } = {},
): Promise<{ hash: Hash; receipt: TransactionReceipt }> {
  const { roundId, answer, startedAt, updatedAt, answeredInRound } = round;
  const args = [roundId, answer, startedAt, updatedAt, answeredInRound];
  return sendFeed(rpcUrl, deployment, ETH_USD_ROUND, args, options.account);
}

/**
 * Records a sequencer status in the devnet uptime feed: `answer` 0 = up, 1 = down; `startedAt` =
 * when the status changed (Unix seconds). Sent from devnet account 9; resolves once mined.
 * @throws Error when the transaction fails.
 */
export async function setSequencerStatus(
  rpcUrl: string,
  deployment: Deployment,
  status: { answer: bigint; startedAt: bigint },
  options: { account?: number | `0x${string}` } = {},
): Promise<{ hash: Hash; receipt: TransactionReceipt }> {
  const args = [status.answer, status.startedAt];
  return sendFeed(rpcUrl, deployment, SEQUENCER_STATUS, args, options.account);
}
