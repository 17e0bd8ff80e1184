// `POST /api/v1/rewards/distributions/{id}/tree` (docs/api.md "Reward distributions"): a trader-reward
// distribution's leaves, stored with their proofs only when their tree hashes to the root the
// deployment's distributor published (`reward_distributions`, written by the indexer). It lives in
// metadata-api, the write side (query-api is read-only by design), and needs no credentials: the
// chain is the authority, an upload can only add proofs that verify against the published root.
import type { Db } from "@tmi/db";
import { matchRewardTree, type RewardLeaf } from "@tmi/shared/chain";
import { AppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import type { Address, Hex } from "viem";
import { z } from "zod";
import { parseInput } from "../routes/parse-input.js";

/** Default of `REWARD_TREE_MAX_LEAVES`: the most leaves one upload may carry. */
export const DEFAULT_REWARD_TREE_MAX_LEAVES = 10_000;

/** Largest uint256. */
const UINT256_MAX = 2n ** 256n - 1n;

/** Bytes of request body allowed per leaf (a leaf is ~100 bytes of JSON; room for whitespace). */
const BYTES_PER_LEAF = 256;

/** What the reward tree route needs. */
export interface RewardTreeRoutesDeps {
  /** Read-write Prisma client (reads `reward_distributions`, writes `reward_trees`/`reward_tree_leaves`). */
  db: Db;
  /** Most leaves of one upload (`REWARD_TREE_MAX_LEAVES`); more is 400 `invalid_request`. */
  maxLeaves: number;
}

const params = z.object({ id: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a distribution id (bytes32 hex)") });

/** The upload body: every leaf of the distribution, `amount` a positive uint256 decimal string. */
function bodySchema(maxLeaves: number) {
  return z
    .object({
      leaves: z
        .array(
          z
            .object({
              claimant: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address"),
              amount: z
                .string()
                .regex(/^[1-9][0-9]{0,77}$/, "a positive integer as a decimal string")
                // zod runs the refinement after a failed regex too: only digits reach BigInt.
                .refine((a) => !/^[0-9]+$/.test(a) || BigInt(a) <= UINT256_MAX, "at most 2^256 - 1"),
            })
            .strict(),
        )
        .min(1)
        .max(maxLeaves),
    })
    .strict();
}

/**
 * Registers `POST /api/v1/rewards/distributions/:id/tree`. Answers 201 with the stored tree's
 * summary (`distribution_id`, `token_address`, `epoch`, `asset`, `root`, `order`: `given` or
 * `sorted`, `leaf_count`), 200 with the same body when that tree was already stored (an identical
 * upload is idempotent); 400 `invalid_request` (malformed id or body, more than `maxLeaves`
 * leaves, a claimant twice), 404 `not_found` (no distribution of that id is indexed), 422
 * `root_mismatch` (neither the given order nor the leaf-hash order gives the published root).
 */
export function registerRewardTreeRoutes(app: HttpApp, deps: RewardTreeRoutesDeps): void {
  const body = bodySchema(deps.maxLeaves);
  app.post(
    "/api/v1/rewards/distributions/:id/tree",
    { bodyLimit: deps.maxLeaves * BYTES_PER_LEAF + 1024 },
    async (request, reply) => {
      const id = parseInput(params, request.params).id.toLowerCase() as Hex;
      const { leaves: raw } = parseInput(body, request.body);
      const leaves: RewardLeaf[] = raw.map((l) => ({
        claimant: l.claimant as Address,
        amount: BigInt(l.amount),
      }));
      const found = await deps.db.$queryRaw<
        { token_address: string; epoch: string; asset: string; root: string }[]
      >`
        SELECT token_address, epoch::text AS epoch, asset, root FROM reward_distributions WHERE distribution_id = ${id}`;
      const distribution = found[0];
      if (!distribution) throw new AppError("not_found", `no published distribution ${id}`);
      let tree: ReturnType<typeof matchRewardTree>;
      try {
        tree = matchRewardTree(id, leaves, distribution.root as Hex);
      } catch (error) {
        if (error instanceof RangeError) throw new AppError("invalid_request", `leaves: ${error.message}`);
        throw error;
      }
      if (!tree)
        throw new AppError(
          "root_mismatch",
          `the leaves hash to no tree with the published root ${distribution.root} (given order and sorted by leaf hash tried)`,
        );
      const built = tree;
      const created = await deps.db.$transaction(async (tx) => {
        const inserted = await tx.$executeRaw`
          INSERT INTO reward_trees (distribution_id, root, leaf_order, leaf_count)
          VALUES (${id}, ${built.root}, ${built.order}, ${built.leaves.length})
          ON CONFLICT (distribution_id, root) DO NOTHING`;
        if (inserted === 0) return false;
        await tx.rewardTreeLeaf.createMany({
          data: built.leaves.map((l) => ({
            distributionId: id,
            root: built.root,
            claimant: l.claimant.toLowerCase(),
            // The order of the wallet rewards page (query-api): the epoch is part of the id.
            epoch: distribution.epoch,
            amount: l.amount.toString(),
            leafHash: l.leafHash,
            proof: l.proof,
          })),
        });
        return true;
      });
      const stored = created
        ? { order: built.order, count: built.leaves.length }
        : await deps.db.rewardTree
            .findUniqueOrThrow({ where: { distributionId_root: { distributionId: id, root: built.root } } })
            .then((t) => ({ order: t.leafOrder, count: t.leafCount }));
      reply.code(created ? 201 : 200).header("cache-control", "no-store");
      return {
        distribution_id: id,
        token_address: distribution.token_address,
        epoch: distribution.epoch,
        asset: distribution.asset,
        root: built.root,
        order: stored.order,
        leaf_count: stored.count,
      };
    },
  );
}
