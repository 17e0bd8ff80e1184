import { tokenCommunityVaultV3Abi, traderRewardsVaultV3Abi } from "@tmi/shared/chain";
import type { KnownState } from "../model/known-state.js";
import { declareEvents, type EventHandler, launchTokenKey } from "./declaration.js";

// The deployment's two ecosystem vaults, known per token from its fee manager's or LP fee vault's
// fundings (`tokens.community_vault_address`, `tokens.trader_rewards_vault_address`): their pots
// per (token, asset) in `token_asset_fees` (model/fees). Their logs stay out of the activity log.

/** `CommunityFunded`: `token_asset_fees.community_funded` += amount. */
const onCommunityFunded: EventHandler<"CommunityFunded"> = (e, p, b) => {
  b.assetFees(e.args.launchToken, e.args.asset, p.blockNumber).communityFunded += e.args.amount;
};

/** `CommunityFundsForwarded` (to the treasury): `token_asset_fees.community_forwarded` += amount. */
const onCommunityFundsForwarded: EventHandler<"CommunityFundsForwarded"> = (e, p, b) => {
  b.assetFees(e.args.launchToken, e.args.asset, p.blockNumber).communityForwarded += e.args.amount;
};

/** `TraderRewardsFunded`: `token_asset_fees.trader_rewards_funded` += amount. */
const onTraderRewardsFunded: EventHandler<"TraderRewardsFunded"> = (e, p, b) => {
  b.assetFees(e.args.launchToken, e.args.asset, p.blockNumber).traderRewardsFunded += e.args.amount;
};

/** `TraderRewardPaid` (a distributor claim): `token_asset_fees.trader_rewards_paid` += amount. */
const onTraderRewardPaid: EventHandler<"TraderRewardPaid"> = (e, p, b) => {
  b.assetFees(e.args.launchToken, e.args.asset, p.blockNumber).traderRewardsPaid += e.args.amount;
};

/** A funding counts from the token's vault, paid by the token's fee manager or LP fee vault. */
function fundedBy(
  vaultOf: "communityVault" | "traderRewardsVault",
): (e: { address: string; args: { launchToken: string; source: string } }, state: KnownState) => boolean {
  return (e, state) => {
    const info = state.tokens.get(e.args.launchToken);
    return (
      info !== undefined &&
      info[vaultOf] === e.address &&
      (e.args.source === info.feeManager || e.args.source === info.feeVault)
    );
  };
}

/** A payout counts from the token's vault. */
function fromVault(
  vaultOf: "communityVault" | "traderRewardsVault",
): (e: { address: string; args: { launchToken: string } }, state: KnownState) => boolean {
  return (e, state) => state.tokens.get(e.args.launchToken)?.[vaultOf] === e.address;
}

/** The community vault and the trader-rewards vault (see docs/indexer.md, "Which logs count"). */
export const ECOSYSTEM_VAULT_EVENTS = declareEvents({
  CommunityFunded: {
    abi: tokenCommunityVaultV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    accept: fundedBy("communityVault"),
    handle: onCommunityFunded,
  },
  CommunityFundsForwarded: {
    abi: tokenCommunityVaultV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    accept: fromVault("communityVault"),
    handle: onCommunityFundsForwarded,
  },
  TraderRewardsFunded: {
    abi: traderRewardsVaultV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    accept: fundedBy("traderRewardsVault"),
    handle: onTraderRewardsFunded,
  },
  TraderRewardPaid: {
    abi: traderRewardsVaultV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    accept: fromVault("traderRewardsVault"),
    handle: onTraderRewardPaid,
  },
});
