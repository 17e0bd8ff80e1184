import { applyBuy, applySell, curveSpotPrice } from "@tmi/shared/chain";
import type { DecodedEventOf } from "../decode/event-decoder.js";
import type { EventHandler } from "../model/range-builder.js";

/**
 * Records one curve trade of `token` after its curve state has moved: the trade row priced with the
 * curve's spotPrice() after the trade, the token's new curve state, and the activity entry.
 * @dev positional arguments, no intermediate objects: this runs once per curve event (hot path).
 */
function recordCurveTrade(
  p: Parameters<EventHandler>[1],
  b: Parameters<EventHandler>[2],
  token: string,
  trader: string,
  side: "buy" | "sell",
  tokenAmount: bigint,
  reserveAmount: bigint,
  curveValue: bigint,
  e: DecodedEventOf<"TokensBought" | "TokensSold">,
): void {
  const { soldSupply, reserveCoordinate } = b.state.tokens.get(token)!.curveState;
  b.trade({
    blockNumber: p.blockNumber,
    logIndex: p.logIndex,
    transactionIndex: p.transactionIndex,
    transactionHash: p.transactionHash,
    blockTimestamp: p.blockTimestamp,
    tokenAddress: token,
    trader,
    side,
    source: "curve",
    tokenAmount,
    reserveAmount,
    curveValue,
    protocolFee: e.args.protocolFee,
    creatorFee: e.args.creatorFee,
    price: curveSpotPrice(soldSupply, reserveCoordinate),
  });
  b.token(token, p.blockNumber).curve = { soldSupply, reserveCoordinate };
  b.activity(token);
}

/**
 * `TokensBought` (curve): a `curve` buy trade — `reserve_amount` = acceptedGross, `curve_value`
 * = netCurveInput, `token_amount` = tokensOut, fees protocolFee/creatorFee — priced with the
 * curve's spotPrice() after the trade; the curve state moves (soldSupply += tokensOut,
 * reserveCoordinate += netCurveInput).
 */
export const onTokensBought: EventHandler<"TokensBought"> = (e, p, b) => {
  const token = e.args.token;
  const info = b.state.tokens.get(token)!;
  const tokensOut = e.args.tokensOut;
  const netCurveInput = e.args.netCurveInput;
  info.curveState = applyBuy(info.curveState, { tokensOut, netCurveInput });
  recordCurveTrade(p, b, token, e.args.buyer, "buy", tokensOut, e.args.acceptedGross, netCurveInput, e);
};

/**
 * `TokensSold` (curve): a `curve` sell trade — `reserve_amount` = netSellerOutput, `curve_value`
 * = grossCurveOutput, `token_amount` = tokensIn — priced with spotPrice() after the trade; the
 * curve state moves back (soldSupply −= tokensIn, reserveCoordinate −= grossCurveOutput).
 */
export const onTokensSold: EventHandler<"TokensSold"> = (e, p, b) => {
  const token = e.args.token;
  const info = b.state.tokens.get(token)!;
  const tokensIn = e.args.tokensIn;
  const grossCurveOutput = e.args.grossCurveOutput;
  info.curveState = applySell(info.curveState, { tokensIn, grossCurveOutput });
  recordCurveTrade(p, b, token, e.args.seller, "sell", tokensIn, e.args.netSellerOutput, grossCurveOutput, e);
};

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
