import type { EventHandler } from "../model/range-builder.js";

/** `LaunchRegistered` (graduation manager, in the launch transaction): activity only. */
export const onLaunchRegistered: EventHandler<"LaunchRegistered"> = (e, _p, b) => {
  b.activity(e.args.token);
};

/**
 * `GraduatedV3` (the manager named in the token's `Graduated`): settlement — LP custodian,
 * position token id, liquidity and the position of this log (`settled_at`).
 */
export const onGraduatedV3: EventHandler<"GraduatedV3"> = (e, p, b) => {
  const token = e.args.token;
  const info = b.state.tokens.get(token)!;
  const custodian = e.args.custodian;
  info.custodian = custodian;
  b.token(token, p.blockNumber).settlement = {
    custodian,
    positionTokenId: e.args.tokenId,
    liquidity: e.args.liquidity,
    blockNumber: p.blockNumber,
    transactionHash: p.transactionHash,
    logIndex: p.logIndex,
  };
  b.activity(token);
};
