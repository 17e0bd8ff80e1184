// The fee economy on a real anvil: curve fee claims and payout hand-over, curve pots funded and
// forwarded, LP fees collected after graduation and split, a trader-rewards distribution published
// with a root from the shared Merkle helper and claimed — each checked against the contracts' own
// views — and the simulator exercising all of it.
import {
  buildRewardTree,
  feeManagerV3Abi,
  permanentLPFeeVaultV3Abi,
  rewardDistributionId,
  rewardLeafHash,
  tokenCommunityVaultV3Abi,
  traderRewardsDistributorV3Abi,
  traderRewardsVaultV3Abi,
} from "@tmi/shared/chain";
import { type Address, parseEther, parseEventLogs, zeroAddress } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { DEVNET_PROTOCOL_FEE_RECIPIENT } from "./accounts.js";
import { localPublicClient } from "./clients.js";
import { type Devnet, startDevnet } from "./devnet.js";
import { runSimulator } from "./simulator.js";
import { createTrader } from "./trader.js";

const running: Devnet[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
});

describe("devnet fee economy", () => {
  it("behavior: fees are claimed and handed over, pots funded and forwarded, LP fees split, rewards claimed by proof", async () => {
    const devnet = await startDevnet({ blockTime: "automine" });
    running.push(devnet);
    const { rpcUrl, deployment } = devnet;
    const { feeManager, lpFeeVault, communityVault, traderRewardsVault, rewardsDistributor, weth } =
      deployment.contracts;
    const client = localPublicClient(rpcUrl);
    const creator = createTrader({ rpcUrl, deployment, account: 5 });
    const buyer = createTrader({ rpcUrl, deployment, account: 6 });
    const payout = createTrader({ rpcUrl, deployment, account: 7 });
    const third = createTrader({ rpcUrl, deployment, account: 8 });
    const publisher = createTrader({ rpcUrl, deployment, account: 0 });
    const creatorFeesAccrued = (token: Address) =>
      client.readContract({
        address: feeManager,
        abi: feeManagerV3Abi,
        functionName: "creatorFeesAccrued",
        args: [token],
      });
    const payoutOf = (functionName: "creatorPayoutOf" | "pendingCreatorPayoutOf", token: Address) =>
      client.readContract({ address: feeManager, abi: feeManagerV3Abi, functionName, args: [token] });
    const vaultAccrued = (vault: Address, token: Address, asset: Address) =>
      client.readContract({
        address: vault,
        abi: vault === communityVault ? tokenCommunityVaultV3Abi : traderRewardsVaultV3Abi,
        functionName: "accrued",
        args: [token, asset],
      });

    // The wiring: the fee manager names both vaults, the LP fee vault forwards to them, the
    // trader-rewards vault pays only the distributor.
    expect(
      (
        await client.readContract({
          address: feeManager,
          abi: feeManagerV3Abi,
          functionName: "communityVault",
        })
      ).toLowerCase(),
    ).toBe(communityVault);
    expect(
      (
        await client.readContract({
          address: lpFeeVault,
          abi: permanentLPFeeVaultV3Abi,
          functionName: "traderRewardsVault",
        })
      ).toLowerCase(),
    ).toBe(traderRewardsVault);
    expect(
      (
        await client.readContract({
          address: traderRewardsVault,
          abi: traderRewardsVaultV3Abi,
          functionName: "distributor",
        })
      ).toLowerCase(),
    ).toBe(rewardsDistributor);

    // Curve fees: earned by the creator, handed over to another payout address, claimed there.
    const { token } = await creator.createToken("Economy", "ECO");
    const bought = await buyer.buy(token, parseEther("1"));
    const [deposit] = parseEventLogs({
      abi: feeManagerV3Abi,
      logs: bought.receipt.logs,
      eventName: "FeesDeposited",
    });
    const earned = await creatorFeesAccrued(token);
    expect(earned).toBe(deposit!.args.creatorFee);
    expect(earned).toBeGreaterThan(0n);
    await expect(payout.proposeCreatorPayout(token, payout.address)).rejects.toThrow();
    await creator.proposeCreatorPayout(token, third.address);
    await expect(third.cancelCreatorPayout(token)).rejects.toThrow(/UnauthorizedCreator/);
    await creator.cancelCreatorPayout(token);
    expect(await payoutOf("pendingCreatorPayoutOf", token)).toBe(zeroAddress);
    await expect(third.acceptCreatorPayout(token)).rejects.toThrow(/UnauthorizedPendingPayout/);
    await creator.proposeCreatorPayout(token, payout.address);
    expect((await payoutOf("pendingCreatorPayoutOf", token)).toLowerCase()).toBe(
      payout.address.toLowerCase(),
    );
    await payout.acceptCreatorPayout(token);
    expect((await payoutOf("creatorPayoutOf", token)).toLowerCase()).toBe(payout.address.toLowerCase());
    expect(await payoutOf("pendingCreatorPayoutOf", token)).toBe(zeroAddress);
    const before = await payout.ethBalance();
    const claimed = await third.claimCreatorFees(token);
    const [claim] = parseEventLogs({
      abi: feeManagerV3Abi,
      logs: claimed.receipt.logs,
      eventName: "CreatorFeesClaimed",
    });
    expect(claim!.args.amount).toBe(earned);
    expect(claim!.args.payout.toLowerCase()).toBe(payout.address.toLowerCase());
    expect(await payout.ethBalance()).toBe(before + earned);
    expect(await creatorFeesAccrued(token)).toBe(0n);
    await expect(third.claimCreatorFees(token)).rejects.toThrow();

    // Curve pots: forwarded as native ETH (asset = zero address).
    const pots = await third.fundCurvePots(token);
    expect(pots.community).toBe(deposit!.args.communityFee);
    expect(pots.traderRewards).toBe(deposit!.args.traderRewardsFee);
    expect(await vaultAccrued(communityVault, token, zeroAddress)).toBe(pots.community);
    expect(await vaultAccrued(traderRewardsVault, token, zeroAddress)).toBe(pots.traderRewards);

    // LP fees after graduation: collected, split, the creator share accrues to the payout address.
    await buyer.graduate(token);
    await buyer.swapExactEthForTokens(token, parseEther("0.5"));
    await buyer.swapExactTokensForEth(token, (await buyer.balanceOf(token)) / 4n);
    const collected = await third.collectLPFees(token);
    const accruals = parseEventLogs({
      abi: permanentLPFeeVaultV3Abi,
      logs: collected.receipt.logs,
      eventName: "PermanentLPFeesAccrued",
    });
    expect(accruals.map((a) => a.args.asset.toLowerCase()).sort()).toEqual([token, weth].sort());
    for (const accrual of accruals) {
      const asset = accrual.args.asset;
      expect(accrual.args.creatorRecipient.toLowerCase()).toBe(payout.address.toLowerCase());
      expect(accrual.args.protocolRecipient.toLowerCase()).toBe(DEVNET_PROTOCOL_FEE_RECIPIENT);
      expect(
        await client.readContract({
          address: lpFeeVault,
          abi: permanentLPFeeVaultV3Abi,
          functionName: "creatorLPFeesAccrued",
          args: [payout.address, asset],
        }),
      ).toBe(accrual.args.creatorShare);
      await payout.claimLPFees(asset);
      expect(
        await client.readContract({
          address: lpFeeVault,
          abi: permanentLPFeeVaultV3Abi,
          functionName: "creatorLPFeesAccrued",
          args: [payout.address, asset],
        }),
      ).toBe(0n);
      await third.forwardLPFees(token, asset);
      expect(await vaultAccrued(communityVault, token, asset)).toBe(accrual.args.communityShare);
      expect(await vaultAccrued(traderRewardsVault, token, asset)).toBe(accrual.args.traderRewardsShare);
    }

    // The community vault forwards to the treasury: accrued = funded − forwarded = 0.
    const forwarded = await third.forwardCommunityFunds(token, zeroAddress);
    const [out] = parseEventLogs({
      abi: tokenCommunityVaultV3Abi,
      logs: forwarded.receipt.logs,
      eventName: "CommunityFundsForwarded",
    });
    expect(out!.args.amount).toBe(pots.community);
    expect(await vaultAccrued(communityVault, token, zeroAddress)).toBe(0n);

    // A distribution: the shared helper's id, leaves and root are the distributor's.
    const epoch = 1n;
    const id = rewardDistributionId(epoch, token, zeroAddress);
    const read = { address: rewardsDistributor, abi: traderRewardsDistributorV3Abi } as const;
    expect(
      await client.readContract({
        ...read,
        functionName: "distributionId",
        args: [epoch, token, zeroAddress],
      }),
    ).toBe(id);
    expect(
      await client.readContract({ ...read, functionName: "leafHash", args: [id, buyer.address, 123n] }),
    ).toBe(rewardLeafHash(id, buyer.address, 123n));
    const leaves = [
      { claimant: buyer.address, amount: pots.traderRewards / 4n },
      { claimant: payout.address, amount: pots.traderRewards / 8n },
      { claimant: third.address, amount: pots.traderRewards / 16n },
    ];
    await expect(buyer.publishRewards(epoch, token, zeroAddress, leaves)).rejects.toThrow();
    const published = await publisher.publishRewards(epoch, token, zeroAddress, leaves);
    const [event] = parseEventLogs({
      abi: traderRewardsDistributorV3Abi,
      logs: published.receipt.logs,
      eventName: "DistributionPublished",
    });
    expect(event!.args.distributionId).toBe(id);
    expect(event!.args.root).toBe(published.tree.root);
    expect(buildRewardTree(id, leaves).root).toBe(published.tree.root);
    const [mine, other] = published.tree.leaves;
    // A wrong proof (another leaf's) and a wrong amount revert; the right one pays once.
    await expect(buyer.claimReward(epoch, token, zeroAddress, mine!.amount, other!.proof)).rejects.toThrow(
      /InvalidMerkleProof/,
    );
    await expect(
      buyer.claimReward(epoch, token, zeroAddress, mine!.amount + 1n, mine!.proof),
    ).rejects.toThrow(/InvalidMerkleProof/);
    const paid = await buyer.claimReward(epoch, token, zeroAddress, mine!.amount, mine!.proof);
    const [reward] = parseEventLogs({
      abi: traderRewardsDistributorV3Abi,
      logs: paid.receipt.logs,
      eventName: "RewardClaimed",
    });
    expect(reward!.args.amount).toBe(mine!.amount);
    expect(reward!.args.claimant.toLowerCase()).toBe(buyer.address.toLowerCase());
    const [vaultPaid] = parseEventLogs({
      abi: traderRewardsVaultV3Abi,
      logs: paid.receipt.logs,
      eventName: "TraderRewardPaid",
    });
    expect(vaultPaid!.args.amount).toBe(mine!.amount);
    expect(await client.readContract({ ...read, functionName: "claimed", args: [id, buyer.address] })).toBe(
      true,
    );
    expect(await client.readContract({ ...read, functionName: "claimed", args: [id, payout.address] })).toBe(
      false,
    );
    expect(await vaultAccrued(traderRewardsVault, token, zeroAddress)).toBe(
      pots.traderRewards - mine!.amount,
    );
    await expect(buyer.claimReward(epoch, token, zeroAddress, mine!.amount, mine!.proof)).rejects.toThrow(
      /AlreadyClaimed/,
    );
    await payout.claimReward(epoch, token, zeroAddress, other!.amount, other!.proof);
    expect(await vaultAccrued(traderRewardsVault, token, zeroAddress)).toBe(
      pots.traderRewards - mine!.amount - other!.amount,
    );
    // A root is immutable: the same distribution cannot be published twice.
    await expect(publisher.publishRewards(epoch, token, zeroAddress, leaves)).rejects.toThrow(
      /DistributionAlreadyPublished/,
    );
  });

  it("behavior: the simulator claims fees, funds and forwards pots, collects LP fees and publishes and claims a distribution", async () => {
    const devnet = await startDevnet({ blockTime: "automine" });
    running.push(devnet);
    const stats = await runSimulator({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      seed: 11,
      tps: 40,
      traders: 5,
      tokens: 2,
      // An upper bound only: the run ends once a distribution was published and claimed after a graduation.
      durationSeconds: 300,
      until: (s) => s.graduations > 0 && s.distributions > 0 && s.rewardClaims > 0 && s.economy > 10,
      graduateEvery: 12,
      economyShare: 0.35,
      feedIntervalSeconds: 0,
    });
    expect(stats.distributions).toBeGreaterThan(0);
    expect(stats.rewardClaims).toBeGreaterThan(0);
    expect(stats.failed).toBeLessThan(Math.max(5, stats.transactions / 10));
    const client = localPublicClient(devnet.rpcUrl);
    const logs = await client.getContractEvents({
      address: devnet.deployment.contracts.rewardsDistributor,
      abi: traderRewardsDistributorV3Abi,
      fromBlock: BigInt(devnet.deployment.startBlock),
    });
    expect(logs.filter((l) => l.eventName === "DistributionPublished")).toHaveLength(stats.distributions);
    expect(logs.filter((l) => l.eventName === "RewardClaimed")).toHaveLength(stats.rewardClaims);
  });
});
