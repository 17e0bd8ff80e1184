// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Trader-reward distributions through the gateway of the whole system (issue 29 items 5-7): the
// distributions route and the wallets' claims recomputed from the raw logs of the deployment's
// distributor and compared with its `claimed(id, claimant)` view at the same block; a tree
// uploaded (POST /api/v1/rewards/distributions/{id}/tree: 201, then 200 for the same upload; 422
// for a tree of another root, 404 for an unknown id, 400 for a malformed body), its served proof
// submitted to the distributor's `claim` on anvil and accepted (then the API shows it claimed);
// an `anvil_reorg` that removes a claim restores the row (and the reorged tables are a fresh
// index's); an impostor distributor emitting the same events changes nothing.

import { uploadRewardTree } from "@tmi/client";
import {
  createTrader,
  localPublicClient,
  localWalletClient,
  rpc,
  runSimulator,
  type Trader,
} from "@tmi/devnet";
import { traderRewardsDistributorV3Abi, traderRewardsVaultV3Abi } from "@tmi/shared/chain";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  emitterInitCode,
  indexToHead,
  recomputeAtHead,
  topicOf,
  waitFor,
} from "@tmi/testkit";
import { type Address, encodeAbiParameters, type Hex, keccak256, toEventSelector, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type System, startSystem } from "../src/system.js";

const ETH = 10n ** 18n;
const REWARD_TABLES = ["reward_distributions", "reward_claims"];
let system: System;
let creator: Trader;
let buyer: Trader;
let third: Trader;
let publisher: Trader;
const tokens: Address[] = [];

const lower = (a: string) => a.toLowerCase() as Address;

async function get(path: string): Promise<any> {
  const res = await system.request(path);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** Every item of the wallet's rewards pages of `limit` (default 100), following `next_cursor`. */
async function rewardsOf(wallet: string, limit = 100): Promise<any[]> {
  const items: any[] = [];
  let cursor = "";
  for (let page = 0; page < 1000; page++) {
    const body = await get(`/api/v1/wallets/${wallet}/rewards?limit=${limit}${cursor}`);
    items.push(...body.items);
    if (body.next_cursor === undefined) return items;
    expect(body.items).toHaveLength(limit);
    cursor = `&cursor=${body.next_cursor}`;
  }
  throw new Error(`${wallet}: no last page of rewards after 1000 pages`);
}

/** The distributions of a wallet's rewards that have an uploaded leaf (with its proof). */
const leavesOf = (items: any[]) => items.filter((i) => i.proof !== null);

async function upload(id: string, leaves: { claimant: string; amount: bigint | string }[]) {
  return system.request(`/api/v1/rewards/distributions/${id}/tree`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      leaves: leaves.map((l) => ({ claimant: l.claimant, amount: l.amount.toString() })),
    }),
  });
}

/**
 * The distributions of every token and the claims of `wallets` as the API serves them, and beside
 * them the same recomputed from the distributor's raw logs up to `block`, each claim checked
 * against the distributor's `claimed(id, claimant)` view at `block` (and every leaf of `leaves`
 * not claimed in the logs against `claimed` = false).
 */
async function recompute(block: bigint, wallets: readonly Address[], leaves: Map<string, Address[]>) {
  const { rewardsDistributor } = system.devnet.deployment.contracts;
  const client = localPublicClient(system.devnet.rpcUrl, system.devnet.deployment.chainId);
  const logs = (await client.getContractEvents({
    address: rewardsDistributor,
    abi: traderRewardsDistributorV3Abi,
    fromBlock: BigInt(system.devnet.deployment.startBlock),
    toBlock: block,
  })) as any[];
  const published = logs.filter((l) => l.eventName === "DistributionPublished");
  const claims = logs.filter((l) => l.eventName === "RewardClaimed");
  const claimedView = (id: Hex, claimant: Address) =>
    client.readContract({
      address: rewardsDistributor,
      abi: traderRewardsDistributorV3Abi,
      functionName: "claimed",
      args: [id, claimant],
      blockNumber: block,
    });
  for (const c of claims)
    expect(await claimedView(c.args.distributionId, c.args.claimant), "claimed view").toBe(true);
  for (const [id, claimants] of leaves)
    for (const claimant of claimants) {
      const inLogs = claims.some(
        (c) => c.args.distributionId === id && lower(c.args.claimant) === lower(claimant),
      );
      expect(await claimedView(id as Hex, claimant), `claimed(${id}, ${claimant})`).toBe(inLogs);
    }
  const timeOf = new Map<bigint, number>();
  const time = async (n: bigint) => {
    if (!timeOf.has(n)) timeOf.set(n, Number((await client.getBlock({ blockNumber: n })).timestamp));
    return timeOf.get(n)!;
  };
  const at = async (l: any) => ({
    block_number: Number(l.blockNumber),
    timestamp: await time(l.blockNumber),
    transaction_hash: l.transactionHash,
    log_index: l.logIndex,
  });
  const api: Record<string, unknown> = {};
  const expected: Record<string, unknown> = {};
  for (const token of tokens) {
    const items = [];
    for (const p of published.filter((l) => lower(l.args.launchToken) === lower(token)).reverse()) {
      const mine = claims.filter((c) => c.args.distributionId === p.args.distributionId);
      const body = await get(`/api/v1/tokens/${token}/rewards/distributions?limit=100`);
      const served = body.items.find((i: any) => i.distribution_id === p.args.distributionId);
      items.push({
        distribution_id: p.args.distributionId,
        epoch: p.args.epoch.toString(),
        asset: lower(p.args.asset),
        root: p.args.root,
        published: await at(p),
        claimed_count: mine.length,
        claimed_amount: mine.reduce((s, c) => s + c.args.amount, 0n).toString(),
        tree_uploaded: served?.tree_uploaded ?? false,
      });
    }
    expected[`distributions ${lower(token)}`] = { items };
    api[`distributions ${lower(token)}`] = await get(
      `/api/v1/tokens/${token}/rewards/distributions?limit=100`,
    );
  }
  const rootOf = new Map(published.map((p) => [p.args.distributionId, p.args.root]));
  for (const wallet of wallets) {
    // The whole list in one page, and the same walked one item a page.
    const whole = await get(`/api/v1/wallets/${wallet}/rewards?limit=100`);
    expect(whole.next_cursor).toBeUndefined();
    const walked = await rewardsOf(wallet, 1);
    const mine = claims.filter((c) => lower(c.args.claimant) === lower(wallet));
    // The wallet's distributions: its claims in the logs and its served leaves (whose proofs
    // the distributor accepts: the claims below), newest epoch first.
    const ids = new Set([
      ...mine.map((c) => c.args.distributionId as string),
      ...leavesOf(whole.items).map((l: any) => l.distribution_id as string),
    ]);
    const items = [];
    for (const id of ids) {
      const claim = mine.find((c) => c.args.distributionId === id);
      const leaf = whole.items.find((l: any) => l.distribution_id === id && l.proof !== null);
      const p = published.find((l) => l.args.distributionId === id);
      const [token, asset] = [lower(p.args.launchToken), lower(p.args.asset)];
      const amount: bigint = claim?.args.amount ?? BigInt(leaf.amount);
      const balance = (await client.readContract({
        address: system.devnet.deployment.contracts.traderRewardsVault,
        abi: traderRewardsVaultV3Abi,
        functionName: "accrued",
        args: [token, asset],
        blockNumber: block,
      })) as bigint;
      items.push({
        distribution_id: id,
        token_address: token,
        epoch: p.args.epoch.toString(),
        asset,
        root: rootOf.get(id),
        amount: amount.toString(),
        proof: leaf?.proof ?? null,
        claimed: claim !== undefined,
        claim: claim === undefined ? null : await at(claim),
        claimable: claim === undefined && leaf !== undefined && balance >= amount,
        epochOrder: p.args.epoch as bigint,
      });
    }
    items.sort((a, b) =>
      a.epochOrder !== b.epochOrder
        ? a.epochOrder < b.epochOrder
          ? 1
          : -1
        : a.distribution_id < b.distribution_id
          ? 1
          : -1,
    );
    const expectedItems = items.map(({ epochOrder: _, ...item }) => item);
    expected[`rewards ${lower(wallet)}`] = expectedItems;
    expected[`rewards ${lower(wallet)} limit=1`] = expectedItems;
    api[`rewards ${lower(wallet)}`] = whole.items;
    api[`rewards ${lower(wallet)} limit=1`] = walked;
    // The claims and the leaves with proofs, as the rest of the test reads them.
    for (const [side, list] of [
      [api, whole.items],
      [expected, expectedItems],
    ] as const) {
      side[`claims ${lower(wallet)}`] = list.filter((i: any) => i.claimed);
      side[`leaves ${lower(wallet)}`] = leavesOf(list);
    }
  }
  return { api: JSON.parse(JSON.stringify(api)), expected: JSON.parse(JSON.stringify(expected)) };
}

/** A Server-Sent Events subscription through the gateway: the events received so far, and `close`. */
async function subscribe(query: string) {
  const controller = new AbortController();
  const response = await fetch(`${system.baseUrl}/api/v1/stream?${query}`, { signal: controller.signal });
  expect(response.status).toBe(200);
  const events: { event: string; data: any }[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body as any as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
        end = buffer.indexOf("\n\n");
      }
    }
  })().catch(() => {});
  return {
    events,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

/** Waits until the indexer reached the head and the API agrees with the recomputation, then asserts it. */
async function expectAgreement(wallets: readonly Address[], leaves: Map<string, Address[]>): Promise<any> {
  const last = await recomputeAtHead(
    system.devnet.rpcUrl,
    () => system.indexer().indexedBlock(),
    (block) => recompute(block, wallets, leaves),
  );
  expect(last.api).toEqual(last.expected);
  return last.api;
}

beforeAll(async () => {
  system = await startSystem();
  system.startIndexer();
  const at = (account: number) =>
    createTrader({ rpcUrl: system.devnet.rpcUrl, deployment: system.devnet.deployment, account });
  [creator, buyer, third, publisher] = [at(5), at(6), at(8), at(0)];
}, 240_000);
afterAll(async () => {
  await system?.stop();
});

describe("trader-reward distributions through the gateway", () => {
  test("default: distributions and claims = logs and the distributor's view; an uploaded tree's proof claims on chain; a reorg removing a claim; an impostor", async () => {
    const token = (await creator.createToken("Reward Pot", "RPOT")).token;
    tokens.push(token);
    // The fee economy's stream events of this token only (another token's are filtered out).
    const stream = await subscribe(
      `tokens=${token}&events=fees_claimed,distribution_published,reward_claimed`,
    );
    const other = (await creator.createToken("Other Pot", "OPOT")).token;
    await buyer.buy(other, ETH / 10n);
    await creator.claimCreatorFees(other);
    await buyer.buy(token, ETH);
    await creator.claimCreatorFees(token);
    await third.fundCurvePots(token);
    const client = localPublicClient(system.devnet.rpcUrl, system.devnet.deployment.chainId);
    const pot = (await client.readContract({
      address: system.devnet.deployment.contracts.traderRewardsVault,
      abi: traderRewardsVaultV3Abi,
      functionName: "accrued",
      args: [token, zeroAddress],
    })) as bigint;
    expect(pot).toBeGreaterThan(0n);
    const leaves = [
      { claimant: buyer.address, amount: pot / 4n },
      { claimant: third.address, amount: pot / 8n },
      { claimant: creator.address, amount: pot / 16n },
    ];
    const published = await publisher.publishRewards(1n, token, zeroAddress, leaves);
    const id = published.distributionId;
    const wallets = [buyer.address, third.address, creator.address].map(lower);
    const leafMap = new Map([[id, wallets]]);
    // The creator claims with the publisher's own proof (before any upload).
    const [, , creatorLeaf] = published.tree.leaves;
    await creator.claimReward(1n, token, zeroAddress, creatorLeaf!.amount, creatorLeaf!.proof);
    const first = await expectAgreement(wallets, leafMap);
    const [distribution] = first[`distributions ${lower(token)}`].items;
    expect(distribution).toMatchObject({ distribution_id: id, claimed_count: 1, tree_uploaded: false });
    expect(first[`leaves ${lower(buyer.address)}`]).toEqual([]);

    // Uploads: a tree of another root, an unknown id, malformed bodies; then the right one twice.
    const wrong = await upload(id, [{ ...leaves[0]!, amount: leaves[0]!.amount + 1n }, ...leaves.slice(1)]);
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe("root_mismatch");
    const unknown = await upload(keccak256("0x01"), leaves);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    for (const body of [
      {},
      { leaves: [] },
      { leaves: [{ claimant: "0x12", amount: "1" }] },
      { leaves: [{ claimant: buyer.address, amount: "1.5" }] },
    ]) {
      const bad = await system.request(`/api/v1/rewards/distributions/${id}/tree`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.code).toBe("invalid_request");
    }
    // The typed client's upload (201, then 200 for the same tree).
    const wire = leaves.map((l) => ({ claimant: l.claimant, amount: l.amount.toString() }));
    const stored = await uploadRewardTree(system.baseUrl, id, wire);
    expect(stored.status).toBe(201);
    expect(stored.tree).toEqual({
      distribution_id: id,
      token_address: lower(token),
      epoch: "1",
      asset: zeroAddress,
      root: published.tree.root,
      order: "given",
      leaf_count: 3,
    });
    const again = await uploadRewardTree(system.baseUrl, id, wire);
    expect(again).toEqual({ status: 200, tree: stored.tree });

    // Trees are off-chain data: query-api's response cache serves an answer of the same indexed
    // block for at most QUERY_CACHE_MAX_AGE_MS (docs/api.md "Reward distributions").
    await waitFor(
      async () => {
        for (const wallet of wallets) if (leavesOf(await rewardsOf(wallet)).length !== 1) return false;
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 200, message: "the uploaded leaves are served" },
    );
    // The buyer's served proof is accepted by the distributor; then the API shows it claimed.
    const served = await expectAgreement(wallets, leafMap);
    const [buyerLeaf] = served[`leaves ${lower(buyer.address)}`];
    expect(buyerLeaf).toMatchObject({
      distribution_id: id,
      amount: leaves[0]!.amount.toString(),
      claimed: false,
      claimable: true,
    });
    expect(served[`leaves ${lower(creator.address)}`][0]).toMatchObject({ claimed: true, claimable: false });
    const claim = await buyer.claimReward(1n, token, zeroAddress, BigInt(buyerLeaf.amount), buyerLeaf.proof);
    expect(claim.receipt.status).toBe("success");
    const afterClaim = await expectAgreement(wallets, leafMap);
    expect(afterClaim[`leaves ${lower(buyer.address)}`][0]).toMatchObject({
      claimed: true,
      claimable: false,
    });
    expect(afterClaim[`claims ${lower(buyer.address)}`]).toHaveLength(1);
    expect(afterClaim[`distributions ${lower(token)}`].items[0]).toMatchObject({
      claimed_count: 2,
      claimed_amount: (leaves[0]!.amount + leaves[2]!.amount).toString(),
      tree_uploaded: true,
    });

    // The stream sent the claim of the creator fees, the publication and both claims, in chain order.
    await waitFor(async () => stream.events.length >= 4, {
      timeoutMs: 30_000,
      intervalMs: 200,
      message: "the fee economy's stream events",
    });
    await stream.close();
    expect(stream.events.map((e) => e.event)).toEqual([
      "fees_claimed",
      "distribution_published",
      "reward_claimed",
      "reward_claimed",
    ]);
    expect(stream.events.every((e) => e.data.token_address === lower(token))).toBe(true);
    expect(stream.events[0]!.data).toMatchObject({ payout_address: lower(creator.address) });
    expect(stream.events[1]!.data).toMatchObject({
      distribution_id: id,
      epoch: "1",
      root: published.tree.root,
    });
    expect(stream.events.slice(2).map((e) => e.data.claimant)).toEqual([
      lower(creator.address),
      lower(buyer.address),
    ]);

    // A claim in the last block, indexed, then orphaned (empty replacement): the rows are restored.
    const thirdLeaf = afterClaim[`leaves ${lower(third.address)}`][0];
    await third.claimReward(1n, token, zeroAddress, BigInt(thirdLeaf.amount), thirdLeaf.proof);
    const claimedThird = await expectAgreement(wallets, leafMap);
    expect(claimedThird[`claims ${lower(third.address)}`]).toHaveLength(1);
    await rpc(system.devnet.rpcUrl, "anvil_reorg", [1, []]);
    const reorged = await expectAgreement(wallets, leafMap);
    expect(reorged).toEqual(afterClaim);
    expect(reorged[`leaves ${lower(third.address)}`][0]).toMatchObject({ claimed: false, claimable: true });
    const fresh = await createTestDatabase();
    try {
      const indexer = await indexToHead(devnetIndexerOptions(system.devnet, fresh.url));
      await indexer.stop();
      await system.indexer().waitForBlock(await chainHead(system.devnet.rpcUrl));
      const [a, b] = await Promise.all([
        dumpIndexedTables(system.database.url),
        dumpIndexedTables(fresh.url),
      ]);
      for (const table of REWARD_TABLES) expect(a[table], table).toEqual(b[table]);
      expect(a.reward_claims).toHaveLength(2);
    } finally {
      await fresh.drop();
    }

    // An impostor emitting the distributor's events about the real token and distribution.
    const selector = (name: string) =>
      toEventSelector(
        (traderRewardsDistributorV3Abi as readonly any[]).find((x) => x.type === "event" && x.name === name),
      );
    const data = (types: string[], values: unknown[]) =>
      encodeAbiParameters(
        types.map((type) => ({ type })),
        values,
      );
    const epochTopic = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
    const initCode = emitterInitCode([
      {
        topics: [selector("DistributionPublished"), keccak256("0x02"), epochTopic(2n), topicOf(token)],
        data: data(["address", "bytes32"], [zeroAddress, keccak256("0x03")]),
      },
      {
        topics: [selector("RewardClaimed"), id, epochTopic(1n), topicOf(token)],
        data: data(["address", "address", "uint256"], [zeroAddress, third.address, leaves[1]!.amount]),
      },
    ]);
    const dumpBefore = await dumpIndexedTables(system.database.url);
    const wallet = localWalletClient(system.devnet.rpcUrl, 9, system.devnet.deployment.chainId);
    const hash = await wallet.sendTransaction({ data: initCode, account: wallet.account, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.logs).toHaveLength(2);
    const afterImpostor = await expectAgreement(wallets, leafMap);
    expect(afterImpostor[`claims ${lower(third.address)}`]).toEqual([]);
    expect(afterImpostor[`distributions ${lower(token)}`]).toEqual(reorged[`distributions ${lower(token)}`]);
    const dumpAfter = await dumpIndexedTables(system.database.url);
    for (const table of REWARD_TABLES) expect(dumpAfter[table], table).toEqual(dumpBefore[table]);

    // A leaf the vault's balance does not cover is not claimable (and the distributor refuses it).
    const balance = (await client.readContract({
      address: system.devnet.deployment.contracts.traderRewardsVault,
      abi: traderRewardsVaultV3Abi,
      functionName: "accrued",
      args: [token, zeroAddress],
    })) as bigint;
    const big = await publisher.publishRewards(2n, token, zeroAddress, [
      { claimant: buyer.address, amount: balance + 1n },
      { claimant: third.address, amount: 1n },
    ]);
    await system.indexer().waitForBlock(await chainHead(system.devnet.rpcUrl));
    await uploadRewardTree(system.baseUrl, big.distributionId, [
      { claimant: buyer.address, amount: (balance + 1n).toString() },
      { claimant: third.address, amount: "1" },
    ]);
    let uncovered: any;
    await waitFor(
      async () => {
        uncovered = leavesOf(await rewardsOf(buyer.address)).find(
          (l: any) => l.distribution_id === big.distributionId,
        );
        return uncovered !== undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, message: "the uncovered leaf is served" },
    );
    expect(uncovered).toMatchObject({ amount: (balance + 1n).toString(), claimed: false, claimable: false });
    await expect(buyer.claimReward(2n, token, zeroAddress, balance + 1n, uncovered.proof)).rejects.toThrow();
    // Two distributions a wallet now: the walk of one item a page follows a cursor.
    const final = await expectAgreement(wallets, leafMap);
    for (const wallet of [buyer, third])
      expect(final[`rewards ${lower(wallet.address)} limit=1`].map((r: any) => r.epoch)).toEqual(["2", "1"]);
  }, 600_000);

  test("behavior: the simulator publishes and claims distributions and uploads their trees: the wallets' rewards show proofs", async () => {
    const stats = await runSimulator({
      rpcUrl: system.devnet.rpcUrl,
      deployment: system.devnet.deployment,
      seed: 29,
      tps: 40,
      traders: 4,
      tokens: 2,
      // An upper bound only: the run ends once a tree was uploaded (after its distribution was indexed).
      durationSeconds: 300,
      until: (s) => s.treesUploaded > 0 && s.rewardClaims > 0,
      graduateEvery: 0,
      economyShare: 0.5,
      feedIntervalSeconds: 0,
      apiUrl: system.baseUrl,
    });
    expect(stats.treesUploaded).toBeGreaterThan(0);
    await system.indexToHead();
    const client = localPublicClient(system.devnet.rpcUrl, system.devnet.deployment.chainId);
    const claims = (await client.getContractEvents({
      address: system.devnet.deployment.contracts.rewardsDistributor,
      abi: traderRewardsDistributorV3Abi,
      eventName: "RewardClaimed",
      fromBlock: BigInt(system.devnet.deployment.startBlock),
    })) as any[];
    // Some claimant of a simulated distribution sees its leaves with proofs, claimed or not as the logs say.
    let served: any[] = [];
    await waitFor(
      async () => {
        served = [];
        for (const claimant of new Set(claims.map((c) => lower(c.args.claimant))))
          served.push(...leavesOf(await rewardsOf(claimant)));
        return served.some((l) => l.claimed);
      },
      { timeoutMs: 30_000, intervalMs: 250, message: "a simulated wallet's claimed leaf is served" },
    );
    for (const leaf of served) expect(leaf.proof.length + (leaf.claimed ? 1 : 0)).toBeGreaterThan(0);
  }, 400_000);

  test("behavior: an unknown token is 404 not_found, a malformed address 400 invalid_address", async () => {
    const unknown = await system.request(`/api/v1/tokens/0x${"ab".repeat(20)}/rewards/distributions`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    for (const path of ["/api/v1/tokens/0x123/rewards/distributions", "/api/v1/wallets/nope/rewards"]) {
      const bad = await system.request(path);
      expect(bad.status, path).toBe(400);
      expect(bad.body.error.code, path).toBe("invalid_address");
    }
    expect(await get(`/api/v1/wallets/0x${"cd".repeat(20)}/rewards`)).toEqual({ items: [] });
  });
});
