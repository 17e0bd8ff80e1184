import type { EventHandler } from "../model/batch-builder.js";

/** `LaunchRegistered` (graduation manager, in the launch transaction): activity only. */
export const onLaunchRegistered: EventHandler = (e, _p, b) => {
  b.activity(e.args.token as string);
};

/**
 * `GraduatedV3` (the manager named in the token's `Graduated`): settlement — LP custodian,
 * position token id, liquidity and the position of this log (`settled_at`).
 */
export const onGraduatedV3: EventHandler = (e, p, b) => {
  const token = e.args.token as string;
  const info = b.state.tokens.get(token)!;
  const custodian = e.args.custodian as string;
  info.custodian = custodian;
  b.token(token, p.blockNumber).settlement = {
    custodian,
    positionTokenId: e.args.tokenId as bigint,
    liquidity: e.args.liquidity as bigint,
    blockNumber: p.blockNumber,
    transactionHash: p.transactionHash,
    logIndex: p.logIndex,
  };
  b.activity(token);
};
