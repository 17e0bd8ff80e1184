import type { EventHandler } from "../model/range-builder.js";

// The graduation's custody contracts name themselves by emitting; `selectEvents` has already
// registered them as the token's platform contracts (never holders). Their logs are not trades
// and stay out of the activity log: the handlers only persist the addresses on `tokens`.

/** `ResidualDeposited` (the token's residual escrow, in its graduation): `tokens.residual_escrow_address`. */
export const onResidualDeposited: EventHandler<"ResidualDeposited"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).escrow = e.address;
};

/** `PermanentFeesCollected` (the token's LP custodian): nothing to store (the vault's accrual names the vault). */
export const onPermanentFeesCollected: EventHandler<"PermanentFeesCollected"> = () => {};

/** `PermanentLPFeesAccrued` (the token's permanent LP fee vault): `tokens.lp_fee_vault_address`. */
export const onPermanentLPFeesAccrued: EventHandler<"PermanentLPFeesAccrued"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).feeVault = e.address;
};

/** `CommunityLPFeesForwarded` (the token's fee vault): the vault it names is `tokens.community_vault_address`. */
export const onCommunityLPFeesForwarded: EventHandler<"CommunityLPFeesForwarded"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).communityVault = e.args.vault;
};

/** `TraderRewardsLPFeesForwarded` (the token's fee vault): the vault it names is `tokens.trader_rewards_vault_address`. */
export const onTraderRewardsLPFeesForwarded: EventHandler<"TraderRewardsLPFeesForwarded"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).traderRewardsVault = e.args.vault;
};
