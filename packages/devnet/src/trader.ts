import { launchpadTokenAbi as erc20Abi, launchpadAbi, swapRouterAbi } from "@tmi/contracts";
import {
  type Address,
  encodeFunctionData,
  type Hash,
  maxUint256,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { localPublicClient, localWalletClient, waitForReceipt } from "./clients.js";
import type { Deployment } from "./deploy.js";
import { serialize } from "./queue.js";

/** Result of a mined transaction. */
export interface TxResult {
  hash: Hash;
  receipt: TransactionReceipt;
}

/** Uniswap V3 fee tier of the graduation pools (1%). */
export const POOL_FEE = 10_000;

/** A wallet that trades on the devnet; see {@link createTrader}. */
export interface Trader {
  address: `0x${string}`;
  /** Launches a token; `value` > 0 is the creator's first buy. */
  createToken(
    name: string,
    symbol: string,
    opts?: { value?: bigint },
  ): Promise<TxResult & { token: `0x${string}` }>;
  /** Curve buy paying `value` wei (gross). */
  buy(token: Address, value: bigint, minTokenAmount?: bigint): Promise<TxResult>;
  /** Curve sell of `amount` token base units. */
  sell(token: Address, amount: bigint, minReserveAmount?: bigint): Promise<TxResult>;
  /** ERC-20 transfer. */
  transfer(token: Address, to: Address, amount: bigint): Promise<TxResult>;
  /** After graduation: SwapRouter `exactInputSingle` WETH→token paying `value` wei (wrapped by the router). */
  swapExactEthForTokens(token: Address, value: bigint): Promise<TxResult>;
  /** After graduation: token→WETH through SwapRouter, unwrapped to ETH (approves the router if needed). */
  swapExactTokensForEth(token: Address, amount: bigint): Promise<TxResult>;
  /** Buys on the curve until the graduation threshold is crossed (one capped buy; excess refunded). */
  graduate(token: Address): Promise<TxResult & { pool: `0x${string}` }>;
  /** Token balance of this wallet (base units). */
  balanceOf(token: Address): Promise<bigint>;
  /** ETH balance of this wallet (wei). */
  ethBalance(): Promise<bigint>;
}

/**
 * A wallet helper for tests and scripts: every method sends one transaction from `account`
 * (index into devnetAccounts() or a private key), waits for the receipt and resolves with the
 * hash and the receipt (plus decoded results). Transactions of one account are serialized within
 * the process. Reverts surface as viem errors (gas estimation fails with the decoded custom error).
 * @throws Error also when a mined transaction has status `reverted`.
 */
export function createTrader(args: {
  rpcUrl: string;
  deployment: Deployment;
  account: number | `0x${string}`;
}): Trader {
  const { rpcUrl, deployment } = args;
  const wallet = localWalletClient(rpcUrl, args.account, deployment.chainId);
  const client = localPublicClient(rpcUrl, deployment.chainId);
  const address = wallet.account.address.toLowerCase() as `0x${string}`;
  const { launchpad, swapRouter, weth } = deployment.contracts;

  async function send(request: {
    address: Address;
    abi: unknown;
    functionName: string;
    args: readonly unknown[];
    value?: bigint;
  }): Promise<TxResult> {
    return serialize(`${rpcUrl}:${address}`, async () => {
      // 25% headroom: other wallets' transactions may change the state between estimate and inclusion.
      const estimate = await client.estimateContractGas({ ...request, account: wallet.account } as never);
      const hash = await wallet.writeContract({ ...request, gas: (estimate * 5n) / 4n + 10_000n } as never);
      const receipt = await waitForReceipt(client, hash);
      if (receipt.status !== "success") {
        const tx = await client.getTransaction({ hash });
        throw new Error(`${request.functionName} reverted: ${hash} (gas ${receipt.gasUsed}/${tx.gas})`);
      }
      return { hash, receipt };
    });
  }

  const balanceOf = (token: Address) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [address] });

  return {
    address,
    async createToken(name, symbol, opts = {}) {
      const result = await send({
        address: launchpad,
        abi: launchpadAbi,
        functionName: "createToken",
        args: [name, symbol],
        value: opts.value ?? 0n,
      });
      const [created] = parseEventLogs({
        abi: launchpadAbi,
        logs: result.receipt.logs,
        eventName: "TokenCreated",
      });
      if (!created) throw new Error(`no TokenCreated in ${result.hash}`);
      return { ...result, token: created.args.token.toLowerCase() as `0x${string}` };
    },
    buy(token, value, minTokenAmount = 0n) {
      return send({
        address: launchpad,
        abi: launchpadAbi,
        functionName: "buy",
        args: [token, minTokenAmount],
        value,
      });
    },
    sell(token, amount, minReserveAmount = 0n) {
      return send({
        address: launchpad,
        abi: launchpadAbi,
        functionName: "sell",
        args: [token, amount, minReserveAmount],
      });
    },
    transfer(token, to, amount) {
      return send({ address: token, abi: erc20Abi, functionName: "transfer", args: [to, amount] });
    },
    swapExactEthForTokens(token, value) {
      return send({
        address: swapRouter,
        abi: swapRouterAbi,
        functionName: "exactInputSingle",
        value,
        args: [
          {
            tokenIn: weth,
            tokenOut: token,
            fee: POOL_FEE,
            recipient: address,
            deadline: 2n ** 40n,
            amountIn: value,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
      });
    },
    async swapExactTokensForEth(token, amount) {
      const allowance = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "allowance",
        args: [address, swapRouter],
      });
      if (allowance < amount) {
        await send({
          address: token,
          abi: erc20Abi,
          functionName: "approve",
          args: [swapRouter, maxUint256],
        });
      }
      const swap = encodeFunctionData({
        abi: swapRouterAbi,
        functionName: "exactInputSingle",
        args: [
          {
            tokenIn: token,
            tokenOut: weth,
            fee: POOL_FEE,
            recipient: swapRouter,
            deadline: 2n ** 40n,
            amountIn: amount,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
      });
      const unwrap = encodeFunctionData({
        abi: swapRouterAbi,
        functionName: "unwrapWETH9",
        args: [0n, address],
      });
      return send({
        address: swapRouter,
        abi: swapRouterAbi,
        functionName: "multicall",
        args: [[swap, unwrap]],
      });
    },
    async graduate(token) {
      const [, , , realReserve] = await client.readContract({
        address: launchpad,
        abi: launchpadAbi,
        functionName: "curveOf",
        args: [token],
      });
      const [threshold, protocolFeeBps, creatorFeeBps] = await Promise.all([
        client.readContract({ address: launchpad, abi: launchpadAbi, functionName: "graduationThreshold" }),
        client.readContract({ address: launchpad, abi: launchpadAbi, functionName: "protocolFeeBps" }),
        client.readContract({ address: launchpad, abi: launchpadAbi, functionName: "creatorFeeBps" }),
      ]);
      const needed = ((threshold - realReserve) * 10_000n) / (10_000n - protocolFeeBps - creatorFeeBps);
      // Overpay a little: the launchpad caps the buy at the threshold and refunds the rest.
      const result = await send({
        address: launchpad,
        abi: launchpadAbi,
        functionName: "buy",
        args: [token, 0n],
        value: needed + needed / 10n + 10n ** 16n,
      });
      const [graduated] = parseEventLogs({
        abi: launchpadAbi,
        logs: result.receipt.logs,
        eventName: "TokenGraduated",
      });
      if (!graduated) throw new Error(`buy ${result.hash} did not graduate ${token}`);
      return { ...result, pool: graduated.args.pool.toLowerCase() as `0x${string}` };
    },
    balanceOf,
    ethBalance: () => client.getBalance({ address }),
  };
}
