import { type Address, concat, keccak256 } from "viem";
import { describe, expect, it } from "vitest";
import { buildRewardTree, matchRewardTree, rewardDistributionId, rewardLeafHash } from "./rewards-merkle.js";

const TOKEN = "0x00000000000000000000000000000000000000a1" as Address;
const A = "0x1000000000000000000000000000000000000001" as Address;
const B = "0x2000000000000000000000000000000000000002" as Address;
const C = "0x3000000000000000000000000000000000000003" as Address;
const id = rewardDistributionId(7n, TOKEN, "0x0000000000000000000000000000000000000000");
/** The distributor's pair rule: keccak256 of the sorted pair. */
const pair = (x: `0x${string}`, y: `0x${string}`) => keccak256(x < y ? concat([x, y]) : concat([y, x]));
/** The distributor's check (OpenZeppelin MerkleProof.verify). */
const verify = (leaf: `0x${string}`, proof: `0x${string}`[], root: string) =>
  proof.reduce((node, sibling) => pair(node, sibling), leaf) === root;

describe("rewards merkle", () => {
  it("behavior: a one-leaf tree's root is the leaf hash (single keccak of abi.encode(id, claimant, amount))", () => {
    const tree = buildRewardTree(id, [{ claimant: A, amount: 5n }]);
    expect(tree.root).toBe(rewardLeafHash(id, A, 5n));
    expect(tree.leaves[0]!.proof).toEqual([]);
  });

  it("behavior: inner nodes hash sorted pairs and every proof verifies under the distributor's rule", () => {
    const leaves = [
      { claimant: A, amount: 5n },
      { claimant: B, amount: 6n },
      { claimant: C, amount: 7n },
    ];
    for (const order of ["given", "sorted"] as const) {
      const tree = buildRewardTree(id, leaves, order);
      for (const leaf of tree.leaves) expect(verify(leaf.leafHash, leaf.proof, tree.root)).toBe(true);
      expect(verify(rewardLeafHash(id, A, 6n), tree.leaves[0]!.proof, tree.root)).toBe(false);
    }
    const two = buildRewardTree(id, leaves.slice(0, 2));
    expect(two.root).toBe(pair(rewardLeafHash(id, A, 5n), rewardLeafHash(id, B, 6n)));
  });

  it("behavior: a root built sorted by leaf hash is matched when the given order does not give it", () => {
    const leaves = [
      { claimant: A, amount: 1n },
      { claimant: B, amount: 2n },
      { claimant: C, amount: 3n },
      { claimant: "0x4000000000000000000000000000000000000004" as Address, amount: 4n },
      { claimant: "0x5000000000000000000000000000000000000005" as Address, amount: 5n },
    ];
    const sorted = buildRewardTree(id, leaves, "sorted");
    const given = buildRewardTree(id, leaves, "given");
    expect(matchRewardTree(id, leaves, given.root)?.order).toBe("given");
    expect(sorted.root).not.toBe(given.root);
    expect(matchRewardTree(id, leaves, sorted.root)?.order).toBe("sorted");
    expect(matchRewardTree(id, leaves.slice(1), given.root)).toBeNull();
  });

  it("errors: empty leaves, a non-positive amount and a repeated claimant are RangeErrors", () => {
    expect(() => buildRewardTree(id, [])).toThrow(RangeError);
    expect(() => buildRewardTree(id, [{ claimant: A, amount: 0n }])).toThrow(RangeError);
    expect(() =>
      buildRewardTree(id, [
        { claimant: A, amount: 1n },
        { claimant: A.toUpperCase().replace("0X", "0x") as Address, amount: 2n },
      ]),
    ).toThrow(RangeError);
  });
});
