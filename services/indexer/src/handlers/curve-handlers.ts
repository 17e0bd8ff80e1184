import { applyBuy, applySell, curveSpotPrice } from "@tmi/shared/chain";
import type { DecodedEventOf } from "../decode/event-decoder.js";
import type { EventHandler } from "../model/range-builder.js";
import { tradeRow } from "../read-models/trades.js";

/**
 * Records one curve trade of the event's token: the curve state moves by the trade's token amount
 * and curve value (a buy adds both, a sell takes both back: `applyBuy`/`applySell`), then the
 * trade row priced with the curve's spotPrice() after the trade, the token's new curve state, and
 * the activity entry.
 * @dev positional arguments, no intermediate objects: this runs once per curve event (hot path).
 */
function recordCurveTrade(
  e: DecodedEventOf<"TokensBought" | "TokensSold">,
  p: Parameters<EventHandler>[1],
  b: Parameters<EventHandler>[2],
  trader: string,
  side: "buy" | "sell",
  tokenAmount: bigint,
  reserveAmount: bigint,
  curveValue: bigint,
): void {
  const token = e.args.token;
  const info = b.state.tokens.get(token)!;
  info.curveState =
    side === "buy"
      ? applyBuy(info.curveState, { tokensOut: tokenAmount, netCurveInput: curveValue })
      : applySell(info.curveState, { tokensIn: tokenAmount, grossCurveOutput: curveValue });
  const { soldSupply, reserveCoordinate } = info.curveState;
  b.trade(
    tradeRow(
      p,
      token,
      trader,
      side,
      "curve",
      tokenAmount,
      reserveAmount,
      curveValue,
      e.args.protocolFee,
      e.args.creatorFee,
      curveSpotPrice(soldSupply, reserveCoordinate),
    ),
  );
  b.token(token, p.blockNumber).curve = { soldSupply, reserveCoordinate };
  b.activity(token);
}

/**
 * `TokensBought` (curve): a `curve` buy trade — `reserve_amount` = acceptedGross, `curve_value`
 * = netCurveInput, `token_amount` = tokensOut, fees protocolFee/creatorFee — priced with the
 * curve's spotPrice() after the trade; the curve state moves (soldSupply += tokensOut,
 * reserveCoordinate += netCurveInput).
 */
export const onTokensBought: EventHandler<"TokensBought"> = (e, p, b) =>
  recordCurveTrade(
    e,
    p,
    b,
    e.args.buyer,
    "buy",
    e.args.tokensOut,
    e.args.acceptedGross,
    e.args.netCurveInput,
  );

/**
 * `TokensSold` (curve): a `curve` sell trade — `reserve_amount` = netSellerOutput, `curve_value`
 * = grossCurveOutput, `token_amount` = tokensIn — priced with spotPrice() after the trade; the
 * curve state moves back (soldSupply −= tokensIn, reserveCoordinate −= grossCurveOutput).
 */
export const onTokensSold: EventHandler<"TokensSold"> = (e, p, b) =>
  recordCurveTrade(
    e,
    p,
    b,
    e.args.seller,
    "sell",
    e.args.tokensIn,
    e.args.netSellerOutput,
    e.args.grossCurveOutput,
  );

/**
 * `Graduated` (curve): the token's lifecycle becomes `graduated`; manager, amounts, sold supply
 * and the position of this log (`curve_terminal_at`) are recorded.
 * @dev the manager and position were registered in the known state by `selectEvents` (pass 1).
 */
export const onGraduated: EventHandler<"Graduated"> = (e, p, b) => {
  const token = e.args.token;
  const info = b.state.tokens.get(token)!;
  info.curveState = { ...info.curveState, graduated: true };
  b.token(token, p.blockNumber).graduation = {
    manager: e.args.graduationManager,
    tokenAmount: e.args.tokenAmount,
    ethAmount: e.args.ethAmount,
    soldSupply: e.args.soldSupply,
    blockNumber: p.blockNumber,
    transactionHash: p.transactionHash,
    logIndex: p.logIndex,
    timestamp: p.blockTimestamp,
  };
  b.activity(token);
};

/** `GraduationReserveForwarded` (curve, no token argument): activity of the curve's token. */
export const onGraduationReserveForwarded: EventHandler<"GraduationReserveForwarded"> = (e, _p, b) => {
  b.activity(b.state.curves.get(e.address)!, true);
};
