import { poolPriceFromSqrtPriceX96, uniswapV3PoolAbi } from "@tmi/shared/chain";
import { tradeRow } from "../model/trades.js";
import { declareEvents, type EventHandler, knownEmitter } from "./declaration.js";

/**
 * `Swap` (a canonical pool, after its token's `Graduated`): a `uniswap_v3` trade —
 * `reserve_amount` = `curve_value` = the WETH leg, fees 0, `buy` when the pool pays out tokens,
 * trader = the transaction's sender — priced with the swap's sqrtPriceX96 (token order aware,
 * floored), which becomes the token's current price.
 * @throws Error when the transaction's sender was not fetched.
 */
const onSwap: EventHandler<"Swap"> = (e, p, b) => {
  const token = b.state.pools.get(e.address)!;
  const info = b.state.tokens.get(token)!;
  const trader = b.ctx.senders.get(e.transactionHash);
  if (trader === undefined) throw new Error(`sender of ${e.transactionHash} unknown`);
  const amount0 = e.args.amount0;
  const amount1 = e.args.amount1;
  const tokenDelta = info.tokenIsToken0 ? amount0 : amount1;
  const wethDelta = info.tokenIsToken0 ? amount1 : amount0;
  const weth = wethDelta < 0n ? -wethDelta : wethDelta;
  const side = tokenDelta < 0n ? "buy" : "sell";
  const tokenAmount = tokenDelta < 0n ? -tokenDelta : tokenDelta;
  const price = poolPriceFromSqrtPriceX96(e.args.sqrtPriceX96, info.tokenIsToken0);
  b.trade(tradeRow(p, token, trader, side, "uniswap_v3", tokenAmount, weth, weth, 0n, 0n, price, null, null));
  b.activity(token, true);
};

/** The token's canonical Uniswap V3 pool (see docs/indexer.md, "Events"). */
export const POOL_EVENTS = declareEvents({
  Swap: {
    abi: uniswapV3PoolAbi,
    // Every Uniswap V3 pool emits it: fetched from the graduated tokens' pools only.
    filter: "emitter",
    keys: knownEmitter("pool").keys,
    // Only from a canonical pool, after its token's `Graduated`.
    accept(e, state) {
      const token = state.pools.get(e.address);
      const at = token === undefined ? null : state.tokens.get(token)!.graduatedAt;
      return (
        at !== null &&
        (at.blockNumber < e.blockNumber || (at.blockNumber === e.blockNumber && at.logIndex < e.logIndex))
      );
    },
    handle: onSwap,
  },
});
