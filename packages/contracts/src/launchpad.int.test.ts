// Reference launchpad on anvil (automine): curve math and fees exactly as the events report them,
// slippage limits, graduation into a Uniswap V3 pool, and trading after graduation.
import {
  createTrader,
  DEVNET_PROTOCOL_FEE_RECIPIENT,
  type Devnet,
  localPublicClient,
  startDevnet,
} from "@tmi/devnet";
import { type Address, parseEther, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchpadAbi, launchpadTokenAbi, uniswapV3PoolAbi } from "./index.js";

const SUPPLY = 10n ** 27n;
const THRESHOLD = parseEther("1");
const V0 = 10n ** 18n;
const PROTOCOL_BPS = 100n;
const CREATOR_BPS = 50n;

let devnet: Devnet;
let client: ReturnType<typeof localPublicClient>;

beforeAll(async () => {
  devnet = await startDevnet({ blockTime: "automine", graduationThreshold: THRESHOLD });
  client = localPublicClient(devnet.rpcUrl);
});
afterAll(async () => {
  await devnet?.stop();
});

const trader = (account: number) =>
  createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account });

async function curve(token: Address) {
  const [creator, reserveBalance, tokenBalance, realReserve, graduated, pool] = await client.readContract({
    address: devnet.deployment.contracts.launchpad,
    abi: launchpadAbi,
    functionName: "curveOf",
    args: [token],
  });
  return { creator, reserveBalance, tokenBalance, realReserve, graduated, pool };
}

let alpha: Address;

describe("launchpad", () => {
  it("default", async () => {
    const creator = trader(1);
    const { token, receipt } = await creator.createToken("Alpha", "ALP");
    alpha = token;
    const [event] = parseEventLogs({ abi: launchpadAbi, logs: receipt.logs, eventName: "TokenCreated" });
    const v = V0 + THRESHOLD;
    const t0 = (SUPPLY * v * v) / (v * v - V0 * V0);
    expect(event?.args).toMatchObject({
      token: expect.stringMatching(/^0x/i),
      name: "Alpha",
      symbol: "ALP",
      initialSupply: SUPPLY,
      reserveBalance: V0,
      tokenBalance: t0,
      graduationThreshold: THRESHOLD,
    });
    expect(event?.args.creator.toLowerCase()).toBe(creator.address);
    const read = (functionName: "decimals" | "totalSupply" | "name") =>
      client.readContract({ address: token, abi: launchpadTokenAbi, functionName });
    expect(await read("decimals")).toBe(18);
    expect(await read("totalSupply")).toBe(SUPPLY);
    expect(await read("name")).toBe("Alpha");
    expect(
      await client.readContract({
        address: devnet.deployment.contracts.launchpad,
        abi: launchpadAbi,
        functionName: "INITIAL_SUPPLY",
      }),
    ).toBe(SUPPLY);
  });

  it("behavior: buys and sells follow the constant-product formula, fees on the ETH side", async () => {
    const creator = trader(2);
    const buyer = trader(3);
    const { token } = await creator.createToken("Beta", "BET");
    const before = await curve(token);
    const recipientBefore = await client.getBalance({ address: DEVNET_PROTOCOL_FEE_RECIPIENT });
    const creatorBefore = await creator.ethBalance();
    const buyerBefore = await buyer.ethBalance();

    const paid = parseEther("0.2");
    const quoted = await client.readContract({
      address: devnet.deployment.contracts.launchpad,
      abi: launchpadAbi,
      functionName: "quoteBuy",
      args: [token, paid],
    });
    const bought = await buyer.buy(token, paid, quoted);
    const [b] = parseEventLogs({ abi: launchpadAbi, logs: bought.receipt.logs, eventName: "TokensBought" });
    const protocolFee = (paid * PROTOCOL_BPS) / 10_000n;
    const creatorFee = (paid * CREATOR_BPS) / 10_000n;
    const curveValue = paid - protocolFee - creatorFee;
    const tokenAmount = (before.tokenBalance * curveValue) / (before.reserveBalance + curveValue);
    expect(b?.args).toMatchObject({
      reserveAmount: paid,
      tokenAmount,
      curveValue,
      protocolFee,
      creatorFee,
      reserveBalance: before.reserveBalance + curveValue,
      tokenBalance: before.tokenBalance - tokenAmount,
    });
    expect(tokenAmount).toBe(quoted);
    expect(await buyer.balanceOf(token)).toBe(tokenAmount);
    const gas1 = bought.receipt.gasUsed * bought.receipt.effectiveGasPrice;
    expect(buyerBefore - (await buyer.ethBalance())).toBe(paid + gas1);
    expect((await client.getBalance({ address: DEVNET_PROTOCOL_FEE_RECIPIENT })) - recipientBefore).toBe(
      protocolFee,
    );
    expect((await creator.ethBalance()) - creatorBefore).toBe(creatorFee);

    const mid = await curve(token);
    expect(mid.realReserve).toBe(curveValue);
    const sold = tokenAmount / 3n;
    const buyerMid = await buyer.ethBalance();
    const sellTx = await buyer.sell(token, sold);
    const [s] = parseEventLogs({ abi: launchpadAbi, logs: sellTx.receipt.logs, eventName: "TokensSold" });
    const sellCurve = (mid.reserveBalance * sold) / (mid.tokenBalance + sold);
    const sellProtocol = (sellCurve * PROTOCOL_BPS) / 10_000n;
    const sellCreator = (sellCurve * CREATOR_BPS) / 10_000n;
    expect(s?.args).toMatchObject({
      reserveAmount: sellCurve - sellProtocol - sellCreator,
      tokenAmount: sold,
      curveValue: sellCurve,
      protocolFee: sellProtocol,
      creatorFee: sellCreator,
      reserveBalance: mid.reserveBalance - sellCurve,
      tokenBalance: mid.tokenBalance + sold,
    });
    const gas2 = sellTx.receipt.gasUsed * sellTx.receipt.effectiveGasPrice;
    expect((await buyer.ethBalance()) - buyerMid).toBe(sellCurve - sellProtocol - sellCreator - gas2);
    expect(s?.args.seller.toLowerCase()).toBe(buyer.address);
  });

  it("behavior: createToken with value is the creator's first buy", async () => {
    const creator = trader(4);
    const { token, receipt } = await creator.createToken("Gamma", "GAM", { value: parseEther("0.05") });
    const [b] = parseEventLogs({ abi: launchpadAbi, logs: receipt.logs, eventName: "TokensBought" });
    expect(b?.args.token.toLowerCase()).toBe(token);
    expect(b?.args.buyer.toLowerCase()).toBe(creator.address);
    expect(b?.args.reserveAmount).toBe(parseEther("0.05"));
    expect(await creator.balanceOf(token)).toBe(b?.args.tokenAmount);
  });

  it("error: slippage limits revert buys and sells", async () => {
    const t = trader(5);
    const { token } = await t.createToken("Delta", "DLT", { value: parseEther("0.1") });
    const quoted = await client.readContract({
      address: devnet.deployment.contracts.launchpad,
      abi: launchpadAbi,
      functionName: "quoteBuy",
      args: [token, parseEther("0.1")],
    });
    await expect(t.buy(token, parseEther("0.1"), quoted + 1n)).rejects.toThrow(/SlippageExceeded|reverted/);
    const balance = await t.balanceOf(token);
    const quotedSell = await client.readContract({
      address: devnet.deployment.contracts.launchpad,
      abi: launchpadAbi,
      functionName: "quoteSell",
      args: [token, balance],
    });
    await expect(t.sell(token, balance, quotedSell + 1n)).rejects.toThrow(/SlippageExceeded|reverted/);
    await expect(t.sell(token, balance + 1n)).rejects.toThrow();
    const sold = await t.sell(token, balance, quotedSell);
    const [s] = parseEventLogs({ abi: launchpadAbi, logs: sold.receipt.logs, eventName: "TokensSold" });
    expect(s?.args.reserveAmount).toBe(quotedSell);
  });

  it("behavior: the buy crossing the threshold is capped, refunded and graduates the token into a V3 pool", async () => {
    const { token } = await trader(6).createToken("Epsilon", "EPS", { value: parseEther("0.3") });
    const t = trader(8);
    const before = await curve(token);
    const remaining = THRESHOLD - before.realReserve;
    const ethBefore = await t.ethBalance();
    const offered = parseEther("3");
    const result = await t.buy(token, offered);
    const [b] = parseEventLogs({ abi: launchpadAbi, logs: result.receipt.logs, eventName: "TokensBought" });
    const [g] = parseEventLogs({ abi: launchpadAbi, logs: result.receipt.logs, eventName: "TokenGraduated" });
    const denominator = 10_000n - PROTOCOL_BPS - CREATOR_BPS;
    const reserveAmount = (remaining * 10_000n + denominator - 1n) / denominator;
    expect(b?.args.reserveAmount).toBe(reserveAmount);
    expect(b?.args.curveValue).toBeGreaterThanOrEqual(remaining);
    const gas = result.receipt.gasUsed * result.receipt.effectiveGasPrice;
    expect(ethBefore - (await t.ethBalance())).toBe(reserveAmount + gas);

    const after = await curve(token);
    expect(after.graduated).toBe(true);
    expect(after.realReserve).toBeGreaterThanOrEqual(THRESHOLD);
    const pool = g?.args.pool as Address;
    expect(pool.toLowerCase()).toBe(after.pool.toLowerCase());
    // Nearly all of the reserve and of the remaining tokens became liquidity.
    expect(g?.args.reserveAmount).toBeGreaterThan((after.realReserve * 9_999n) / 10_000n);
    const left = await client.readContract({
      address: token,
      abi: launchpadTokenAbi,
      functionName: "balanceOf",
      args: [devnet.deployment.contracts.launchpad],
    });
    expect(left).toBeLessThan(SUPPLY / 10n ** 6n);
    // The pool starts at the curve's last price.
    const [sqrtPriceX96] = await client.readContract({
      address: pool,
      abi: uniswapV3PoolAbi,
      functionName: "slot0",
    });
    const token0 = await client.readContract({
      address: pool,
      abi: uniswapV3PoolAbi,
      functionName: "token0",
    });
    const fee = await client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: "fee" });
    expect(token0.toLowerCase()).toBe(devnet.deployment.contracts.weth);
    expect(fee).toBe(10_000);
    const priceX192 = sqrtPriceX96 * sqrtPriceX96;
    const wad = 10n ** 18n;
    const poolPrice =
      token0.toLowerCase() === token ? (priceX192 * wad) / 2n ** 192n : (2n ** 192n * wad) / priceX192; // wei per token unit × 1e18
    const curvePrice = (after.reserveBalance * wad) / after.tokenBalance;
    expect((poolPrice * 1000n) / curvePrice).toBeGreaterThanOrEqual(999n);
    expect((poolPrice * 1000n) / curvePrice).toBeLessThanOrEqual(1001n);

    // Curve trading is refused after graduation.
    await expect(t.buy(token, parseEther("0.01"))).rejects.toThrow(/AlreadyGraduated|reverted/);
    await expect(t.sell(token, 1000n)).rejects.toThrow(/AlreadyGraduated|reverted/);

    // The pool trades both ways.
    const held = await t.balanceOf(token);
    const swapIn = await t.swapExactEthForTokens(token, parseEther("0.1"));
    const [swap1] = parseEventLogs({ abi: uniswapV3PoolAbi, logs: swapIn.receipt.logs, eventName: "Swap" });
    expect(swap1?.address.toLowerCase()).toBe(pool.toLowerCase());
    const gained = (await t.balanceOf(token)) - held;
    expect(gained).toBeGreaterThan(0n);
    expect(token0.toLowerCase() === token ? -swap1!.args.amount0 : -swap1!.args.amount1).toBe(gained);
    const ethMid = await t.ethBalance();
    const swapOut = await t.swapExactTokensForEth(token, gained);
    const [swap2] = parseEventLogs({ abi: uniswapV3PoolAbi, logs: swapOut.receipt.logs, eventName: "Swap" });
    expect(swap2).toBeDefined();
    expect(await t.ethBalance()).toBeGreaterThan(ethMid - parseEther("0.01"));
    expect(await t.balanceOf(token)).toBe(held);
  });

  it("error: unknown tokens and zero amounts revert", async () => {
    const t = trader(7);
    await expect(t.buy("0x0000000000000000000000000000000000000123", parseEther("0.01"))).rejects.toThrow();
    const { token } = await t.createToken("Zeta", "ZET");
    await expect(t.buy(token, 0n)).rejects.toThrow();
    await expect(t.sell(token, 0n)).rejects.toThrow();
  });

  it("behavior: graduation prices the pool right whichever side of the pair the token is on", async () => {
    // The first token of this chain sorts below WETH (token0 of its pool); Epsilon sorts above it.
    const { pool, receipt } = await trader(1).graduate(alpha);
    expect(
      parseEventLogs({ abi: launchpadAbi, logs: receipt.logs, eventName: "TokenGraduated" }),
    ).toHaveLength(1);
    const token0 = await client.readContract({
      address: pool,
      abi: uniswapV3PoolAbi,
      functionName: "token0",
    });
    expect(token0.toLowerCase()).toBe(alpha);
    const after = await curve(alpha);
    const [sqrtPriceX96] = await client.readContract({
      address: pool,
      abi: uniswapV3PoolAbi,
      functionName: "slot0",
    });
    const wad = 10n ** 18n;
    const poolPrice = (sqrtPriceX96 * sqrtPriceX96 * wad) / 2n ** 192n;
    const curvePrice = (after.reserveBalance * wad) / after.tokenBalance;
    expect((poolPrice * 1000n) / curvePrice).toBeGreaterThanOrEqual(999n);
    expect((poolPrice * 1000n) / curvePrice).toBeLessThanOrEqual(1001n);
    const t = trader(7);
    await t.swapExactEthForTokens(alpha, parseEther("0.05"));
    expect(await t.balanceOf(alpha)).toBeGreaterThan(0n);
  });
});
