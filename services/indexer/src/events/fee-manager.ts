import { feeManagerV3Abi } from "@tmi/shared/chain";
import { declareEvents, type EventHandler, tokenAndCurveKeys } from "./declaration.js";

/**
 * `TokenRegistered` and `FeesDeposited` (the token's fee manager): activity only. Fee shares of
 * trades come from the curve's own events; the community and trader-rewards shares stay here.
 */
const onTokenRegistered: EventHandler<"TokenRegistered"> = (e, _p, b) => {
  b.activity(e.args.token);
};

/** `FeesDeposited`: see {@link onTokenRegistered}. */
const onFeesDeposited: EventHandler<"FeesDeposited"> = (e, _p, b) => {
  b.activity(e.args.token);
};

/** The token's fee manager (see docs/indexer.md, "Events"). */
export const FEE_MANAGER_EVENTS = declareEvents({
  TokenRegistered: {
    abi: feeManagerV3Abi,
    filter: "platform",
    keys: tokenAndCurveKeys,
    // Pass 2: in the launch transaction of the token it names, for its curve: the token's fee manager.
    learn: {
      pass: 2,
      apply(e, state, scan) {
        if (scan.launchTx.get(e.transactionHash) !== e.args.token) return;
        const info = state.tokens.get(e.args.token)!;
        if (info.feeManager === null && e.args.curve === info.curve) info.feeManager = e.address;
      },
    },
    accept(e, state, scan) {
      const info = state.tokens.get(e.args.token);
      return (
        info !== undefined &&
        info.feeManager === e.address &&
        scan.launchTx.get(e.transactionHash) === info.address
      );
    },
    handle: onTokenRegistered,
  },
  FeesDeposited: {
    abi: feeManagerV3Abi,
    filter: "platform",
    keys: tokenAndCurveKeys,
    // Only from the fee manager that registered the token, for its curve.
    accept(e, state) {
      const info = state.tokens.get(e.args.token);
      return info !== undefined && info.feeManager === e.address && e.args.curve === info.curve;
    },
    handle: onFeesDeposited,
  },
});
