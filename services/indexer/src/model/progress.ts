// Read model `token_progress_highs` (the `token.progress` webhooks' memory, docs/indexer.md "Webhook
// outbox"): per token, the highest curve progress (bps, `curve.progress_bps`'s rule applied to a
// curve trade's `curve_sold_supply`) an indexed trade reached and the first trade that reached it.
// Handlers reach it through `RangeBuilder.trade`; its SQL: prepare/progress.ts.
import { progressBps } from "@tmi/shared/market";
import type { TokenInfo } from "./known-state.js";
import type { TradeRow } from "./trades.js";

/** A token's progress high of the range: the first trade reaching the range's highest progress. */
export interface ProgressHigh {
  tokenAddress: string;
  /** Highest `curve.progress_bps` of the range's curve trades of the token (1–10000). */
  bps: number;
  blockNumber: number;
  logIndex: number;
  /** Largest `curve_sold_supply` seen in the range (base units): a trade below it cannot raise `bps`. */
  maxSold: bigint;
}

/** token → its progress high of the range (tokens whose curve trades all had 0 bps are absent). */
export type ProgressHighs = Map<string, ProgressHigh>;

/**
 * Adds a trade (the next in chain order) of the token with `info`: a curve trade whose progress is
 * strictly above the range's high so far becomes the high (so the first trade reaching it stays).
 * Pool trades and curve trades without a sold supply count for nothing. `progressBps` is computed
 * only when the sold supply exceeds the range's largest so far (the rule is monotonic in it).
 */
export function addProgressTrade(highs: ProgressHighs, info: TokenInfo, trade: TradeRow): void {
  const sold = trade.curveSoldSupply;
  if (sold === null || trade.source !== "curve") return;
  const high = highs.get(info.address);
  if (high !== undefined && sold <= high.maxSold) return;
  const bps = progressBps(sold, info.graduationThreshold);
  if (high === undefined) {
    if (bps > 0)
      highs.set(info.address, {
        tokenAddress: info.address,
        bps,
        blockNumber: trade.blockNumber,
        logIndex: trade.logIndex,
        maxSold: sold,
      });
    return;
  }
  high.maxSold = sold;
  if (bps > high.bps) {
    high.bps = bps;
    high.blockNumber = trade.blockNumber;
    high.logIndex = trade.logIndex;
  }
}
