-- The indexer's readiness threshold for the chain head (HEAD_STALE_MS), written with its head
-- heartbeat (head_block_number, head_seen_at: when the head was last read from the node, at most
-- a second old while the node answers), so that /api/v1/status can tell a hung or unreachable node
-- (or a stopped indexer) from an idle chain. Never edit this file once committed: add a new
-- migration instead.

-- Up Migration

ALTER TABLE "indexer_checkpoints" ADD COLUMN "head_stale_after_ms" INTEGER;

-- Down Migration

ALTER TABLE "indexer_checkpoints" DROP COLUMN IF EXISTS "head_stale_after_ms";
