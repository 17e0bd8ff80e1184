import { poolPriceFromSqrtPriceX96 } from "@tmi/shared/chain";
import type { EventHandler } from "../model/range-builder.js";
import { tradeRow } from "../read-models/trades.js";

/**
 * `Swap` (a canonical pool, after its token's `Graduated`): a `uniswap_v3` trade —
 * `reserve_amount` = `curve_value` = the WETH leg, fees 0, `buy` when the pool pays out tokens,
 * trader = the transaction's sender — priced with the swap's sqrtPriceX96 (token order aware,
 * floored), which becomes the token's current price.
 * @throws Error when the transaction's sender was not fetched.
 */
export const onSwap: EventHandler<"Swap"> = (e, p, b) => {
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
  b.trade(tradeRow(p, token, trader, side, "uniswap_v3", tokenAmount, weth, weth, 0n, 0n, price));
  b.activity(token, true);
};
