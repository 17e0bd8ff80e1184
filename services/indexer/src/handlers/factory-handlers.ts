import { curveSpotPrice } from "@tmi/shared/chain";
import { sanitizeChainString } from "@tmi/shared/codec";
import type { EventHandler } from "../model/range-builder.js";

/** A label read from the chain made storable: sanitized, "" when unreadable. */
function storedLabel(value: string | null | undefined): string {
  return value == null ? "" : sanitizeChainString(value);
}

/**
 * `TokenLaunchedV3` (factory): a new `tokens` row with its curve, canonical pool and token order,
 * the curve at launch (nothing sold, price = spotPrice() at launch) and the name/symbol read from
 * the token; the creator's token count grows by one.
 * @dev the token was registered in the known state by `selectEvents` (pass 1).
 */
export const onTokenLaunched: EventHandler<"TokenLaunchedV3"> = (e, p, b) => {
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
