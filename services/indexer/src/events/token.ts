import { erc20Abi } from "@tmi/shared/chain";
import { declareEvents, type EventHandler, knownEmitter } from "./declaration.js";

/**
 * `Transfer` (a launched token): balances of holders (the token's platform contracts are not
 * holders: `isExcludedHolder` of `@tmi/shared/market`) and the risk figures it moves.
 */
const onTransfer: EventHandler<"Transfer"> = (e, p, b) => {
  const token = e.address;
  const info = b.state.tokens.get(token)!;
  const from = e.args.from;
  const to = e.args.to;
  const value = e.args.value;
  b.token(token, p.blockNumber);
  b.transfer(info, from, to, value);
  b.activity(token, true);
};

/** The launched token (see docs/indexer.md, "Events"). */
export const TOKEN_EVENTS = declareEvents({
  Transfer: {
    abi: erc20Abi,
    // Every ERC-20 emits it: fetched from the known tokens only.
    filter: "emitter",
    ...knownEmitter("token"),
    handle: onTransfer,
  },
});
