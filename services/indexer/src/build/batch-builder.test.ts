import {
  curveSpotPrice,
  EXACT_GRADUATION_GROSS,
  INITIAL_PRICE,
  poolPriceFromSqrtPriceX96,
  TERMINAL_PRICE,
  TERMINAL_SQRT_PRICE_X96_TOKEN0,
  TOTAL_SUPPLY,
  WAD,
} from "@tmi/shared/chain";
import { describe, expect, test } from "vitest";
import { decodedJsonText } from "../decode/event-decoder.js";
import { KnownState } from "../model/known-state.js";
import { buildSyntheticBatch } from "../testing/index-ranges.js";
import { addr, SyntheticChain } from "../testing/synthetic-chain.js";
import type { Batch, TokenLabelInput } from "./batch-builder.js";

const PLATFORM = { factory: addr(0xfac), weth: addr(0xffff), feeManager: addr(0xfee), manager: addr(0x3a9) };
// Tokens sort below WETH (0x…ffff): token0 of their pools.
const TOKEN = addr(0x70c);
const CURVE = addr(0xc0e);
const POOL = addr(0x900);
const CREATOR = addr(0xc1);
const ALICE = addr(0xa1);
const BOB = addr(0xb0);

async function build(
  chain: SyntheticChain,
  state: KnownState,
  from: number,
  to: number,
  labels = new Map<string, TokenLabelInput>(),
): Promise<Batch> {
  return buildSyntheticBatch(chain, state, from, to, labels, () => ({ name: "Zonk", symbol: "ZNK" }));
}

describe("buildBatch", () => {
  test("default: launch and curve trades with the platform's field mapping and post-trade prices", async () => {
    const chain = new SyntheticChain(PLATFORM)
      .block(1)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      .block(2)
      .buy(TOKEN, ALICE, WAD / 10n)
      .block(3)
      .sell(TOKEN, ALICE, 1_000_000n * WAD);
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const batch = await build(chain, state, 1, 3);

    expect(batch.newTokens).toHaveLength(1);
    expect(batch.newTokens[0]).toMatchObject({
      address: TOKEN,
      creator: CREATOR,
      name: "Zonk",
      curve: CURVE,
      pool: POOL,
      tokenIsToken0: true,
      feeManager: PLATFORM.feeManager,
      graduationThreshold: 800_000_000n * WAD,
      initialSupply: TOTAL_SUPPLY,
      price: INITIAL_PRICE,
    });
    const [buy, sell] = batch.trades;
    const bought = chain.events(2, 2).find((e) => e.name === "TokensBought")!.args;
    expect(buy).toMatchObject({
      side: "buy",
      source: "curve",
      trader: ALICE,
      reserveAmount: bought.acceptedGross,
      curveValue: bought.netCurveInput,
      tokenAmount: bought.tokensOut,
      protocolFee: bought.protocolFee,
      creatorFee: bought.creatorFee,
    });
    const sold = chain.events(3, 3).find((e) => e.name === "TokensSold")!.args;
    expect(sell).toMatchObject({
      side: "sell",
      reserveAmount: sold.netSellerOutput,
      curveValue: sold.grossCurveOutput,
      tokenAmount: 1_000_000n * WAD,
    });
    const s = chain.curveState(TOKEN);
    expect(sell!.price).toBe(curveSpotPrice(s.soldSupply, s.reserveCoordinate));
    const d = batch.tokenDeltas.get(TOKEN)!;
    expect(d.curve).toEqual({ soldSupply: s.soldSupply, reserveCoordinate: s.reserveCoordinate });
    expect(d.price).toBe(sell!.price);
    expect(d.volume).toBe((bought.netCurveInput as bigint) + (sold.grossCurveOutput as bigint));
    expect(d.fees).toBe(
      (bought.protocolFee as bigint) +
        (bought.creatorFee as bigint) +
        (sold.protocolFee as bigint) +
        (sold.creatorFee as bigint),
    );
    expect(d.latestTradeTimestamp).toBe(chain.headers(3, 3)[0]!.timestamp);
    // Holders: the curve is a platform contract, Alice holds what she kept.
    expect(batch.balances).toEqual([
      { tokenAddress: TOKEN, holder: ALICE, delta: (bought.tokensOut as bigint) - 1_000_000n * WAD },
    ]);
    // Activity: every event under its on-chain name, exact args, token present.
    expect(batch.events.map((e) => e.eventName)).toEqual([
      "Transfer",
      "TokenRegistered",
      "LaunchRegistered",
      "TokenLaunchedV3",
      "Transfer",
      "FeesDeposited",
      "TokensBought",
      "Transfer",
      "FeesDeposited",
      "TokensSold",
    ]);
    const first = batch.events[0]!;
    expect(JSON.parse(decodedJsonText(first.args, first.decodedToken))).toEqual({
      token: TOKEN,
      from: addr(0),
      to: CURVE,
      value: TOTAL_SUPPLY.toString(),
    });
    expect(batch.creators.get(CREATOR)).toMatchObject({ tokenCount: 1, volume: d.volume });
  });

  test("behavior: graduation, settlement, escrow, then pool swaps priced from sqrtPriceX96 with the sender as trader", async () => {
    const chain = new SyntheticChain(PLATFORM)
      .block(1)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      .block(2)
      .buy(TOKEN, ALICE, EXACT_GRADUATION_GROSS + WAD)
      .block(3)
      .swap(TOKEN, BOB, -5n * WAD, WAD / 10n, TERMINAL_SQRT_PRICE_X96_TOKEN0 + 10n ** 20n, true);
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const batch = await build(chain, state, 1, 3);
    const d = batch.tokenDeltas.get(TOKEN)!;
    expect(d.graduation).toMatchObject({
      manager: PLATFORM.manager,
      tokenAmount: 200_000_000n * WAD,
      soldSupply: 800_000_000n * WAD,
    });
    expect(d.settlement).toMatchObject({
      custodian: addr(0xc057),
      positionTokenId: 42n,
      liquidity: 123_456n,
    });
    expect(d.escrow).toBe(addr(0xe5c0));
    const [grad, swap] = batch.trades;
    expect(grad!.reserveAmount).toBe(EXACT_GRADUATION_GROSS);
    expect(grad!.price).toBe(TERMINAL_PRICE);
    expect(swap).toMatchObject({
      source: "uniswap_v3",
      side: "buy",
      trader: BOB,
      tokenAmount: 5n * WAD,
      reserveAmount: WAD / 10n,
      curveValue: WAD / 10n,
      protocolFee: 0n,
      creatorFee: 0n,
      price: poolPriceFromSqrtPriceX96(TERMINAL_SQRT_PRICE_X96_TOKEN0 + 10n ** 20n, true),
    });
    expect(d.price).toBe(swap!.price);
    expect(d.lastTradeSource).toBe("uniswap_v3");
    // Manager, pool and escrow are not holders; Alice and Bob are.
    expect(batch.balances.map((b) => b.holder).sort()).toEqual([ALICE, BOB].sort());
    expect(batch.events.find((e) => e.eventName === "GraduationReserveForwarded")!.tokenAddress).toBe(TOKEN);
    const swapRow = batch.events.find((e) => e.eventName === "Swap")!;
    expect(JSON.parse(decodedJsonText(swapRow.args, swapRow.decodedToken)).token).toBe(TOKEN);
  });

  test("behavior: the LP fee vault is learned from its accrual in the custodian's collection and is no holder", async () => {
    const VAULT = addr(0xfee5);
    const FAKE_VAULT = addr(0xbad5);
    const chain = new SyntheticChain(PLATFORM)
      .block(1)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      .block(2)
      .buy(TOKEN, ALICE, EXACT_GRADUATION_GROSS + WAD)
      .block(3)
      // An accrual outside a collection names nothing: its receiver stays a holder.
      .transfer(TOKEN, ALICE, FAKE_VAULT, WAD)
      .raw(FAKE_VAULT, "PermanentLPFeesAccrued", {
        launchToken: TOKEN,
        custodian: addr(0xc057),
        asset: TOKEN,
        protocolRecipient: FAKE_VAULT,
        creatorRecipient: FAKE_VAULT,
        creatorShare: 1n,
        protocolShare: 1n,
        communityShare: 0n,
        traderRewardsShare: 0n,
      })
      .collectLPFees(TOKEN, VAULT, 3n * WAD);
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const batch = await build(chain, state, 1, 3);
    const d = batch.tokenDeltas.get(TOKEN)!;
    expect(d.feeVault).toBe(VAULT);
    expect(d.escrow).toBe(addr(0xe5c0));
    expect(state.tokens.get(TOKEN)).toMatchObject({
      feeVault: VAULT,
      escrow: addr(0xe5c0),
      custodian: addr(0xc057),
    });
    expect(batch.balances.map((b) => b.holder).sort()).toEqual([ALICE, FAKE_VAULT].sort());
    // Custody logs are not activity.
    expect(batch.events.some((e) => e.eventName === "PermanentLPFeesAccrued")).toBe(false);
  });

  test("behavior: impostor contracts emitting the platform's signatures change nothing", async () => {
    const FAKE = addr(0xbad1);
    const chain = new SyntheticChain(PLATFORM)
      .block(1)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      // A launch from another "factory".
      .launch(CREATOR, addr(0x71), addr(0xc1e), addr(0x901), FAKE)
      .block(2)
      // Curve events from an impostor naming the real token.
      .raw(FAKE, "TokensBought", {
        token: TOKEN,
        buyer: ALICE,
        submittedGross: 1n,
        acceptedGross: 1n,
        netCurveInput: 1n,
        tokensOut: 10n ** 30n,
        totalFee: 0n,
        creatorFee: 0n,
        protocolFee: 0n,
        communityFee: 0n,
        traderRewardsFee: 0n,
        refund: 0n,
      })
      .raw(FAKE, "Graduated", {
        token: TOKEN,
        graduationManager: FAKE,
        tokenAmount: 1n,
        ethAmount: 1n,
        soldSupply: 1n,
      })
      .raw(FAKE, "GraduatedV3", { token: TOKEN, custodian: FAKE, tokenId: 1n, liquidity: 1n })
      .raw(FAKE, "FeesDeposited", {
        token: TOKEN,
        curve: CURVE,
        isBuy: true,
        totalFee: 1n,
        creatorFee: 1n,
        protocolFee: 0n,
        communityFee: 0n,
        traderRewardsFee: 0n,
      })
      .raw(FAKE, "Transfer", { from: CURVE, to: ALICE, value: 5n })
      // The real curve naming another token.
      .raw(CURVE, "TokensSold", {
        token: addr(0x71),
        seller: ALICE,
        tokensIn: 1n,
        grossCurveOutput: 1n,
        netSellerOutput: 1n,
        totalFee: 0n,
        creatorFee: 0n,
        protocolFee: 0n,
        communityFee: 0n,
        traderRewardsFee: 0n,
      })
      // The canonical pool before graduation.
      .swap(TOKEN, BOB, -5n, 1n, 2n ** 96n, true)
      // A GraduatedV3 from the platform manager before any Graduated.
      .raw(PLATFORM.manager, "GraduatedV3", { token: TOKEN, custodian: FAKE, tokenId: 1n, liquidity: 1n });
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const batch = await build(chain, state, 1, 2);
    expect([...state.tokens.keys()]).toEqual([TOKEN]);
    expect(batch.trades).toEqual([]);
    expect(batch.newTokens.map((t) => t.address)).toEqual([TOKEN]);
    const d = batch.tokenDeltas.get(TOKEN)!;
    expect(d.graduation).toBeNull();
    expect(d.settlement).toBeNull();
    // Only the real launch's logs and the real token's own Transfer (the pool pays Bob) are kept.
    expect(
      batch.events.filter((e) => e.blockNumber === 2).map((e) => `${e.eventName}@${e.contractAddress}`),
    ).toEqual([`Transfer@${TOKEN}`]);
  });

  test("behavior: hostile names are stored sanitized, unreadable ones empty", async () => {
    const chain = new SyntheticChain(PLATFORM)
      .block(1)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      .launch(CREATOR, addr(0x70d), addr(0xc0f), addr(0x902));
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const labels = new Map<string, TokenLabelInput>([
      [TOKEN, { name: "Evil\u0000Name\uD800", symbol: "\u202Eevil" }],
      [addr(0x70d), { name: null, symbol: null }],
    ]);
    const batch = await build(chain, state, 1, 1, labels);
    expect(batch.newTokens.map((t) => [t.name, t.symbol])).toEqual([
      ["Evil\uFFFDName\uFFFD", "\u202Eevil"],
      ["", ""],
    ]);
  });
});

describe("positions", () => {
  test("behavior: a range's trades of one position become sums, first/latest trade and fold steps with buy runs merged", async () => {
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const chain = new SyntheticChain(PLATFORM)
      .block(1)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      .block(2)
      .buy(TOKEN, ALICE, WAD / 10n)
      .buy(TOKEN, BOB, WAD / 10n)
      .buy(TOKEN, ALICE, WAD / 20n)
      .block(3)
      .sell(TOKEN, ALICE, 1_000n * WAD)
      .buy(TOKEN, ALICE, WAD / 30n);
    const batch = await build(chain, state, 1, 3);
    const trades = batch.trades.filter((t) => t.trader === ALICE);
    const p = batch.positions.get(`${TOKEN}|${ALICE}`)!;
    const [b1, b2, s1, b3] = trades as [TradeRowT, TradeRowT, TradeRowT, TradeRowT];
    expect(p.steps).toEqual([
      { buy: true, tokens: b1.tokenAmount + b2.tokenAmount, reserve: b1.reserveAmount + b2.reserveAmount },
      { buy: false, tokens: 1_000n * WAD, reserve: s1.reserveAmount },
      { buy: true, tokens: b3.tokenAmount, reserve: b3.reserveAmount },
    ]);
    expect(p).toMatchObject({
      boughtTokens: b1.tokenAmount + b2.tokenAmount + b3.tokenAmount,
      boughtReserve: b1.reserveAmount + b2.reserveAmount + b3.reserveAmount,
      soldTokens: 1_000n * WAD,
      soldReserve: s1.reserveAmount,
      buyCount: 3,
      sellCount: 1,
      first: b1,
      last: b3,
    });
    expect(batch.positions.get(`${TOKEN}|${BOB}`)!.steps).toHaveLength(1);
  });
});

type TradeRowT = Batch["trades"][number];

describe("risk", () => {
  test("behavior: dev buy until another trader, sniper candidates by first trade in the window, insiders, holders' and platform sums, first trade reaching the all-time high", async () => {
    const CAROL = addr(0xca);
    const DAVE = addr(0xd0);
    const chain = new SyntheticChain(PLATFORM)
      .block(10)
      .launch(CREATOR, TOKEN, CURVE, POOL)
      .buy(TOKEN, CREATOR, WAD / 10n)
      .buy(TOKEN, ALICE, WAD / 10n)
      .buy(TOKEN, CREATOR, WAD / 10n) // after Alice: not a dev buy
      .block(11)
      .transfer(TOKEN, ALICE, BOB, 10n * WAD)
      .sell(TOKEN, BOB, WAD) // Bob's first trade is a sell: no sniper
      .buy(TOKEN, BOB, WAD / 10n)
      .block(12)
      .buy(TOKEN, CAROL, WAD / 10n) // last block of the window
      .transfer(TOKEN, CREATOR, DAVE, 1_000n * WAD)
      .transfer(TOKEN, CREATOR, DAVE, 5n * WAD)
      .block(13)
      .buy(TOKEN, DAVE, WAD / 10n); // after the window
    const state = new KnownState(PLATFORM.factory, PLATFORM.weth, null);
    const batch = await build(chain, state, 10, 13);
    const d = batch.risk.get(TOKEN)!;
    const buys = chain.events(10, 10).filter((e) => e.name === "TokensBought");
    expect(d.devBuyCount).toBe(1);
    expect(d.devBuyTokens).toBe(buys[0]!.args.tokensOut);
    expect(d.devBuyReserve).toBe(buys[0]!.args.acceptedGross);
    expect(d.otherTraded).toBe(true);
    expect(d.snipers).toEqual([
      { wallet: ALICE, launchBlock: true },
      { wallet: CAROL, launchBlock: false },
    ]);
    expect(d.creatorTransferredOut).toBe(1_005n * WAD);
    expect([...d.insiders]).toEqual([[DAVE, 1_005n * WAD]]);
    // Every token is minted to platform contracts or holders: the two sums add up to the supply.
    expect(d.holdersDelta + d.platformDelta).toBe(TOTAL_SUPPLY);
    const holders = batch.balances.reduce((s, b) => s + b.delta, 0n);
    expect(d.holdersDelta).toBe(holders);
    // Buys only raise the curve price: the all-time high is the last buy's.
    const last = batch.trades[batch.trades.length - 1]!;
    expect(d.ath).toEqual({
      price: last.price,
      blockNumber: 13,
      logIndex: last.logIndex,
      timestamp: last.blockTimestamp,
    });
  });
});
