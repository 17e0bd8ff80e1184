// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// POST /api/v1/rewards/distributions/{id}/tree on metadata-api's app over a real database: the
// published root is an indexed `reward_distributions` row (written here as the indexer writes it;
// the devnet test test/e2e/rewards-devnet.int.test.ts covers the chain end to end). The leaf cap
// (REWARD_TREE_MAX_LEAVES), the sorted layout, the stored proofs and the idempotent second upload.
import { buildRewardTree, rewardDistributionId } from "@tmi/shared/chain";
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../test/harness.js";

const TOKEN = "0x00000000000000000000000000000000000000aa" as Address;
const ETH = "0x0000000000000000000000000000000000000000" as Address;
const leaves = [1, 2, 3].map((i) => ({
  claimant: `0x${String(i).repeat(40)}` as Address,
  amount: BigInt(i) * 10n ** 15n,
}));
const wire = (list: typeof leaves) =>
  list.map((l) => ({ claimant: l.claimant, amount: l.amount.toString() }));
let h: Harness;

/** Inserts the `DistributionPublished` row of (epoch, TOKEN, ETH) with `root`, as the indexer does. */
async function publish(epoch: bigint, root: string) {
  const id = rewardDistributionId(epoch, TOKEN, ETH);
  await h.sql.query(
    `INSERT INTO reward_distributions (distribution_id, token_address, epoch, asset, root, block_number, block_hash,
       block_timestamp, transaction_hash, log_index) VALUES ($1, $2, $3, $4, $5, 1, $6, 1, $6, 0)`,
    [id, TOKEN, epoch.toString(), ETH, root, `0x${"ab".repeat(32)}`],
  );
  return id;
}

const upload = (id: string, body: unknown) =>
  h.app.inject({ method: "POST", url: `/api/v1/rewards/distributions/${id}/tree`, payload: body as object });

beforeAll(async () => {
  h = await createHarness({ rewardTreeMaxLeaves: 3 });
});
afterAll(async () => {
  await h?.close();
});

describe("POST /api/v1/rewards/distributions/{id}/tree", () => {
  it("default: a tree laid out sorted by leaf hash is stored with its proofs, once", async () => {
    const id = rewardDistributionId(1n, TOKEN, ETH);
    const sorted = buildRewardTree(id, leaves, "sorted");
    // An upload order whose own layout gives another root (sorted pairs make some orders equal).
    const [a, b, c] = leaves as [(typeof leaves)[0], (typeof leaves)[0], (typeof leaves)[0]];
    const order = [
      [a, b, c],
      [b, c, a],
      [c, a, b],
    ].find((list) => buildRewardTree(id, list, "given").root !== sorted.root)!;
    expect(order).toBeDefined();
    await publish(1n, sorted.root);
    const first = await upload(id, { leaves: wire(order) });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toEqual({
      distribution_id: id,
      token_address: TOKEN,
      epoch: "1",
      asset: ETH,
      root: sorted.root,
      order: "sorted",
      leaf_count: 3,
    });
    const { rows } = await h.sql.query<{ claimant: string; amount: string; proof: string[] }>(
      "SELECT claimant, amount::text AS amount, proof FROM reward_tree_leaves WHERE distribution_id = $1 ORDER BY claimant",
      [id],
    );
    expect(rows).toEqual(
      sorted.leaves.map((l) => ({
        claimant: l.claimant.toLowerCase(),
        amount: l.amount.toString(),
        proof: l.proof,
      })),
    );
    const again = await upload(id, { leaves: wire(order) });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
  });

  it("behavior: more leaves than REWARD_TREE_MAX_LEAVES, a claimant twice, a zero or too large amount: 400 invalid_request", async () => {
    const id = await publish(2n, buildRewardTree(rewardDistributionId(2n, TOKEN, ETH), leaves).root);
    const four = [...leaves, { claimant: `0x${"4".repeat(40)}` as Address, amount: 1n }];
    for (const body of [
      { leaves: wire(four) },
      { leaves: wire([leaves[0]!, leaves[0]!]) },
      { leaves: [{ claimant: leaves[0]!.claimant, amount: "0" }] },
      { leaves: [{ claimant: leaves[0]!.claimant, amount: (2n ** 256n).toString() }] },
      { leaves: wire(leaves), extra: true },
    ]) {
      const res = await upload(id, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().error.code).toBe("invalid_request");
    }
    const stored = await h.sql.query("SELECT 1 FROM reward_trees WHERE distribution_id = $1", [id]);
    expect(stored.rows).toEqual([]);
  });
});
