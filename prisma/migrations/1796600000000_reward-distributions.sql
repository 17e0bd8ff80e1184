-- Trader-reward distributions (issue 29 items 5-6): the distributor's published roots
-- (`DistributionPublished`) and claims (`RewardClaimed`), written by the indexer from the
-- distributor the platform's trader-rewards vault is bound to (journaled like every read model);
-- and the trees uploaded through `POST /api/v1/rewards/distributions/{id}/tree`, stored only when
-- their root equals the published one (not journaled: an upload is keyed by its root, and a
-- read joins it to the indexed distribution of the same id and root, so a reorg that removes
-- or replaces the publication hides the tree). Amounts in asset base units (wei for ETH, the
-- zero address). Never edit this file once committed: add a new migration instead.

-- Up Migration

CREATE TABLE "reward_distributions" (
    "distribution_id" TEXT NOT NULL,
    "token_address" TEXT NOT NULL,
    "epoch" NUMERIC(78,0) NOT NULL,
    "asset" TEXT NOT NULL,
    "root" TEXT NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_hash" TEXT,
    "block_timestamp" BIGINT NOT NULL,
    "transaction_hash" TEXT NOT NULL,
    "log_index" INTEGER NOT NULL,

    CONSTRAINT "reward_distributions_pkey" PRIMARY KEY ("distribution_id")
);

-- A token's distributions, newest first (the list route's keyset order).
CREATE INDEX "reward_distributions_token_idx" ON "reward_distributions" ("token_address", "block_number" DESC, "log_index" DESC);

CREATE TABLE "reward_claims" (
    "distribution_id" TEXT NOT NULL,
    "claimant" TEXT NOT NULL,
    "token_address" TEXT NOT NULL,
    "epoch" NUMERIC(78,0) NOT NULL,
    "asset" TEXT NOT NULL,
    "amount" NUMERIC(78,0) NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_hash" TEXT,
    "block_timestamp" BIGINT NOT NULL,
    "transaction_hash" TEXT NOT NULL,
    "log_index" INTEGER NOT NULL,

    CONSTRAINT "reward_claims_pkey" PRIMARY KEY ("distribution_id", "claimant")
);

CREATE INDEX "reward_claims_claimant_idx" ON "reward_claims" ("claimant", "block_number" DESC, "log_index" DESC);

CREATE TABLE "reward_trees" (
    "distribution_id" TEXT NOT NULL,
    "root" TEXT NOT NULL,
    "leaf_order" TEXT NOT NULL,
    "leaf_count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reward_trees_pkey" PRIMARY KEY ("distribution_id", "root")
);

CREATE TABLE "reward_tree_leaves" (
    "distribution_id" TEXT NOT NULL,
    "root" TEXT NOT NULL,
    "claimant" TEXT NOT NULL,
    "amount" NUMERIC(78,0) NOT NULL,
    "leaf_hash" TEXT NOT NULL,
    "proof" TEXT[] NOT NULL,

    CONSTRAINT "reward_tree_leaves_pkey" PRIMARY KEY ("distribution_id", "root", "claimant"),
    CONSTRAINT "reward_tree_leaves_tree_fkey" FOREIGN KEY ("distribution_id", "root")
        REFERENCES "reward_trees" ("distribution_id", "root") ON DELETE CASCADE
);

CREATE INDEX "reward_tree_leaves_claimant_idx" ON "reward_tree_leaves" ("claimant");

CREATE TRIGGER "reward_distributions_journal" AFTER INSERT OR UPDATE OR DELETE ON "reward_distributions" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "reward_claims_journal" AFTER INSERT OR UPDATE OR DELETE ON "reward_claims" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- Down Migration

DROP TABLE IF EXISTS "reward_tree_leaves";
DROP TABLE IF EXISTS "reward_trees";
DROP TABLE IF EXISTS "reward_claims";
DROP TABLE IF EXISTS "reward_distributions";
