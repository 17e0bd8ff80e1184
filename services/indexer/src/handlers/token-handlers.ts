import type { EventHandler } from "../model/range-builder.js";

/**
 * `Transfer` (a launched token): balances of holders (the token's platform contracts are not
 * holders: `isExcludedHolder` of `@tmi/shared/market`).
 */
export const onTransfer: EventHandler<"Transfer"> = (e, p, b) => {
  const token = e.address;
  const info = b.state.tokens.get(token)!;
  const from = e.args.from;
  const to = e.args.to;
  const value = e.args.value;
  b.token(token, p.blockNumber);
  b.balance(info, from, -value);
  b.balance(info, to, value);
  b.activity(token, true);
};
