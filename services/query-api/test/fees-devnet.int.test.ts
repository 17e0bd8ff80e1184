// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// The fee economy routes over the real indexer on a devnet (issue 29 item 8): every figure of
// `GET /api/v1/tokens/{address}/fees` and `GET /api/v1/creators/{address}/earnings` recomputed
// independently from the raw logs of the deployment's fee manager, LP fee vault and two ecosystem
// vaults, and compared with the contracts' own views at the same block (`creatorFeesAccrued`,
// `creatorLPFeesAccrued`, both vaults' `accrued`, `creatorPayoutOf`, `pendingCreatorPayoutOf`);
// again after an `anvil_reorg` that removes a claim (and the reorged database equals a fresh
// index); an impostor contract emitting the same events changes nothing.

import { createTrader, localPublicClient, localWalletClient, rpc, type Trader } from "@tmi/devnet";
import {
  feeManagerV3Abi,
  permanentLPFeeVaultV3Abi,
  tokenCommunityVaultV3Abi,
  traderRewardsVaultV3Abi,
} from "@tmi/shared/chain";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  emitterInitCode,
  indexToHead,
  recomputeAtHead,
  topicOf,
} from "@tmi/testkit";
import { type Address, encodeAbiParameters, parseEther, toEventSelector, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type IndexedDevnetApp,
  openApiValidator,
  type QueryApiApp,
  startIndexedDevnetApp,
} from "./harness.js";

const ETH = 10n ** 18n;
let env: IndexedDevnetApp<QueryApiApp>;
let validate: (path: string, status: number, body: unknown) => void;
let creator: Trader;
let buyer: Trader;
let payout: Trader;
let third: Trader;
let publisher: Trader;
const tokens: Address[] = [];

const lower = (a: string) => a.toLowerCase() as Address;
const key = (...parts: string[]) => parts.map((p) => p.toLowerCase()).join("|");

async function get(url: string): Promise<any> {
  const res = await env.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  const body = res.json();
  validate(url.split("?")[0]!.replace(/0x[0-9a-f]{40}/i, "{address}"), 200, body);
  return body;
}

/** Sums of `amount(log)` by `by(log)` (keys lowercase). */
function sums<L>(logs: readonly L[], by: (l: L) => string, amount: (l: L) => bigint): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const l of logs) out.set(by(l), (out.get(by(l)) ?? 0n) + amount(l));
  return out;
}

/**
 * The routes' bodies and, beside them, the same figures recomputed from the raw logs of the
 * deployment's contracts up to `block`, with the contracts' views at `block` checked against
 * the recomputation.
 */
async function recompute(block: bigint) {
  const { feeManager, lpFeeVault, communityVault, traderRewardsVault } = env.devnet.deployment.contracts;
  const client = localPublicClient(env.devnet.rpcUrl, env.devnet.deployment.chainId);
  const range = { fromBlock: BigInt(env.devnet.deployment.startBlock), toBlock: block };
  const fm = await client.getContractEvents({ address: feeManager, abi: feeManagerV3Abi, ...range });
  const lp = await client.getContractEvents({ address: lpFeeVault, abi: permanentLPFeeVaultV3Abi, ...range });
  const cv = await client.getContractEvents({
    address: communityVault,
    abi: tokenCommunityVaultV3Abi,
    ...range,
  });
  const tv = await client.getContractEvents({
    address: traderRewardsVault,
    abi: traderRewardsVaultV3Abi,
    ...range,
  });
  const of = <L extends { eventName: string }, N extends L["eventName"]>(logs: readonly L[], name: N) =>
    logs.filter((l): l is Extract<L, { eventName: N }> => l.eventName === name) as any[];
  const deposits = of(fm, "FeesDeposited");
  const part = (field: string) =>
    sums(
      deposits,
      (l) => key(l.args.token),
      (l) => l.args[field],
    );
  const curve = {
    total: part("totalFee"),
    protocol: part("protocolFee"),
    creator: part("creatorFee"),
    community: part("communityFee"),
    trader_rewards: part("traderRewardsFee"),
  };
  const claimed = sums(
    of(fm, "CreatorFeesClaimed"),
    (l) => key(l.args.token),
    (l) => l.args.amount,
  );
  const accruals = of(lp, "PermanentLPFeesAccrued");
  const share = (field: string) =>
    sums(
      accruals,
      (l) => key(l.args.launchToken, l.args.asset),
      (l) => l.args[field],
    );
  const lpShares = {
    creator: share("creatorShare"),
    protocol: share("protocolShare"),
    community: share("communityShare"),
    trader_rewards: share("traderRewardsShare"),
  };
  const byTokenAsset = (logs: any[]) =>
    sums(
      logs,
      (l) => key(l.args.launchToken, l.args.asset),
      (l) => l.args.amount,
    );
  const communityFunded = byTokenAsset(of(cv, "CommunityFunded"));
  const communityForwarded = byTokenAsset(of(cv, "CommunityFundsForwarded"));
  const rewardsFunded = byTokenAsset(of(tv, "TraderRewardsFunded"));
  const rewardsPaid = byTokenAsset(of(tv, "TraderRewardPaid"));
  const lpEarned = sums(
    accruals,
    (l) => key(l.args.creatorRecipient, l.args.asset),
    (l) => l.args.creatorShare,
  );
  const lpClaimed = sums(
    of(lp, "CreatorLPFeesClaimed"),
    (l) => key(l.args.recipient, l.args.asset),
    (l) => l.args.amount,
  );

  const at = { blockNumber: block } as const;
  const view = (address: Address, abi: any, functionName: string, args: unknown[]) =>
    client.readContract({ address, abi, functionName, args, ...at }) as Promise<any>;
  const assetsOf = (token: string, ...maps: Map<string, bigint>[]) =>
    [...new Set(maps.flatMap((m) => [...m.keys()]))]
      .filter((k) => k.startsWith(`${token}|`))
      .map((k) => k.slice(token.length + 1))
      .sort();
  const str = (m: Map<string, bigint>, k: string) => (m.get(k) ?? 0n).toString();

  const api: Record<string, unknown> = {};
  const expected: Record<string, unknown> = {};
  const creatorEntries = new Map<string, unknown>();
  for (const token of tokens) {
    const t = lower(token);
    const earned = curve.creator.get(t) ?? 0n;
    const claimable = earned - (claimed.get(t) ?? 0n);
    // The fee manager's own views at the block.
    expect(
      await view(feeManager, feeManagerV3Abi, "creatorFeesAccrued", [token]),
      `creatorFeesAccrued ${t}`,
    ).toBe(claimable);
    const payoutAddress = lower(await view(feeManager, feeManagerV3Abi, "creatorPayoutOf", [token]));
    const pending = lower(await view(feeManager, feeManagerV3Abi, "pendingCreatorPayoutOf", [token]));
    const creatorPart = {
      payout_address: payoutAddress,
      pending_payout_address: pending === zeroAddress ? null : pending,
      earned: earned.toString(),
      claimed: (claimed.get(t) ?? 0n).toString(),
      claimable: claimable.toString(),
    };
    const lpAssets = assetsOf(t, lpShares.creator);
    const community = [];
    for (const asset of assetsOf(t, communityFunded, communityForwarded)) {
      const k = key(t, asset);
      const balance = (communityFunded.get(k) ?? 0n) - (communityForwarded.get(k) ?? 0n);
      expect(
        await view(communityVault, tokenCommunityVaultV3Abi, "accrued", [token, asset]),
        `community ${k}`,
      ).toBe(balance);
      community.push({
        asset,
        funded: str(communityFunded, k),
        forwarded: str(communityForwarded, k),
        balance: balance.toString(),
      });
    }
    const rewards = [];
    for (const asset of assetsOf(t, rewardsFunded, rewardsPaid)) {
      const k = key(t, asset);
      const balance = (rewardsFunded.get(k) ?? 0n) - (rewardsPaid.get(k) ?? 0n);
      expect(
        await view(traderRewardsVault, traderRewardsVaultV3Abi, "accrued", [token, asset]),
        `trader rewards ${k}`,
      ).toBe(balance);
      rewards.push({
        asset,
        funded: str(rewardsFunded, k),
        paid: str(rewardsPaid, k),
        balance: balance.toString(),
      });
    }
    expected[`fees ${t}`] = {
      curve: Object.fromEntries(Object.entries(curve).map(([name, m]) => [name, str(m, t)])),
      creator: creatorPart,
      lp: lpAssets.map((asset) => {
        const k = key(t, asset);
        const parts = Object.fromEntries(Object.entries(lpShares).map(([name, m]) => [name, str(m, k)]));
        const collected = Object.values(lpShares).reduce((s, m) => s + (m.get(k) ?? 0n), 0n);
        return { asset, collected: collected.toString(), ...parts };
      }),
      community,
      trader_rewards: rewards,
    };
    api[`fees ${t}`] = await get(`/api/v1/tokens/${token}/fees`);
    creatorEntries.set(t, {
      token: t,
      ...creatorPart,
      lp: lpAssets.map((asset) => ({ asset, amount: str(lpShares.creator, key(t, asset)) })),
    });
  }
  // Earnings of the launch creator (its tokens) and of the payout address (LP creator fees accrue to it).
  for (const who of [creator, payout]) {
    const address = lower(who.address);
    const launched = tokens.filter(() => who === creator).map(lower);
    const lpAssets = [...new Set([...lpEarned.keys()].filter((k) => k.startsWith(`${address}|`)))]
      .map((k) => k.slice(address.length + 1))
      .sort();
    const lpClaimable = [];
    for (const asset of lpAssets) {
      const amount = (lpEarned.get(key(address, asset)) ?? 0n) - (lpClaimed.get(key(address, asset)) ?? 0n);
      expect(
        await view(lpFeeVault, permanentLPFeeVaultV3Abi, "creatorLPFeesAccrued", [address, asset]),
        `creatorLPFeesAccrued ${address} ${asset}`,
      ).toBe(amount);
      if (amount !== 0n) lpClaimable.push({ asset, amount: amount.toString() });
    }
    const curveClaimable = launched.reduce(
      (s, t) => s + (curve.creator.get(t) ?? 0n) - (claimed.get(t) ?? 0n),
      0n,
    );
    expected[`earnings ${address}`] = {
      address,
      curve_claimable: curveClaimable.toString(),
      lp_claimable: lpClaimable,
      claimed: {
        curve: launched.reduce((s, t) => s + (claimed.get(t) ?? 0n), 0n).toString(),
        lp: lpAssets
          .filter((asset) => (lpClaimed.get(key(address, asset)) ?? 0n) !== 0n)
          .map((asset) => ({ asset, amount: str(lpClaimed, key(address, asset)) })),
      },
      // Newest first.
      tokens: [...launched].reverse().map((t) => creatorEntries.get(t)),
    };
    api[`earnings ${address}`] = await get(`/api/v1/creators/${address}/earnings?limit=100`);
  }
  return { api: JSON.parse(JSON.stringify(api)), expected: JSON.parse(JSON.stringify(expected)) };
}

/** Waits until the indexer reached the chain's head and the API agrees with the recomputation at that block, then asserts it. */
async function expectAgreement(): Promise<any> {
  const last = await recomputeAtHead(
    env.devnet.rpcUrl,
    () => env.indexer.indexedBlock(),
    (block) => recompute(block),
  );
  expect(last.api).toEqual(last.expected);
  return last.api;
}

beforeAll(async () => {
  env = await startIndexedDevnetApp();
  validate = await openApiValidator(env.app);
  const at = (account: number) =>
    createTrader({ rpcUrl: env.devnet.rpcUrl, deployment: env.devnet.deployment, account });
  [creator, buyer, payout, third, publisher] = [at(5), at(6), at(7), at(8), at(0)];
}, 240_000);
/** What a test started besides `env` (stopped even when the test fails). */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
  await env?.stop();
});

describe("fee economy routes on a devnet", () => {
  test("default: fees, payout hand-over, claims, pots, LP fees and a distribution = logs and views; a reorg removing a claim; an impostor", async () => {
    const { weth } = env.devnet.deployment.contracts;
    const quiet = (await creator.createToken("Quiet Fees", "QFEE")).token;
    const token = (await creator.createToken("Fee Economy", "FECO")).token;
    tokens.push(quiet, token);
    // A second indexer keeping one token in memory: the LP fee vault's claim (which names no
    // token) must load a token of its vault from `tokens` (the key `feeVault`).
    const evictedDb = await createTestDatabase();
    const evicted = await indexToHead({
      ...devnetIndexerOptions(env.devnet, evictedDb.url),
      env: { KNOWN_TOKENS_CACHE: "1" },
    });
    cleanup.push(
      () => evicted.stop(),
      () => evictedDb.drop(),
    );
    const followed = async () => evicted.waitForBlock(await chainHead(env.devnet.rpcUrl), 60_000);
    await buyer.buy(quiet, ETH / 10n);
    await buyer.buy(token, ETH);
    // A pending hand-over is served, then accepted: the payout address, not the creator, claims.
    await creator.proposeCreatorPayout(token, payout.address);
    const pending = await expectAgreement();
    expect(pending[`fees ${lower(token)}`].creator.pending_payout_address).toBe(lower(payout.address));
    await payout.acceptCreatorPayout(token);
    await third.claimCreatorFees(token);
    await buyer.buy(token, ETH / 5n);
    await third.fundCurvePots(token);
    await buyer.graduate(token);
    await buyer.swapExactEthForTokens(token, parseEther("0.5"));
    await buyer.swapExactTokensForEth(token, (await buyer.balanceOf(token)) / 4n);
    await third.collectLPFees(token);
    await third.forwardLPFees(token, weth);
    await third.forwardLPFees(token, token);
    await third.forwardCommunityFunds(token, zeroAddress);
    const pots = (await localPublicClient(env.devnet.rpcUrl, env.devnet.deployment.chainId).readContract({
      address: env.devnet.deployment.contracts.traderRewardsVault,
      abi: traderRewardsVaultV3Abi,
      functionName: "accrued",
      args: [token, zeroAddress],
    })) as bigint;
    const leaves = [
      { claimant: buyer.address, amount: pots / 4n },
      { claimant: third.address, amount: pots / 8n },
    ];
    const published = await publisher.publishRewards(1n, token, zeroAddress, leaves);
    const [mine] = published.tree.leaves;
    await buyer.claimReward(1n, token, zeroAddress, mine!.amount, mine!.proof);
    // Two ranges naming only the quiet token: the economy's token is evicted from the second indexer.
    for (const amount of [ETH / 100n, ETH / 50n]) {
      await followed();
      await buyer.buy(quiet, amount);
    }
    await followed();
    // WETH: a claim of the token itself would name the token through its Transfer.
    await payout.claimLPFees(weth);
    const before = await expectAgreement();
    await followed();
    await evicted.stop();
    const [main, small] = await Promise.all([
      dumpIndexedTables(env.database.url),
      dumpIndexedTables(evictedDb.url),
    ]);
    for (const table of ["token_fees", "token_asset_fees", "creator_lp_fees", "creators"])
      expect(small[table], `evicted ${table}`).toEqual(main[table]);
    const fees = before[`fees ${lower(token)}`];
    expect(BigInt(fees.curve.total)).toBeGreaterThan(0n);
    expect(BigInt(fees.creator.claimed)).toBeGreaterThan(0n);
    expect(BigInt(fees.creator.claimable)).toBeGreaterThan(0n);
    expect(fees.creator.payout_address).toBe(lower(payout.address));
    expect(fees.lp.map((l: any) => l.asset).sort()).toEqual([lower(token), weth].sort());
    expect(fees.community.length).toBeGreaterThan(1);
    expect(fees.trader_rewards.some((r: any) => BigInt(r.paid) > 0n)).toBe(true);
    const payoutEarnings = before[`earnings ${lower(payout.address)}`];
    expect(payoutEarnings.claimed.lp).toHaveLength(1);
    expect(payoutEarnings.lp_claimable).toHaveLength(1);
    expect(before[`earnings ${lower(creator.address)}`].tokens).toHaveLength(2);

    // A claim in the last block, indexed, then orphaned (empty replacement): the figures follow.
    await third.claimCreatorFees(token);
    const claimedTwice = await expectAgreement();
    expect(BigInt(claimedTwice[`fees ${lower(token)}`].creator.claimable)).toBe(0n);
    await rpc(env.devnet.rpcUrl, "anvil_reorg", [1, []]);
    const reorged = await expectAgreement();
    expect(reorged[`fees ${lower(token)}`].creator).toEqual(fees.creator);
    // The reorged read models are a fresh index's.
    const fresh = await createTestDatabase();
    try {
      const indexer = await indexToHead(devnetIndexerOptions(env.devnet, fresh.url));
      await indexer.stop();
      await env.indexer.waitForBlock(await chainHead(env.devnet.rpcUrl));
      const [a, b] = await Promise.all([dumpIndexedTables(env.database.url), dumpIndexedTables(fresh.url)]);
      for (const table of ["token_fees", "token_asset_fees", "creator_lp_fees", "creators"])
        expect(a[table], table).toEqual(b[table]);
      expect(a.token_asset_fees!.length).toBeGreaterThan(2);
    } finally {
      await fresh.drop();
    }

    // An impostor emitting the economy's events, naming the real token, vaults and recipients.
    const selector = (abi: readonly any[], name: string) =>
      toEventSelector(abi.find((x) => x.type === "event" && x.name === name));
    const words = (n: number, v: bigint) =>
      encodeAbiParameters(
        Array.from({ length: n }, () => ({ type: "uint256" })),
        Array(n).fill(v),
      );
    const curve = await creator.curveOf(token);
    const initCode = emitterInitCode([
      {
        topics: [selector(feeManagerV3Abi, "FeesDeposited"), topicOf(token), topicOf(curve), topicOf("0x01")],
        data: words(5, ETH),
      },
      {
        topics: [
          selector(feeManagerV3Abi, "CreatorFeesClaimed"),
          topicOf(token),
          topicOf(payout.address),
          topicOf(third.address),
        ],
        data: words(1, ETH),
      },
      {
        topics: [
          selector(feeManagerV3Abi, "CreatorPayoutProposed"),
          topicOf(token),
          topicOf(payout.address),
          topicOf(third.address),
        ],
        data: "0x",
      },
      {
        topics: [
          selector(permanentLPFeeVaultV3Abi, "CreatorLPFeesClaimed"),
          topicOf(payout.address),
          topicOf(weth),
        ],
        data: words(1, 1n),
      },
      {
        topics: [
          selector(tokenCommunityVaultV3Abi, "CommunityFundsForwarded"),
          topicOf(token),
          topicOf(zeroAddress),
          topicOf(third.address),
        ],
        data: words(2, 1n),
      },
      {
        topics: [
          selector(traderRewardsVaultV3Abi, "TraderRewardPaid"),
          topicOf(token),
          topicOf(zeroAddress),
          topicOf(third.address),
        ],
        data: words(1, 1n),
      },
    ]);
    const dumpBefore = await dumpIndexedTables(env.database.url);
    const wallet = localWalletClient(env.devnet.rpcUrl, 9, env.devnet.deployment.chainId);
    const hash = await wallet.sendTransaction({ data: initCode, account: wallet.account, chain: null });
    const receipt = await localPublicClient(
      env.devnet.rpcUrl,
      env.devnet.deployment.chainId,
    ).waitForTransactionReceipt({
      hash,
    });
    expect(receipt.logs).toHaveLength(6);
    const afterImpostor = await expectAgreement();
    expect(afterImpostor).toEqual(reorged);
    const dumpAfter = await dumpIndexedTables(env.database.url);
    for (const table of ["token_fees", "token_asset_fees", "creator_lp_fees", "creators"])
      expect(dumpAfter[table], table).toEqual(dumpBefore[table]);
  }, 600_000);

  test("behavior: an unknown token is 404 not_found, a malformed address 400 invalid_address", async () => {
    const unknown = await env.app.inject({ url: `/api/v1/tokens/0x${"ab".repeat(20)}/fees` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("not_found");
    for (const url of ["/api/v1/tokens/0x123/fees", "/api/v1/creators/nope/earnings"]) {
      const bad = await env.app.inject({ url });
      expect(bad.statusCode, url).toBe(400);
      expect(bad.json().error.code, url).toBe("invalid_address");
    }
    // An address that launched nothing has zero earnings (200), like the creator profile.
    const none = await get(`/api/v1/creators/0x${"cd".repeat(20)}/earnings`);
    expect(none).toEqual({
      address: `0x${"cd".repeat(20)}`,
      curve_claimable: "0",
      lp_claimable: [],
      claimed: { curve: "0", lp: [] },
      tokens: [],
    });
  });
});
