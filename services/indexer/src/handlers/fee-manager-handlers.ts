import type { EventHandler } from "../model/range-builder.js";

/**
 * `TokenRegistered` and `FeesDeposited` (the token's fee manager): activity only. Fee shares of
 * trades come from the curve's own events; the community and trader-rewards shares stay here.
 */
export const onTokenRegistered: EventHandler<"TokenRegistered"> = (e, _p, b) => {
  b.activity(e.args.token);
};

/** `FeesDeposited`: see {@link onTokenRegistered}. */
export const onFeesDeposited: EventHandler<"FeesDeposited"> = (e, _p, b) => {
  b.activity(e.args.token);
};
