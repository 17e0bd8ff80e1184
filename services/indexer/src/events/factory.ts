import {
  CURVE_ALLOCATION,
  curveSpotPrice,
  isToken0,
  TOTAL_SUPPLY,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { sanitizeChainString } from "@tmi/shared/codec";
import { declareEvents, type EventHandler } from "./declaration.js";

/** A label read from the chain made storable: sanitized, "" when unreadable. */
function storedLabel(value: string | null | undefined): string {
  return value == null ? "" : sanitizeChainString(value);
}

/**
 * `TokenLaunchedV3` (factory): a new `tokens` row with its curve, canonical pool and token order,
 * the curve at launch (nothing sold, price = spotPrice() at launch) and the name/symbol read from
 * the token; the creator's token count grows by one.
 * @dev the token was registered in the known state by its `learn` (pass 1).
 */
const onTokenLaunched: EventHandler<"TokenLaunchedV3"> = (e, p, b) => {
  const token = e.args.token;
  const info = b.state.tokens.get(token)!;
  const label = b.ctx.labels.get(token);
  const price = curveSpotPrice(0n, 0n);
  b.batch.newTokens.push({
    address: token,
    creator: info.creator,
    name: storedLabel(label?.name),
    symbol: storedLabel(label?.symbol),
    initialSupply: info.initialSupply,
    blockNumber: p.blockNumber,
    transactionIndex: p.transactionIndex,
    transactionHash: p.transactionHash,
    logIndex: p.logIndex,
    timestamp: p.blockTimestamp,
    curve: info.curve,
    pool: info.pool,
    tokenIsToken0: info.tokenIsToken0,
    feeManager: info.feeManager,
    graduationThreshold: info.graduationThreshold,
    price,
  });
  const d = b.token(token, p.blockNumber);
  if (d.price === undefined) d.price = price;
  b.creator(info.creator, p.blockNumber).tokenCount++;
  b.activity(token);
};

/** The V3 factory's event: a launch (see docs/indexer.md, "Events"). */
export const FACTORY_EVENTS = declareEvents({
  TokenLaunchedV3: {
    abi: zonkFactoryV3Abi,
    filter: "platform",
    keys: (e, k) => k.launch(e.args.token, e.args.curve, e.args.canonicalPool),
    // Pass 1: the token and its curve and pool, unless any of them is known already.
    learn: {
      pass: 1,
      apply(e, state, scan) {
        if (e.address !== state.factory) return;
        const token = e.args.token;
        if (state.tokens.has(token)) return;
        const curve = e.args.curve;
        const pool = e.args.canonicalPool;
        if (state.curves.has(curve) || state.pools.has(pool)) return;
        state.addToken({
          address: token,
          creator: e.args.creator,
          launchBlock: e.blockNumber,
          curve,
          pool,
          tokenIsToken0: isToken0(token, state.weth),
          initialSupply: e.args.totalSupply ?? TOTAL_SUPPLY,
          graduationThreshold: e.args.curveAllocation ?? CURVE_ALLOCATION,
          feeManager: null,
          graduationManager: null,
          custodian: null,
          escrow: null,
          feeVault: null,
          communityVault: null,
          traderRewardsVault: null,
          graduatedAt: null,
          curveState: { soldSupply: 0n, reserveCoordinate: 0n, graduated: false },
        });
        scan.launches.push({ token, event: e });
        scan.launchTx.set(e.transactionHash, token);
      },
    },
    grow: {
      pass: 1,
      apply(e, set, added) {
        if (e.address === set.factory && set.launched(e.args.token, e.args.curve, e.args.canonicalPool))
          added.push(e.args.token);
      },
    },
    accept: (e, state, scan) =>
      e.address === state.factory && scan.launchTx.get(e.transactionHash) === e.args.token,
    handle: onTokenLaunched,
  },
});
