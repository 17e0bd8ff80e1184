import type { EventHandler } from "../model/batch-builder.js";

/**
 * `TokenRegistered` and `FeesDeposited` (the token's fee manager): activity only. Fee shares of
 * trades come from the curve's own events; the community and trader-rewards shares stay here.
 */
export const onFeeManagerEvent: EventHandler = (e, _p, b) => {
  b.activity(e.args.token as string);
};
