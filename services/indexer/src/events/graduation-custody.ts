import { graduationCustodyV3Abi, permanentLPFeeVaultV3Abi } from "@tmi/shared/chain";
import type { DecodedEventOf } from "../decode/event-decoder.js";
import type { KnownState } from "../model/known-state.js";
import { declareEvents, type EventHandler, fundsVault, launchTokenKey } from "./declaration.js";

// The graduation's custody contracts name themselves by emitting; their declarations' `learn` has already
// registered them as the token's platform contracts (never holders). Their logs are not trades
// and stay out of the activity log: the handlers only persist the addresses on `tokens`.

/** `ResidualDeposited` (the token's residual escrow, in its graduation): `tokens.residual_escrow_address`. */
const onResidualDeposited: EventHandler<"ResidualDeposited"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).escrow = e.address;
};

/** `PermanentFeesCollected` (the token's LP custodian): nothing to store (the vault's accrual names the vault). */
const onPermanentFeesCollected: EventHandler<"PermanentFeesCollected"> = () => {};

/**
 * `PermanentLPFeesAccrued` (the token's permanent LP fee vault): `tokens.lp_fee_vault_address`,
 * the shares by asset (`token_asset_fees.lp_*`) and the creator share of its recipient
 * (`creator_lp_fees.earned`).
 */
const onPermanentLPFeesAccrued: EventHandler<"PermanentLPFeesAccrued"> = (e, p, b) => {
  const { launchToken, asset, creatorRecipient } = e.args;
  b.token(launchToken, p.blockNumber).feeVault = e.address;
  const fees = b.assetFees(launchToken, asset, p.blockNumber);
  fees.lpCreator += e.args.creatorShare;
  fees.lpProtocol += e.args.protocolShare;
  fees.lpCommunity += e.args.communityShare;
  fees.lpTraderRewards += e.args.traderRewardsShare;
  b.creatorLp(creatorRecipient, asset, p.blockNumber).earned += e.args.creatorShare;
};

/** `CreatorLPFeesClaimed` (a token's permanent LP fee vault): `creator_lp_fees.claimed` of (recipient, asset). */
const onCreatorLPFeesClaimed: EventHandler<"CreatorLPFeesClaimed"> = (e, p, b) => {
  b.creatorLp(e.args.recipient, e.args.asset, p.blockNumber).claimed += e.args.amount;
};

/** `CommunityLPFeesForwarded` (the token's fee vault): the vault it names is `tokens.community_vault_address`. */
const onCommunityLPFeesForwarded: EventHandler<"CommunityLPFeesForwarded"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).communityVault = e.args.vault;
};

/** `TraderRewardsLPFeesForwarded` (the token's fee vault): the vault it names is `tokens.trader_rewards_vault_address`. */
const onTraderRewardsLPFeesForwarded: EventHandler<"TraderRewardsLPFeesForwarded"> = (e, p, b) => {
  b.token(e.args.launchToken, p.blockNumber).traderRewardsVault = e.args.vault;
};

/** A forward by the token's fee vault names its community / trader-rewards vault (pass 4: after the fee vault is known). */
const forward = fundsVault<DecodedEventOf<"CommunityLPFeesForwarded" | "TraderRewardsLPFeesForwarded">>(
  "feeVault",
  (e) => e.args.launchToken,
  "CommunityLPFeesForwarded",
);

/**
 * The token of the launch `e` names when `byTx` (transaction hash → token: its graduation, its LP
 * fee collection) holds that token for `e`'s transaction, else undefined.
 */
function namedInTransaction(
  e: DecodedEventOf<"ResidualDeposited" | "PermanentLPFeesAccrued">,
  byTx: ReadonlyMap<string, string>,
  state: KnownState,
) {
  const token = byTx.get(e.transactionHash);
  return token !== undefined && token === e.args.launchToken ? state.tokens.get(token) : undefined;
}

/** The fields of a forward by the token's fee vault (pass 4: after the fee vault is known). */
const FORWARD_EVENT = {
  abi: graduationCustodyV3Abi,
  filter: "platform",
  keys: launchTokenKey,
  learn: { pass: 4, apply: forward.learn },
  accept: forward.accept,
} as const;

/**
 * The graduation's custody contracts: the residual escrow, the LP custodian, the permanent LP fee
 * vault (see docs/indexer.md, "Events"). Each names itself by emitting, in a pass after the one
 * that makes it known.
 */
export const GRADUATION_CUSTODY_EVENTS = declareEvents({
  ResidualDeposited: {
    abi: graduationCustodyV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    // Pass 2: the escrow deposits inside the graduation, so only in the graduation transaction of
    // a token graduated in this range; it is the token's escrow from then on.
    learn: {
      pass: 2,
      apply(e, state, scan) {
        const info = namedInTransaction(e, scan.graduationTx, state);
        if (info && info.escrow === null) info.escrow = e.address;
      },
    },
    accept: (e, state) => state.tokens.get(e.args.launchToken)?.escrow === e.address,
    handle: onResidualDeposited,
  },
  PermanentFeesCollected: {
    abi: graduationCustodyV3Abi,
    filter: "platform",
    // Pass 2: a known custodian's collection (the accrual in it names the fee vault).
    learn: {
      pass: 2,
      apply(e, state, scan) {
        const token = state.custodians.get(e.address);
        if (token !== undefined) scan.collectTx.set(e.transactionHash, token);
      },
    },
    accept: (e, state) => state.custodians.has(e.address),
    handle: onPermanentFeesCollected,
  },
  PermanentLPFeesAccrued: {
    abi: graduationCustodyV3Abi,
    filter: "platform",
    keys: launchTokenKey,
    // Pass 3: the vault that accrues a token's fees in its custodian's collection is its fee vault.
    learn: {
      pass: 3,
      apply(e, state, scan) {
        const info = namedInTransaction(e, scan.collectTx, state);
        if (info && info.feeVault === null && e.args.custodian === info.custodian)
          state.setFeeVault(info, e.address);
      },
    },
    accept(e, state) {
      const info = state.tokens.get(e.args.launchToken);
      return info !== undefined && info.feeVault === e.address && info.custodian === e.args.custodian;
    },
    handle: onPermanentLPFeesAccrued,
  },
  CreatorLPFeesClaimed: {
    abi: permanentLPFeeVaultV3Abi,
    filter: "platform",
    // A claim names no token: one token of the vault is loaded, and only a known fee vault counts.
    keys: (e, k) => k.feeVault(e.address),
    accept: (e, state) => state.feeVaults.has(e.address),
    handle: onCreatorLPFeesClaimed,
  },
  CommunityLPFeesForwarded: { ...FORWARD_EVENT, handle: onCommunityLPFeesForwarded },
  TraderRewardsLPFeesForwarded: { ...FORWARD_EVENT, handle: onTraderRewardsLPFeesForwarded },
});
