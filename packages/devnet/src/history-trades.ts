import { swapRouterAbi } from "@tmi/contracts";
import {
  applyBuy,
  applySell,
  CURVE_ALLOCATION,
  type CurveState,
  GRADUATION_NET_ETH,
  grossRequiredForNet,
  POOL_FEE,
  quoteBuy,
  quoteSell,
  zonkCurveV3Abi,
} from "@tmi/shared/chain";
import { type Address, encodeFunctionData, erc20Abi, maxUint256, type PublicClient } from "viem";
import { rpc } from "./clients.js";
import { type BlockSender, hex } from "./history-sender.js";
import type { Random } from "./random.js";

/** Deadline of every trade: far in the future (2^40 s). */
const DEADLINE = 2n ** 40n;

/** A launched token as the history loader mirrors it. */
export interface HistoryToken {
  address: `0x${string}`;
  curve: `0x${string}`;
  /** The curve's state as the local mirror predicts it (shared curve math). */
  state: CurveState;
  /** Tokens each holder is known to hold at least (credited at 95 % of what the mirror predicts). */
  holders: Map<Address, bigint>;
  graduated: boolean;
}

/** Where {@link HistoryTrades} trades: the chain, its wallets and the Uniswap side of the deployment. */
export interface HistoryTradesContext {
  rpcUrl: string;
  client: PublicClient;
  sender: BlockSender;
  random: Random;
  /** Impersonated trader wallets. */
  traders: Address[];
  tokens: HistoryToken[];
  swapRouter: Address;
  weth: Address;
  blockGasLimit: bigint;
}

/** Pool swaps after each graduation (every third sells tokens back, the others buy). */
export const SWAPS_PER_GRADUATION = 10;

/**
 * Queues the history's trades on a {@link BlockSender}: curve buys and sells sized by the local
 * mirror, graduation buys, and swaps on the graduated tokens' canonical pools.
 */
export class HistoryTrades {
  private readonly approved = new Set<string>();
  /** A curve is kept below this reserve (60 % of the 3 ETH net graduation target). */
  private readonly limit = (GRADUATION_NET_ETH * 6n) / 10n;

  constructor(private readonly ctx: HistoryTradesContext) {}

  /** Queues `owner`'s approval of `spender` for `token` (once per triple). */
  private approve(owner: Address, token: `0x${string}`, spender: Address): void {
    const key = `${owner}:${token}:${spender}`;
    if (this.approved.has(key)) return;
    this.approved.add(key);
    this.ctx.sender.push({
      from: owner,
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
      gas: 80_000n,
    });
  }

  /**
   * Queues one curve trade on a token not graduated (popular tokens get more trades: a
   * squared-uniform index): a sell of up to half of what a known holder holds when the curve is
   * near the limit or 40 % of the time, else a buy that keeps the curve below the limit.
   */
  curveTrade(): void {
    const { random, sender, traders } = this.ctx;
    const open = this.ctx.tokens.filter((t) => !t.graduated);
    const token = open[Math.floor(random.next() ** 2 * open.length)]!;
    const limit = this.limit;
    const wantSell = token.holders.size > 0 && (token.state.reserveCoordinate > limit || random.chance(0.4));
    if (wantSell) {
      const holders = [...token.holders.keys()];
      const seller = random.pick(holders);
      const known = token.holders.get(seller)!;
      const amount = known / 2n <= 1000n ? known / 2n : random.fraction(known / 2n, 0.3, 1);
      const quote = amount > 0n ? tryQuote(() => quoteSell(token.state, amount)) : undefined;
      if (quote) {
        token.state = applySell(token.state, quote);
        const left = known - amount;
        if (left < 10n ** 12n) token.holders.delete(seller);
        else token.holders.set(seller, left);
        this.approve(seller, token.address, token.curve);
        sender.push({
          from: seller,
          to: token.curve,
          data: encodeFunctionData({
            abi: zonkCurveV3Abi,
            functionName: "sell",
            args: [amount, 0n, DEADLINE],
          }),
          gas: 300_000n,
        });
        return;
      }
    }
    let value = random.ethAmount(0.02, 1.2, 0.0005, 0.3);
    const room = limit - token.state.reserveCoordinate;
    if (room <= 0n) value = 10n ** 14n;
    else if (value > room) value = room / 2n + 10n ** 14n;
    const buyer = random.pick(traders);
    const quote = quoteBuy(token.state, value);
    token.state = applyBuy(token.state, quote);
    // Credit 95% of the expected amount: sells stay within balances even if the mirror drifts.
    token.holders.set(buyer, (token.holders.get(buyer) ?? 0n) + (quote.tokensOut * 95n) / 100n);
    sender.push({
      from: buyer,
      to: token.curve,
      data: encodeFunctionData({ abi: zonkCurveV3Abi, functionName: "buy", args: [0n, DEADLINE] }),
      value,
      gas: 300_000n,
    });
  }

  /**
   * Graduates `graduated` (one buy each, sized from the chain's reserve: exact), sends them, then
   * queues {@link SWAPS_PER_GRADUATION} swaps on each one's canonical pool through the SwapRouter
   * (ETH→token; every third the graduating buyer sells 0.5–2 % of what its buy gave it →WETH).
   */
  async graduate(graduated: HistoryToken[]): Promise<void> {
    const { client, rpcUrl, random, sender, traders, swapRouter, weth } = this.ctx;
    const graduators = new Map<`0x${string}`, { buyer: Address; tokens: bigint }>();
    for (const token of graduated) {
      token.graduated = true;
      const [reserve, sold] = await Promise.all([
        client.readContract({ address: token.curve, abi: zonkCurveV3Abi, functionName: "activeEthReserve" }),
        client.readContract({ address: token.curve, abi: zonkCurveV3Abi, functionName: "soldSupply" }),
      ]);
      // Overpay by 0.01 ETH: the curve accepts the exact gross and refunds the rest.
      const value = grossRequiredForNet(GRADUATION_NET_ETH - reserve) + 10n ** 16n;
      const buyer = random.pick(traders);
      const data = encodeFunctionData({ abi: zonkCurveV3Abi, functionName: "buy", args: [0n, DEADLINE] });
      const estimate = BigInt(
        await rpc<string>(rpcUrl, "eth_estimateGas", [
          { from: buyer, to: token.curve, data, value: hex(value) },
        ]),
      );
      sender.push({
        from: buyer,
        to: token.curve,
        data,
        value,
        gas: minBigint((estimate * 3n) / 2n, this.ctx.blockGasLimit),
      });
      graduators.set(token.address, { buyer, tokens: CURVE_ALLOCATION - sold });
    }
    await sender.send();
    for (const token of graduated) {
      const graduator = graduators.get(token.address)!;
      for (let i = 0; i < SWAPS_PER_GRADUATION; i++) {
        const sell = i % 3 === 2;
        if (sell) this.approve(graduator.buyer, token.address, swapRouter);
        // The random draws in the order the loader has always made them (same seed, same history).
        const value = sell ? 0n : random.ethAmount(0.05, 1, 0.001, 0.5);
        const from = sell ? graduator.buyer : random.pick(traders);
        const params = sell
          ? {
              tokenIn: token.address,
              tokenOut: weth,
              recipient: graduator.buyer,
              amountIn: random.fraction(graduator.tokens, 0.005, 0.02),
            }
          : { tokenIn: weth, tokenOut: token.address, recipient: random.pick(traders), amountIn: value };
        sender.push({
          from,
          to: swapRouter,
          data: encodeFunctionData({
            abi: swapRouterAbi,
            functionName: "exactInputSingle",
            args: [
              { ...params, fee: POOL_FEE, deadline: DEADLINE, amountOutMinimum: 0n, sqrtPriceLimitX96: 0n },
            ],
          }),
          ...(sell ? {} : { value }),
          gas: 400_000n,
        });
      }
    }
  }
}

/** The smaller of two bigints. */
export const minBigint = (a: bigint, b: bigint) => (a < b ? a : b);

/** The quote, or undefined where the curve would revert (dust, reserve): the trade is not sent. */
function tryQuote<T>(quote: () => T): T | undefined {
  try {
    return quote();
  } catch {
    return undefined;
  }
}
