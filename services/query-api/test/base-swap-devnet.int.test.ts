// The devnet with chain id 8453 (WETH, Uniswap's V3 factory, SwapRouter02 and QuoterV2 at Base's
// addresses) end to end: a graduated token quoted with QuoterV2 and bought and sold through
// SwapRouter02 as the platform's swap panel does, indexed by the real indexer, and the pool trades
// served by the API with the amounts of the chain.

import { uniswapV3PoolAbi } from "@tmi/contracts";
import { BASE_UNISWAP_V3_FACTORY, BASE_WETH, createTrader, type Devnet, startDevnet } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import {
  createTestDatabase,
  devnetIndexerOptions,
  type IndexerProcess,
  indexToHead,
  type TestDatabase,
} from "@tmi/testkit";
import type pg from "pg";
import { parseEther, parseEventLogs, type TransactionReceipt } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import { createReadPool } from "../src/db.js";

let devnet: Devnet;
let database: TestDatabase;
let indexer: IndexerProcess;
let pool: pg.Pool;
let app: Awaited<ReturnType<typeof buildApp>>;
let token: `0x${string}`;
let canonicalPool: `0x${string}`;
let trader: `0x${string}`;
const swaps: { hash: string; side: "buy" | "sell"; receipt: TransactionReceipt }[] = [];

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine", chainId: 8453 });
  database = await createTestDatabase();
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

  indexer = await indexToHead({ ...devnetIndexerOptions(devnet, database.url), timeoutMs: 90_000 });
  pool = createReadPool({ url: database.url, max: 2 });
  app = await buildApp({
    pool,
    config: { cursorSecret: "base-swap-devnet-cursor-secret-0123456789", corsOrigins: "*" },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
}, 240_000);

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await indexer?.stop();
  await database?.drop();
  await devnet?.stop();
});

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
