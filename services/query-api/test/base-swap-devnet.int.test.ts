// The devnet with chain id 8453 (WETH, Uniswap's V3 factory, SwapRouter02 and QuoterV2 at Base's
// addresses) end to end: a graduated token quoted with QuoterV2 and bought and sold through
// SwapRouter02 as the platform's swap panel does, indexed by the real indexer, and the pool trades
// served by the API with the amounts of the chain.

import { uniswapV3PoolAbi } from "@tmi/contracts";
import { BASE_UNISWAP_V3_FACTORY, BASE_WETH, createTrader, type Devnet } from "@tmi/devnet";
import { parseEther, parseEventLogs, type TransactionReceipt } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type IndexedDevnetApp, type QueryApiApp, startIndexedDevnetApp } from "./harness.js";

let env: IndexedDevnetApp<QueryApiApp>;
let devnet: Devnet;
let app: QueryApiApp;
let token: `0x${string}`;
let canonicalPool: `0x${string}`;
let trader: `0x${string}`;
const swaps: { hash: string; side: "buy" | "sell"; receipt: TransactionReceipt }[] = [];

/** A graduated token bought and sold through SwapRouter02 at QuoterV2's quotes. */
async function swapThroughRouter(): Promise<void> {
  const creator = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
  const swapper = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
  trader = swapper.address;
  ({ token } = await creator.createToken("Base Swap", "BSWAP"));
  canonicalPool = (await creator.graduate(token)).pool;

  const amountIn = parseEther("0.2");
  const tokensOut = await swapper.quotePoolSwap(token, "buy", amountIn);
  const bought = await swapper.buyWithSwapRouter02(token, amountIn, tokensOut);
  swaps.push({ hash: bought.hash, side: "buy", receipt: bought.receipt });
  const sellAmount = tokensOut / 3n;
  const ethOut = await swapper.quotePoolSwap(token, "sell", sellAmount);
  const sold = await swapper.sellWithSwapRouter02(token, sellAmount, ethOut);
  swaps.push({ hash: sold.hash, side: "sell", receipt: sold.receipt });
}

beforeAll(async () => {
  env = await startIndexedDevnetApp({
    chainId: 8453,
    beforeIndex: async (started) => {
      devnet = started;
      await swapThroughRouter();
    },
  });
  app = env.app;
}, 240_000);

afterAll(() => env?.stop());

describe("a devnet with Base's addresses, indexed", () => {
  test("behavior: SwapRouter02 buys and sells of a graduated token are its uniswap_v3 trades, with the pool's amounts", async () => {
    expect(devnet.deployment.contracts.weth).toBe(BASE_WETH);
    expect(devnet.deployment.contracts.uniswapV3Factory).toBe(BASE_UNISWAP_V3_FACTORY);
    const detail = (await app.inject({ url: `/api/v1/tokens/${token}` })).json();
    expect(detail.graduation).toMatchObject({ phase: "graduated", canonical_pool_address: canonicalPool });

    const trades = (await app.inject({ url: `/api/v1/tokens/${token}/trades?limit=100` })).json();
    const poolTrades = trades.items.filter((t: { source: string }) => t.source === "uniswap_v3");
    expect(poolTrades.map((t: { transaction_hash: string }) => t.transaction_hash)).toEqual(
      swaps.map((s) => s.hash).reverse(),
    );
    for (const swap of swaps) {
      const [log] = parseEventLogs({ abi: uniswapV3PoolAbi, eventName: "Swap", logs: swap.receipt.logs });
      expect(log!.address.toLowerCase()).toBe(canonicalPool);
      const tokenIsToken0 = token.toLowerCase() < BASE_WETH;
      const [tokenDelta, wethDelta] = tokenIsToken0
        ? [log!.args.amount0, log!.args.amount1]
        : [log!.args.amount1, log!.args.amount0];
      const abs = (v: bigint) => (v < 0n ? -v : v);
      const trade = poolTrades.find((t: { transaction_hash: string }) => t.transaction_hash === swap.hash);
      expect(trade).toMatchObject({
        token_address: token,
        source: "uniswap_v3",
        side: swap.side,
        trader,
        token_amount: abs(tokenDelta).toString(),
        reserve_amount: abs(wethDelta).toString(),
        protocol_fee: "0",
        creator_fee: "0",
      });
    }
  });
});
