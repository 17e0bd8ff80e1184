import { randomBytes } from "node:crypto";
import { quoterV2Abi, swapRouter02Abi, swapRouterAbi, uniswapV3FactoryAbi } from "@tmi/contracts";
import {
  buildRewardTree,
  feeManagerV3Abi,
  GRADUATION_NET_ETH,
  graduationCustodyV3Abi,
  graduationManagerV3Abi,
  POOL_FEE,
  permanentLPFeeVaultV3Abi,
  type RewardLeaf,
  type RewardTree,
  rewardDistributionId,
  tokenCommunityVaultV3Abi,
  traderRewardsDistributorV3Abi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hash,
  type Hex,
  maxUint256,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
} from "viem";
import { localPublicClient, localWalletClient, waitForReceipt } from "./clients.js";
import type { Deployment } from "./deploy.js";
import { serialize } from "./queue.js";

/** Result of a mined transaction. */
export interface TxResult {
  hash: Hash;
  receipt: TransactionReceipt;
  /** The `approve` sent first when the allowance did not cover the amount (sells, token→ETH swaps). */
  approval?: { hash: Hash; receipt: TransactionReceipt };
}

/** A launch: the token, its curve and its canonical Uniswap V3 pool (from `TokenLaunchedV3`). */
export interface LaunchResult extends TxResult {
  token: `0x${string}`;
  curve: `0x${string}`;
  pool: `0x${string}`;
}

/** Uniswap V3 fee tier of the canonical token/WETH pools (1 %; the shared constant, re-exported). */
export { POOL_FEE };

/** Deadline passed to the curve and the router: far in the future (the devnet's clock may be set). */
const DEADLINE = 2n ** 40n;

/** SwapRouter02 `exactInputSingle` on the canonical pool's fee tier, without price limit (calldata). */
function swapRouter02Call(
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  recipient: Address,
  amountOutMinimum: bigint,
): Hex {
  return encodeFunctionData({
    abi: swapRouter02Abi,
    functionName: "exactInputSingle",
    args: [
      { tokenIn, tokenOut, fee: POOL_FEE, recipient, amountIn, amountOutMinimum, sqrtPriceLimitX96: 0n },
    ],
  });
}

/** A wallet that trades on the devnet; see {@link createTrader}. */
export interface Trader {
  address: `0x${string}`;
  /**
   * Launches a token through the factory's `createToken(name, symbol, userSalt)`. `userSalt`
   * defaults to 32 random bytes. `createToken` is not payable: with `value` > 0 the creator's first
   * buy follows as a second transaction (`firstBuy`); `hash`/`receipt` are the launch's.
   */
  createToken(
    name: string,
    symbol: string,
    opts?: { userSalt?: Hex; value?: bigint },
  ): Promise<LaunchResult & { firstBuy?: TxResult }>;
  /** Curve `buy(minTokensOut, deadline)` paying `value` wei (gross; an oversized graduating buy is refunded). */
  buy(token: Address, value: bigint, minTokensOut?: bigint): Promise<TxResult>;
  /** Curve `sell(tokensIn, minEthOut, deadline)` of `amount` base units (approves the curve once if needed). */
  sell(token: Address, amount: bigint, minEthOut?: bigint): Promise<TxResult>;
  /** ERC-20 transfer. */
  transfer(token: Address, to: Address, amount: bigint): Promise<TxResult>;
  /** After graduation: SwapRouter `exactInputSingle` WETH→token paying `value` wei (wrapped by the router). */
  swapExactEthForTokens(token: Address, value: bigint): Promise<TxResult>;
  /** After graduation: token→WETH through SwapRouter, unwrapped to ETH (approves the router if needed). */
  swapExactTokensForEth(token: Address, amount: bigint): Promise<TxResult>;
  /**
   * After graduation: QuoterV2 `quoteExactInputSingle` on the canonical pool (1 % tier): the output
   * of `amountIn` (wei of ETH for a `buy`, token base units for a `sell`), in token base units or wei.
   */
  quotePoolSwap(token: Address, side: "buy" | "sell", amountIn: bigint): Promise<bigint>;
  /**
   * After graduation: buys with `value` wei through SwapRouter02 as the platform's swap panel does:
   * `multicall(deadline, [wrapETH(value), exactInputSingle(WETH→token, amountIn 0 = the router's
   * whole WETH, to this wallet, at least minTokensOut)])` paying `value`.
   */
  buyWithSwapRouter02(token: Address, value: bigint, minTokensOut?: bigint): Promise<TxResult>;
  /**
   * After graduation: sells `amount` through SwapRouter02 as the platform's swap panel does (approves
   * the router if needed): `multicall(deadline, [exactInputSingle(token→WETH, to the router, at
   * least minEthOut), unwrapWETH9(minEthOut, this wallet)])`.
   */
  sellWithSwapRouter02(token: Address, amount: bigint, minEthOut?: bigint): Promise<TxResult>;
  /**
   * One curve buy that completes graduation: pays 1 % more than the gross the remaining net reserve
   * needs, the curve accepts the exact amount and refunds the rest. Resolves with the canonical pool.
   * @throws Error when the buy did not graduate the token (e.g. another wallet graduated it first).
   */
  graduate(token: Address): Promise<TxResult & { pool: `0x${string}` }>;
  /**
   * After graduation: the token's LP custodian `collectFees()`, which collects the position's
   * trading fees (token and WETH) into the permanent LP fee vault (`PermanentLPFeesAccrued`).
   */
  collectLPFees(token: Address): Promise<TxResult & { custodian: `0x${string}`; feeVault: `0x${string}` }>;
  /**
   * After a collection: the permanent LP fee vault forwards the token's accrued community and
   * trader-rewards shares of `asset` (default: the token itself) to the deployment's community vault
   * and trader-rewards vault (`fundCommunityVault`, `fundTraderRewardsVault`; two transactions), as
   * the platform does. Resolves with the two vaults (lowercase).
   * @throws Error when nothing of `asset` was accrued for the token (the vault reverts).
   */
  forwardLPFees(
    token: Address,
    asset?: Address,
  ): Promise<{ communityVault: `0x${string}`; traderRewardsVault: `0x${string}` }>;
  /**
   * Fee manager `claimCreatorFees(token)`: sends the token's accrued curve creator fees to its payout
   * address (anyone may trigger it; `CreatorFeesClaimed`).
   * @throws Error when nothing is accrued (`NothingToClaim`).
   */
  claimCreatorFees(token: Address): Promise<TxResult>;
  /** Fee manager `proposeCreatorPayout(token, to)`; this wallet must be the token's creator. */
  proposeCreatorPayout(token: Address, to: Address): Promise<TxResult>;
  /** Fee manager `acceptCreatorPayout(token)`; this wallet must be the proposed payout address. */
  acceptCreatorPayout(token: Address): Promise<TxResult>;
  /** Fee manager `cancelCreatorPayout(token)`; this wallet must be the token's creator. */
  cancelCreatorPayout(token: Address): Promise<TxResult>;
  /**
   * Fee manager `fundCommunityVault(token)` and `fundTraderRewardsVault(token)`: forwards the token's
   * accrued curve community / trader-rewards shares (ETH) to the two vaults; a share with nothing
   * accrued is skipped. Resolves with the amounts forwarded (wei).
   */
  fundCurvePots(token: Address): Promise<{ community: bigint; traderRewards: bigint; results: TxResult[] }>;
  /**
   * LP fee vault `claimLPFees(asset)`: this wallet's protocol and creator LP fee shares of `asset`
   * (`CreatorLPFeesClaimed` / `ProtocolLPFeesClaimed`).
   * @throws Error when nothing is accrued for this wallet (`NothingToClaimLPFees`).
   */
  claimLPFees(asset: Address): Promise<TxResult>;
  /**
   * Community vault `forwardToTreasury(token, asset)` (asset: the zero address for ETH)
   * (`CommunityFundsForwarded`).
   * @throws Error when the token holds nothing of `asset` there (`NothingToForward`).
   */
  forwardCommunityFunds(token: Address, asset: Address): Promise<TxResult>;
  /**
   * Distributor `publishRoot(epoch, token, asset, root)` of the tree built over `leaves` in the given
   * order (shared `buildRewardTree`); this wallet must be the distributor's owner. Resolves with the
   * distribution id and the tree (each leaf's proof).
   */
  publishRewards(
    epoch: bigint,
    token: Address,
    asset: Address,
    leaves: readonly RewardLeaf[],
  ): Promise<TxResult & { distributionId: Hex; tree: RewardTree }>;
  /**
   * Distributor `claim(epoch, token, asset, amount, proof)` for this wallet (`RewardClaimed`; the
   * trader-rewards vault pays it, `TraderRewardPaid`).
   */
  claimReward(
    epoch: bigint,
    token: Address,
    asset: Address,
    amount: bigint,
    proof: readonly Hex[],
  ): Promise<TxResult>;
  /** The token's curve (factory `curveOf`, cached). */
  curveOf(token: Address): Promise<`0x${string}`>;
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
  const { factory, swapRouter, swapRouter02, quoterV2, weth, feeManager } = deployment.contracts;
  const curves = new Map<string, `0x${string}`>();

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

  /** The token's LP custodian (graduation manager `custodianOf`) and its fee vault (`feeVault()`). */
  async function lpCustodyOf(token: Address): Promise<{ custodian: Address; feeVault: Address }> {
    const custodian = await client.readContract({
      address: deployment.contracts.graduationManager,
      abi: graduationManagerV3Abi,
      functionName: "custodianOf",
      args: [token],
    });
    const feeVault = await client.readContract({
      address: custodian,
      abi: graduationCustodyV3Abi,
      functionName: "feeVault",
    });
    return { custodian, feeVault };
  }

  async function curveOf(token: Address): Promise<`0x${string}`> {
    const key = token.toLowerCase();
    let curve = curves.get(key);
    if (!curve) {
      curve = (
        await client.readContract({
          address: factory,
          abi: zonkFactoryV3Abi,
          functionName: "curveOf",
          args: [token],
        })
      ).toLowerCase() as `0x${string}`;
      if (/^0x0{40}$/.test(curve)) throw new Error(`${token} is not a token of the factory ${factory}`);
      curves.set(key, curve);
    }
    return curve;
  }

  async function approveIfNeeded(
    token: Address,
    spender: Address,
    amount: bigint,
  ): Promise<TxResult | undefined> {
    const allowance = await client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "allowance",
      args: [address, spender],
    });
    if (allowance >= amount) return undefined;
    return send({ address: token, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] });
  }

  async function buy(token: Address, value: bigint, minTokensOut = 0n): Promise<TxResult> {
    return send({
      address: await curveOf(token),
      abi: zonkCurveV3Abi,
      functionName: "buy",
      args: [minTokensOut, DEADLINE],
      value,
    });
  }

  return {
    address,
    async createToken(name, symbol, opts = {}) {
      const userSalt = opts.userSalt ?? toHex(randomBytes(32));
      const result = await send({
        address: factory,
        abi: zonkFactoryV3Abi,
        functionName: "createToken",
        args: [name, symbol, userSalt],
      });
      const [launched] = parseEventLogs({
        abi: zonkFactoryV3Abi,
        logs: result.receipt.logs,
        eventName: "TokenLaunchedV3",
      });
      if (!launched) throw new Error(`no TokenLaunchedV3 in ${result.hash}`);
      const token = launched.args.token.toLowerCase() as `0x${string}`;
      const curve = launched.args.curve.toLowerCase() as `0x${string}`;
      curves.set(token, curve);
      const pool = launched.args.canonicalPool.toLowerCase() as `0x${string}`;
      const firstBuy = opts.value && opts.value > 0n ? await buy(token, opts.value) : undefined;
      return { ...result, token, curve, pool, ...(firstBuy ? { firstBuy } : {}) };
    },
    buy,
    async sell(token, amount, minEthOut = 0n) {
      const curve = await curveOf(token);
      const approval = await approveIfNeeded(token, curve, amount);
      const result = await send({
        address: curve,
        abi: zonkCurveV3Abi,
        functionName: "sell",
        args: [amount, minEthOut, DEADLINE],
      });
      return approval ? { ...result, approval } : result;
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
            deadline: DEADLINE,
            amountIn: value,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
      });
    },
    async swapExactTokensForEth(token, amount) {
      const approval = await approveIfNeeded(token, swapRouter, amount);
      const swap = encodeFunctionData({
        abi: swapRouterAbi,
        functionName: "exactInputSingle",
        args: [
          {
            tokenIn: token,
            tokenOut: weth,
            fee: POOL_FEE,
            recipient: swapRouter,
            deadline: DEADLINE,
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
      const result = await send({
        address: swapRouter,
        abi: swapRouterAbi,
        functionName: "multicall",
        args: [[swap, unwrap]],
      });
      return approval ? { ...result, approval } : result;
    },
    async quotePoolSwap(token, side, amountIn) {
      const { result } = await client.simulateContract({
        address: quoterV2,
        abi: quoterV2Abi,
        functionName: "quoteExactInputSingle",
        args: [
          {
            tokenIn: side === "buy" ? weth : token,
            tokenOut: side === "buy" ? token : weth,
            amountIn,
            fee: POOL_FEE,
            sqrtPriceLimitX96: 0n,
          },
        ],
      });
      return result[0];
    },
    buyWithSwapRouter02(token, value, minTokensOut = 0n) {
      const wrap = encodeFunctionData({ abi: swapRouter02Abi, functionName: "wrapETH", args: [value] });
      const swap = swapRouter02Call(weth, token, 0n, address, minTokensOut);
      return send({
        address: swapRouter02,
        abi: swapRouter02Abi,
        functionName: "multicall",
        args: [DEADLINE, [wrap, swap]],
        value,
      });
    },
    async sellWithSwapRouter02(token, amount, minEthOut = 0n) {
      const approval = await approveIfNeeded(token, swapRouter02, amount);
      const swap = swapRouter02Call(token, weth, amount, swapRouter02, minEthOut);
      const unwrap = encodeFunctionData({
        abi: swapRouter02Abi,
        functionName: "unwrapWETH9",
        args: [minEthOut, address],
      });
      const result = await send({
        address: swapRouter02,
        abi: swapRouter02Abi,
        functionName: "multicall",
        args: [DEADLINE, [swap, unwrap]],
      });
      return approval ? { ...result, approval } : result;
    },
    async graduate(token) {
      const curve = await curveOf(token);
      const reserve = await client.readContract({
        address: curve,
        abi: zonkCurveV3Abi,
        functionName: "activeEthReserve",
      });
      const gross = await client.readContract({
        address: curve,
        abi: zonkCurveV3Abi,
        functionName: "grossRequiredForNet",
        args: [GRADUATION_NET_ETH - reserve],
      });
      // Overpay a little (other buys may land first): the curve accepts the exact gross and refunds the rest.
      const result = await buy(token, gross + gross / 100n + 10n ** 15n);
      const [graduated] = parseEventLogs({
        abi: zonkCurveV3Abi,
        logs: result.receipt.logs,
        eventName: "Graduated",
      });
      if (!graduated) throw new Error(`buy ${result.hash} did not graduate ${token}`);
      const pool = await client.readContract({
        address: deployment.contracts.uniswapV3Factory,
        abi: uniswapV3FactoryAbi,
        functionName: "getPool",
        args: [token, weth, POOL_FEE],
      });
      return { ...result, pool: pool.toLowerCase() as `0x${string}` };
    },
    async collectLPFees(token) {
      const { custodian, feeVault } = await lpCustodyOf(token);
      const result = await send({
        address: custodian,
        abi: graduationCustodyV3Abi,
        functionName: "collectFees",
        args: [],
      });
      return {
        ...result,
        custodian: custodian.toLowerCase() as `0x${string}`,
        feeVault: feeVault.toLowerCase() as `0x${string}`,
      };
    },
    async forwardLPFees(token, asset = token) {
      const { feeVault } = await lpCustodyOf(token);
      const vault = (functionName: "communityVault" | "traderRewardsVault") =>
        client.readContract({ address: feeVault, abi: graduationCustodyV3Abi, functionName });
      const lower = (a: string) => a.toLowerCase() as `0x${string}`;
      for (const functionName of ["fundCommunityVault", "fundTraderRewardsVault"] as const)
        await send({ address: feeVault, abi: graduationCustodyV3Abi, functionName, args: [token, asset] });
      return {
        communityVault: lower(await vault("communityVault")),
        traderRewardsVault: lower(await vault("traderRewardsVault")),
      };
    },
    claimCreatorFees: (token) =>
      send({ address: feeManager, abi: feeManagerV3Abi, functionName: "claimCreatorFees", args: [token] }),
    proposeCreatorPayout: (token, to) =>
      send({
        address: feeManager,
        abi: feeManagerV3Abi,
        functionName: "proposeCreatorPayout",
        args: [token, to],
      }),
    acceptCreatorPayout: (token) =>
      send({ address: feeManager, abi: feeManagerV3Abi, functionName: "acceptCreatorPayout", args: [token] }),
    cancelCreatorPayout: (token) =>
      send({ address: feeManager, abi: feeManagerV3Abi, functionName: "cancelCreatorPayout", args: [token] }),
    async fundCurvePots(token) {
      const results: TxResult[] = [];
      const read = (functionName: "communityFeesAccruedByToken" | "traderRewardsFeesAccruedByToken") =>
        client.readContract({ address: feeManager, abi: feeManagerV3Abi, functionName, args: [token] });
      const community = await read("communityFeesAccruedByToken");
      if (community > 0n)
        results.push(
          await send({
            address: feeManager,
            abi: feeManagerV3Abi,
            functionName: "fundCommunityVault",
            args: [token],
          }),
        );
      const traderRewards = await read("traderRewardsFeesAccruedByToken");
      if (traderRewards > 0n)
        results.push(
          await send({
            address: feeManager,
            abi: feeManagerV3Abi,
            functionName: "fundTraderRewardsVault",
            args: [token],
          }),
        );
      return { community, traderRewards, results };
    },
    claimLPFees: (asset) =>
      send({
        address: deployment.contracts.lpFeeVault,
        abi: permanentLPFeeVaultV3Abi,
        functionName: "claimLPFees",
        args: [asset],
      }),
    forwardCommunityFunds: (token, asset) =>
      send({
        address: deployment.contracts.communityVault,
        abi: tokenCommunityVaultV3Abi,
        functionName: "forwardToTreasury",
        args: [token, asset],
      }),
    async publishRewards(epoch, token, asset, leaves) {
      const distributionId = rewardDistributionId(epoch, token, asset);
      const tree = buildRewardTree(distributionId, leaves);
      const result = await send({
        address: deployment.contracts.rewardsDistributor,
        abi: traderRewardsDistributorV3Abi,
        functionName: "publishRoot",
        args: [epoch, token, asset, tree.root],
      });
      return { ...result, distributionId, tree };
    },
    claimReward: (epoch, token, asset, amount, proof) =>
      send({
        address: deployment.contracts.rewardsDistributor,
        abi: traderRewardsDistributorV3Abi,
        functionName: "claim",
        args: [epoch, token, asset, amount, proof],
      }),
    curveOf,
    balanceOf,
    ethBalance: () => client.getBalance({ address }),
  };
}
