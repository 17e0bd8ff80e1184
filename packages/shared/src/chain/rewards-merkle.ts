import { SimpleMerkleTree } from "@openzeppelin/merkle-tree";
import { type Address, encodeAbiParameters, getAddress, type Hex, keccak256 } from "viem";

/**
 * Merkle trees of the platform's trader-reward distributions (`TraderRewardsDistributorV3`).
 *
 * The distributor fixes the leaf and the pair rule, not the tree's shape:
 * - a distribution's id is `keccak256(abi.encode(uint256 epoch, address launchToken, address asset))`
 *   ({@link rewardDistributionId});
 * - a leaf is `keccak256(abi.encode(bytes32 id, address claimant, uint256 amount))`
 *   ({@link rewardLeafHash}): one hash, not the double hash of OpenZeppelin's StandardMerkleTree,
 *   so the leaves are hashed here and the tree is OpenZeppelin's `SimpleMerkleTree` over them;
 * - inner nodes hash the sorted pair (`keccak256(min ‖ max)`, OpenZeppelin `MerkleProof`).
 * A publisher may have laid the leaves out in its own order, so {@link buildRewardTree} builds them
 * either in the given order (`"given"`: as OpenZeppelin's merkle-tree does with `sortLeaves:
 * false`) or sorted by leaf hash (`"sorted"`: its default); {@link matchRewardTree} tries both
 * against a published root.
 */

/** One leaf of a distribution: who may claim and how much (asset base units, wei for ETH). */
export interface RewardLeaf {
  claimant: Address;
  amount: bigint;
}

/** How the leaves are laid out: in the given order, or sorted by leaf hash. */
export type RewardLeafOrder = "given" | "sorted";

/** A built distribution tree: its root and each leaf's proof (bytes32[] for `claim`). */
export interface RewardTree {
  /** The Merkle root (bytes32, lowercase hex) to compare with `DistributionPublished.root`. */
  root: Hex;
  order: RewardLeafOrder;
  /** The leaves in the order given (claimant checksummed), each with its leaf hash and proof. */
  leaves: (RewardLeaf & { leafHash: Hex; proof: Hex[] })[];
}

/** `distributionId(epoch, launchToken, asset)` of the distributor (native ETH: the zero address). */
export function rewardDistributionId(epoch: bigint, launchToken: Address, asset: Address): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "address" }, { type: "address" }],
      [epoch, launchToken, asset],
    ),
  );
}

/** `leafHash(id, claimant, amount)` of the distributor. */
export function rewardLeafHash(distributionId: Hex, claimant: Address, amount: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "address" }, { type: "uint256" }],
      [distributionId, claimant, amount],
    ),
  );
}

/**
 * Builds the tree of distribution `distributionId` over `leaves`, laid out by `order` (default
 * `"given"`).
 * @throws RangeError when `leaves` is empty, an amount is not positive, or a claimant appears twice
 *   (the distributor pays a claimant once per distribution).
 */
export function buildRewardTree(
  distributionId: Hex,
  leaves: readonly RewardLeaf[],
  order: RewardLeafOrder = "given",
): RewardTree {
  if (leaves.length === 0) throw new RangeError("a distribution needs at least one leaf");
  const seen = new Set<string>();
  const hashed = leaves.map(({ claimant, amount }) => {
    const address = getAddress(claimant);
    if (amount <= 0n) throw new RangeError(`amount of ${address} must be positive`);
    if (seen.has(address)) throw new RangeError(`claimant ${address} appears twice`);
    seen.add(address);
    return { claimant: address, amount, leafHash: rewardLeafHash(distributionId, address, amount) };
  });
  const tree = SimpleMerkleTree.of(
    hashed.map((leaf) => leaf.leafHash),
    { sortLeaves: order === "sorted" },
  );
  return {
    root: tree.root as Hex,
    order,
    leaves: hashed.map((leaf) => ({ ...leaf, proof: tree.getProof(leaf.leafHash) as Hex[] })),
  };
}

/**
 * The tree of `leaves` whose root equals `root` (the given order first, then sorted by leaf hash),
 * or null when neither layout gives it.
 * @throws RangeError as {@link buildRewardTree}.
 */
export function matchRewardTree(
  distributionId: Hex,
  leaves: readonly RewardLeaf[],
  root: Hex,
): RewardTree | null {
  for (const order of ["given", "sorted"] as const) {
    const tree = buildRewardTree(distributionId, leaves, order);
    if (tree.root === root.toLowerCase()) return tree;
  }
  return null;
}
