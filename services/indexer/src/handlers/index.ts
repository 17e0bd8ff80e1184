import type { EventName } from "../decode/event-decoder.js";
import type { EventHandler } from "../model/range-builder.js";
import { onGraduated, onGraduationReserveForwarded, onTokensBought, onTokensSold } from "./curve-handlers.js";
import { onTokenLaunched } from "./factory-handlers.js";
import { onFeesDeposited, onTokenRegistered } from "./fee-manager-handlers.js";
import { onAggregatorConfirmed, onAnswerUpdated } from "./feed-handlers.js";
import {
  onCommunityLPFeesForwarded,
  onPermanentFeesCollected,
  onPermanentLPFeesAccrued,
  onResidualDeposited,
  onTraderRewardsLPFeesForwarded,
} from "./graduation-custody-handlers.js";
import { onGraduatedV3, onLaunchRegistered } from "./graduation-manager-handlers.js";
import { onSwap } from "./pool-handlers.js";
import { onTransfer } from "./token-handlers.js";

/** The handler of every event kind, by on-chain name (events reach them only after `selectEvents`). */
export const HANDLERS: { readonly [N in EventName]: EventHandler<N> } = Object.freeze({
  TokenLaunchedV3: onTokenLaunched,
  LaunchRegistered: onLaunchRegistered,
  TokenRegistered: onTokenRegistered,
  FeesDeposited: onFeesDeposited,
  TokensBought: onTokensBought,
  TokensSold: onTokensSold,
  Graduated: onGraduated,
  GraduationReserveForwarded: onGraduationReserveForwarded,
  GraduatedV3: onGraduatedV3,
  ResidualDeposited: onResidualDeposited,
  PermanentFeesCollected: onPermanentFeesCollected,
  PermanentLPFeesAccrued: onPermanentLPFeesAccrued,
  CommunityLPFeesForwarded: onCommunityLPFeesForwarded,
  TraderRewardsLPFeesForwarded: onTraderRewardsLPFeesForwarded,
  Transfer: onTransfer,
  Swap: onSwap,
  AnswerUpdated: onAnswerUpdated,
  AggregatorConfirmed: onAggregatorConfirmed,
});
