import { feeManagerV3Abi } from "@tmi/shared/chain";
import type { DecodedEventOf } from "../decode/event-decoder.js";
import type { KnownState } from "../model/known-state.js";
import { declareEvents, type EventHandler, fundsVault, tokenAndCurveKeys } from "./declaration.js";

/**
 * `TokenRegistered` (the token's fee manager): activity, and the token's payout address
 * (`token_fees.payout_address`, no pending hand-over).
 */
const onTokenRegistered: EventHandler<"TokenRegistered"> = (e, p, b) => {
  b.activity(e.args.token);
  const fees = b.tokenFees(e.args.token, p.blockNumber);
  fees.payout = e.args.payout;
  fees.pending = null;
};

/** `FeesDeposited`: activity, the curve fee by part (`token_fees.curve_*`, wei) and the launch creator's `creators.fees_earned`. */
const onFeesDeposited: EventHandler<"FeesDeposited"> = (e, p, b) => {
  b.activity(e.args.token);
  const fees = b.tokenFees(e.args.token, p.blockNumber);
  fees.curveTotal += e.args.totalFee;
  fees.curveProtocol += e.args.protocolFee;
  fees.curveCreator += e.args.creatorFee;
  fees.curveCommunity += e.args.communityFee;
  fees.curveTraderRewards += e.args.traderRewardsFee;
  b.creator(b.state.tokens.get(e.args.token)!.creator, p.blockNumber).feesEarned += e.args.creatorFee;
};

/**
 * `CreatorFeesClaimed`: activity (the stream's `fees_claimed`), `token_fees.creator_claimed` and
 * the launch creator's `creators.fees_claimed` += amount (paid to the payout address).
 */
const onCreatorFeesClaimed: EventHandler<"CreatorFeesClaimed"> = (e, p, b) => {
  b.activity(e.args.token);
  b.tokenFees(e.args.token, p.blockNumber).creatorClaimed += e.args.amount;
  b.creator(b.state.tokens.get(e.args.token)!.creator, p.blockNumber).feesClaimed += e.args.amount;
};

/** `CreatorPayoutProposed`: the pending payout address. */
const onCreatorPayoutProposed: EventHandler<"CreatorPayoutProposed"> = (e, p, b) => {
  b.tokenFees(e.args.token, p.blockNumber).pending = e.args.proposedPayout;
};

/** `CreatorPayoutAccepted`: the new payout address, no pending one. */
const onCreatorPayoutAccepted: EventHandler<"CreatorPayoutAccepted"> = (e, p, b) => {
  const fees = b.tokenFees(e.args.token, p.blockNumber);
  fees.payout = e.args.newPayout;
  fees.pending = null;
};

/** `CreatorPayoutCancelled`: no pending payout address. */
const onCreatorPayoutCancelled: EventHandler<"CreatorPayoutCancelled"> = (e, p, b) => {
  b.tokenFees(e.args.token, p.blockNumber).pending = null;
};

/** `CommunityVaultFunded`: the vault it names is `tokens.community_vault_address` (the amount is the vault's `CommunityFunded`). */
const onCommunityVaultFunded: EventHandler<"CommunityVaultFunded"> = (e, p, b) => {
  b.token(e.args.token, p.blockNumber).communityVault = e.args.vault;
};

/** `TraderRewardsVaultFunded`: the vault it names is `tokens.trader_rewards_vault_address`. */
const onTraderRewardsVaultFunded: EventHandler<"TraderRewardsVaultFunded"> = (e, p, b) => {
  b.token(e.args.token, p.blockNumber).traderRewardsVault = e.args.vault;
};

/** `keys` of a fee manager event naming its token (`token` argument). */
const tokenKey = (e: { args: { token: string } }, k: { token(a: string): void }) => k.token(e.args.token);

/** Only from the token's fee manager (the one that registered it). */
const fromFeeManager = (e: { address: string; args: { token: string } }, state: KnownState) =>
  state.tokens.get(e.args.token)?.feeManager === e.address;

/** The fields of a fee manager event naming its token, accepted from the token's fee manager. */
const FEE_MANAGER_EVENT = {
  abi: feeManagerV3Abi,
  filter: "platform",
  keys: tokenKey,
  accept: fromFeeManager,
} as const;

/** A funding by the token's fee manager names its community / trader-rewards vault (pass 3: after the fee manager). */
const funding = fundsVault<DecodedEventOf<"CommunityVaultFunded" | "TraderRewardsVaultFunded">>(
  "feeManager",
  (e) => e.args.token,
  "CommunityVaultFunded",
);

/** The fields of a funding of an ecosystem vault by the token's fee manager. */
const FUNDING_EVENT = {
  abi: feeManagerV3Abi,
  filter: "platform",
  keys: tokenKey,
  learn: { pass: 3, apply: funding.learn },
  accept: funding.accept,
} as const;

/** The token's fee manager (see docs/indexer.md, "Events"). */
export const FEE_MANAGER_EVENTS = declareEvents({
  TokenRegistered: {
    abi: feeManagerV3Abi,
    filter: "platform",
    keys: tokenAndCurveKeys,
    // Pass 2: in the launch transaction of the token it names, for its curve: the token's fee manager.
    learn: {
      pass: 2,
      apply(e, state, scan) {
        if (scan.launchTx.get(e.transactionHash) !== e.args.token) return;
        const info = state.tokens.get(e.args.token)!;
        if (info.feeManager === null && e.args.curve === info.curve) info.feeManager = e.address;
      },
    },
    accept(e, state, scan) {
      const info = state.tokens.get(e.args.token);
      return (
        info !== undefined &&
        info.feeManager === e.address &&
        scan.launchTx.get(e.transactionHash) === info.address
      );
    },
    handle: onTokenRegistered,
  },
  FeesDeposited: {
    abi: feeManagerV3Abi,
    filter: "platform",
    keys: tokenAndCurveKeys,
    // Only from the fee manager that registered the token, for its curve.
    accept(e, state) {
      const info = state.tokens.get(e.args.token);
      return info !== undefined && info.feeManager === e.address && e.args.curve === info.curve;
    },
    handle: onFeesDeposited,
  },
  CreatorFeesClaimed: { ...FEE_MANAGER_EVENT, handle: onCreatorFeesClaimed },
  CreatorPayoutProposed: { ...FEE_MANAGER_EVENT, handle: onCreatorPayoutProposed },
  CreatorPayoutAccepted: { ...FEE_MANAGER_EVENT, handle: onCreatorPayoutAccepted },
  CreatorPayoutCancelled: { ...FEE_MANAGER_EVENT, handle: onCreatorPayoutCancelled },
  CommunityVaultFunded: { ...FUNDING_EVENT, handle: onCommunityVaultFunded },
  TraderRewardsVaultFunded: { ...FUNDING_EVENT, handle: onTraderRewardsVaultFunded },
});
