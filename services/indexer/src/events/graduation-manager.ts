import { graduationManagerV3Abi } from "@tmi/shared/chain";
import { declareEvents, type EventHandler, tokenAndCurveKeys } from "./declaration.js";

/** `LaunchRegistered` (graduation manager, in the launch transaction): activity only. */
const onLaunchRegistered: EventHandler<"LaunchRegistered"> = (e, _p, b) => {
  b.activity(e.args.token);
};

/**
 * `GraduatedV3` (the manager named in the token's `Graduated`): settlement — LP custodian,
 * position token id, liquidity and the position of this log (`settled_at`).
 */
const onGraduatedV3: EventHandler<"GraduatedV3"> = (e, p, b) => {
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

/** The graduation manager: launch registration and settlement (see docs/indexer.md, "Events"). */
export const GRADUATION_MANAGER_EVENTS = declareEvents({
  LaunchRegistered: {
    abi: graduationManagerV3Abi,
    filter: "platform",
    keys: tokenAndCurveKeys,
    // Only in the launch transaction of the token it names, naming that token's curve.
    accept(e, state, scan) {
      const info = state.tokens.get(e.args.token);
      return (
        info !== undefined &&
        scan.launchTx.get(e.transactionHash) === e.args.token &&
        e.args.curve === info.curve
      );
    },
    handle: onLaunchRegistered,
  },
  GraduatedV3: {
    abi: graduationManagerV3Abi,
    filter: "platform",
    keys: (e, k) => k.token(e.args.token),
    // Pass 2: from the manager the token's `Graduated` named, the LP custodian.
    learn: {
      pass: 2,
      apply(e, state) {
        const info = state.tokens.get(e.args.token);
        if (info && info.custodian === null && info.graduationManager === e.address) {
          info.custodian = e.args.custodian;
          state.custodians.set(info.custodian, info.address);
        }
      },
    },
    accept(e, state) {
      const info = state.tokens.get(e.args.token);
      return info !== undefined && info.graduationManager !== null && info.graduationManager === e.address;
    },
    handle: onGraduatedV3,
  },
});
