import { applyBuy, applySell, curveSpotPrice, zonkCurveV3Abi } from "@tmi/shared/chain";
import type { DecodedEventOf } from "../decode/event-decoder.js";
import type { KnownState } from "../model/known-state.js";
import { tradeRow } from "../model/trades.js";
import { declareEvents, type EventHandler, type KeySink, knownEmitter } from "./declaration.js";

/**
 * Records one curve trade of the event's token: the curve state moves by the trade's token amount
 * and curve value (a buy adds both, a sell takes both back: `applyBuy`/`applySell`), then the
 * trade row priced with the curve's spotPrice() after the trade and carrying that state, the token's new curve state, and
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
      soldSupply,
      reserveCoordinate,
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
const onTokensBought: EventHandler<"TokensBought"> = (e, p, b) =>
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
const onTokensSold: EventHandler<"TokensSold"> = (e, p, b) =>
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
 * @dev the manager and position were registered in the known state by its `learn` (pass 1).
 */
const onGraduated: EventHandler<"Graduated"> = (e, p, b) => {
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
const onGraduationReserveForwarded: EventHandler<"GraduationReserveForwarded"> = (e, _p, b) => {
  b.activity(b.state.curves.get(e.address)!, true);
};

/**
 * The fields of a curve event naming its token: its keys are the curve (emitter) and the token;
 * it is accepted only from a known curve, for that curve's token.
 */
const CURVE_TOKEN_EVENT = {
  abi: zonkCurveV3Abi,
  filter: "platform",
  keys(e: DecodedEventOf<"TokensBought" | "TokensSold" | "Graduated">, k: KeySink) {
    k.curve(e.address);
    k.token(e.args.token);
  },
  accept(e: DecodedEventOf<"TokensBought" | "TokensSold" | "Graduated">, state: KnownState) {
    const token = state.curves.get(e.address);
    return token !== undefined && token === e.args.token;
  },
} as const;

/** The token's curve: its trades and its graduation (see docs/indexer.md, "Events"). */
export const CURVE_EVENTS = declareEvents({
  TokensBought: { ...CURVE_TOKEN_EVENT, handle: onTokensBought },
  TokensSold: { ...CURVE_TOKEN_EVENT, handle: onTokensSold },
  Graduated: {
    ...CURVE_TOKEN_EVENT,
    // Pass 1: the graduation manager it names and its position (pool swaps count after it).
    learn: {
      pass: 1,
      apply(e, state, scan) {
        const token = state.curves.get(e.address);
        if (token === undefined || token !== e.args.token) return;
        const info = state.tokens.get(token)!;
        if (info.graduatedAt !== null) return;
        info.graduationManager = e.args.graduationManager;
        info.graduatedAt = { blockNumber: e.blockNumber, logIndex: e.logIndex };
        scan.graduationTx.set(e.transactionHash, token);
      },
    },
    // After the range's launches: the canonical pool's swaps are fetched from now on.
    grow: {
      pass: 3,
      apply(e, set, added) {
        const pool = set.graduated(e.address, e.args.token);
        if (pool !== null) added.push(pool);
      },
    },
    handle: onGraduated,
  },
  // No token argument: its curve's token.
  GraduationReserveForwarded: {
    abi: zonkCurveV3Abi,
    filter: "platform",
    ...knownEmitter("curve"),
    handle: onGraduationReserveForwarded,
  },
});
