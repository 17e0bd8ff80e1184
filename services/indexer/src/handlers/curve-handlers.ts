import { applyBuy, applySell, curveSpotPrice } from "@tmi/shared/chain";
import type { EventHandler } from "../model/batch-builder.js";

/**
 * `TokensBought` (curve): a `curve` buy trade — `reserve_amount` = acceptedGross, `curve_value`
 * = netCurveInput, `token_amount` = tokensOut, fees protocolFee/creatorFee — priced with the
 * curve's spotPrice() after the trade; the curve state moves (soldSupply += tokensOut,
 * reserveCoordinate += netCurveInput).
 */
export const onTokensBought: EventHandler = (e, p, b) => {
  const token = e.args.token as string;
  const info = b.state.tokens.get(token)!;
  const tokensOut = e.args.tokensOut as bigint;
  const netCurveInput = e.args.netCurveInput as bigint;
  info.curveState = applyBuy(info.curveState, { tokensOut, netCurveInput });
  const { soldSupply, reserveCoordinate } = info.curveState;
  b.trade({
    blockNumber: p.blockNumber,
    logIndex: p.logIndex,
    transactionIndex: p.transactionIndex,
    transactionHash: p.transactionHash,
    blockTimestamp: p.blockTimestamp,
    tokenAddress: token,
    trader: e.args.buyer as string,
    side: "buy",
    source: "curve",
    tokenAmount: tokensOut,
    reserveAmount: e.args.acceptedGross as bigint,
    curveValue: netCurveInput,
    protocolFee: e.args.protocolFee as bigint,
    creatorFee: e.args.creatorFee as bigint,
    price: curveSpotPrice(soldSupply, reserveCoordinate),
  });
  b.token(token, p.blockNumber).curve = { soldSupply, reserveCoordinate };
  b.activity(token);
};

/**
 * `TokensSold` (curve): a `curve` sell trade — `reserve_amount` = netSellerOutput, `curve_value`
 * = grossCurveOutput, `token_amount` = tokensIn — priced with spotPrice() after the trade; the
 * curve state moves back (soldSupply −= tokensIn, reserveCoordinate −= grossCurveOutput).
 */
export const onTokensSold: EventHandler = (e, p, b) => {
  const token = e.args.token as string;
  const info = b.state.tokens.get(token)!;
  const tokensIn = e.args.tokensIn as bigint;
  const grossCurveOutput = e.args.grossCurveOutput as bigint;
  info.curveState = applySell(info.curveState, { tokensIn, grossCurveOutput });
  const { soldSupply, reserveCoordinate } = info.curveState;
  b.trade({
    blockNumber: p.blockNumber,
    logIndex: p.logIndex,
    transactionIndex: p.transactionIndex,
    transactionHash: p.transactionHash,
    blockTimestamp: p.blockTimestamp,
    tokenAddress: token,
    trader: e.args.seller as string,
    side: "sell",
    source: "curve",
    tokenAmount: tokensIn,
    reserveAmount: e.args.netSellerOutput as bigint,
    curveValue: grossCurveOutput,
    protocolFee: e.args.protocolFee as bigint,
    creatorFee: e.args.creatorFee as bigint,
    price: curveSpotPrice(soldSupply, reserveCoordinate),
  });
  b.token(token, p.blockNumber).curve = { soldSupply, reserveCoordinate };
  b.activity(token);
};

/**
 * `Graduated` (curve): the token's lifecycle becomes `graduated`; manager, amounts, sold supply
 * and the position of this log (`curve_terminal_at`) are recorded.
 * @dev the manager and position were registered in the known state by `selectEvents` (pass 1).
 */
export const onGraduated: EventHandler = (e, p, b) => {
  const token = e.args.token as string;
  const info = b.state.tokens.get(token)!;
  info.curveState = { ...info.curveState, graduated: true };
  b.token(token, p.blockNumber).graduation = {
    manager: e.args.graduationManager as string,
    tokenAmount: e.args.tokenAmount as bigint,
    ethAmount: e.args.ethAmount as bigint,
    soldSupply: e.args.soldSupply as bigint,
    blockNumber: p.blockNumber,
    transactionHash: p.transactionHash,
    logIndex: p.logIndex,
    timestamp: p.blockTimestamp,
  };
  b.activity(token);
};

/** `GraduationReserveForwarded` (curve, no token argument): activity of the curve's token. */
export const onGraduationReserveForwarded: EventHandler = (e, _p, b) => {
  b.activity(b.state.curves.get(e.address)!, true);
};
