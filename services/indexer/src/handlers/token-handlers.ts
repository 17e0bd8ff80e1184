import type { EventHandler } from "../model/batch-builder.js";
import { ZERO_ADDRESS } from "../model/known-state.js";

/**
 * `Transfer` (a launched token): balances of holders (the token's platform contracts are not
 * holders). A transfer from the token's graduation manager to anything but the pool names the
 * residual escrow, which is a platform contract from then on.
 */
export const onTransfer: EventHandler = (e, p, b) => {
  const token = e.address;
  const info = b.state.tokens.get(token)!;
  const from = e.args.from as string;
  const to = e.args.to as string;
  const value = e.args.value as bigint;
  const d = b.token(token, p.blockNumber);
  if (
    info.escrow === null &&
    info.graduationManager !== null &&
    from === info.graduationManager &&
    to !== info.pool &&
    to !== ZERO_ADDRESS
  ) {
    info.escrow = to;
    d.escrow = to;
  }
  b.balance(info, from, -value);
  b.balance(info, to, value);
  b.activity(token, true);
};
