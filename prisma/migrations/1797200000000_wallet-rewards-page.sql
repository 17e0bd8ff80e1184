-- Issue 31: `GET /api/v1/wallets/{address}/rewards` becomes a keyset page (docs/api.md "Reward
-- distributions"): one item per distribution the wallet has a claim or an uploaded leaf in,
-- ordered by (epoch, distribution_id), newest epoch first. A page merges the next rows of the
-- wallet's claims and of its leaves, each read from an index in that order, so its work is bounded
-- by the page, not by the wallet's rows.
--
-- The order is the distribution's epoch, not its publication's block: the epoch is part of the
-- distribution id (keccak256(abi.encode(epoch, token, asset))), so it is known to the claim (a
-- column of `reward_claims` already) and to the upload, and no reorg ever moves an item (a
-- republished distribution keeps its id and epoch).
--
-- `reward_tree_leaves.epoch` is the epoch of the leaf's distribution, written by the upload
-- (metadata-api) from the indexed distribution it checked the root against; filled here the same
-- way. A tree whose distribution is no longer indexed (a reorg removed its publication) is served
-- by no route and its epoch is unknown: it is deleted (anyone may upload it again once the
-- distribution is indexed). The two wallet indexes replace the ones of the unpaged route.
-- Never edit this file once committed: add a new migration instead.

-- Up Migration

ALTER TABLE "reward_tree_leaves" ADD COLUMN "epoch" NUMERIC(78,0);

UPDATE "reward_tree_leaves" l
   SET "epoch" = d."epoch"
  FROM "reward_distributions" d
 WHERE d."distribution_id" = l."distribution_id";

DELETE FROM "reward_trees" t
 WHERE NOT EXISTS (SELECT 1 FROM "reward_distributions" d WHERE d."distribution_id" = t."distribution_id");

ALTER TABLE "reward_tree_leaves" ALTER COLUMN "epoch" SET NOT NULL;

DROP INDEX "reward_tree_leaves_claimant_idx";
CREATE INDEX "reward_tree_leaves_claimant_epoch_idx"
    ON "reward_tree_leaves" ("claimant", "epoch" DESC, "distribution_id" DESC, "root");

DROP INDEX "reward_claims_claimant_idx";
CREATE INDEX "reward_claims_claimant_epoch_idx"
    ON "reward_claims" ("claimant", "epoch" DESC, "distribution_id" DESC);

-- Down Migration

DROP INDEX IF EXISTS "reward_claims_claimant_epoch_idx";
CREATE INDEX IF NOT EXISTS "reward_claims_claimant_idx" ON "reward_claims" ("claimant", "block_number" DESC, "log_index" DESC);
DROP INDEX IF EXISTS "reward_tree_leaves_claimant_epoch_idx";
CREATE INDEX IF NOT EXISTS "reward_tree_leaves_claimant_idx" ON "reward_tree_leaves" ("claimant");
ALTER TABLE "reward_tree_leaves" DROP COLUMN IF EXISTS "epoch";
