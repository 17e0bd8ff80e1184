-- Issue 29: the distributions list read `claimed_count`/`claimed_amount` with a count/sum over
-- every `reward_claims` row of each page row (work bounded by the data, not the page). They are
-- now kept on `reward_distributions`, added to by the indexer in the same range statement that
-- inserts the claims (an UPDATE of a journaled table: a reorg restores the previous counters
-- from `tmi_journal` like any other row). Filled here from the existing claims. Amounts in the
-- distribution's asset base units. Never edit this file once committed: add a new migration.

-- Up Migration

ALTER TABLE "reward_distributions"
    ADD COLUMN "claimed_count" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "claimed_amount" NUMERIC(78,0) NOT NULL DEFAULT 0;

-- The backfill is not journaled (no `tmi.journal_block` in a migration): it only mirrors rows
-- that the journal already covers.
UPDATE "reward_distributions" r
   SET "claimed_count" = c.n, "claimed_amount" = c.amount
  FROM (SELECT "distribution_id", count(*)::int AS n, sum("amount") AS amount
          FROM "reward_claims" GROUP BY "distribution_id") c
 WHERE c."distribution_id" = r."distribution_id";

-- Down Migration

ALTER TABLE "reward_distributions" DROP COLUMN IF EXISTS "claimed_count", DROP COLUMN IF EXISTS "claimed_amount";
