-- One word per concept: a token's lifecycle is `tokens.lifecycle` with the wire's values
-- (`curve.lifecycle`: `active` until the curve's `Graduated`, then `graduated`), no longer
-- `tokens.state` with `curve`/`graduated`. Journal row images of `tokens` taken before this
-- migration are rewritten too, so that a reorg undo after the upgrade restores the column.
-- Never edit this file once committed: add a new migration instead.

-- Up Migration

ALTER TABLE "tokens" DROP CONSTRAINT "tokens_state_check";
ALTER TABLE "tokens" RENAME COLUMN "state" TO "lifecycle";
ALTER TABLE "tokens" ALTER COLUMN "lifecycle" SET DEFAULT 'active';
UPDATE "tokens" SET "lifecycle" = 'active' WHERE "lifecycle" = 'curve';
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_lifecycle_check" CHECK ("lifecycle" IN ('active', 'graduated'));
-- The token list's progress sort: the progress rule of `@tmi/shared/market` (integer division),
-- tokens before graduation only.
DROP INDEX "tokens_progress_idx";
CREATE INDEX "tokens_progress_idx" ON "tokens" ((CASE WHEN "graduation_threshold" <= 0 THEN 0 ELSE GREATEST(0, LEAST(10000, div("sold_supply" * 10000, "graduation_threshold")))::int END) DESC, "address") WHERE "lifecycle" = 'active';
COMMENT ON INDEX "tokens_progress_idx" IS 'sql-only: sort=progress (curve progress_bps desc, then address; active lifecycle only)';
UPDATE "reorg_journal"
   SET "row_image" = ("row_image" - 'state')
       || jsonb_build_object('lifecycle', CASE WHEN "row_image"->>'state' = 'curve' THEN 'active' ELSE "row_image"->>'state' END)
 WHERE "table_name" = 'tokens' AND "row_image" ? 'state';

-- Down Migration

UPDATE "reorg_journal"
   SET "row_image" = ("row_image" - 'lifecycle')
       || jsonb_build_object('state', CASE WHEN "row_image"->>'lifecycle' = 'active' THEN 'curve' ELSE "row_image"->>'lifecycle' END)
 WHERE "table_name" = 'tokens' AND "row_image" ? 'lifecycle';
ALTER TABLE "tokens" DROP CONSTRAINT IF EXISTS "tokens_lifecycle_check";
UPDATE "tokens" SET "lifecycle" = 'curve' WHERE "lifecycle" = 'active';
ALTER TABLE "tokens" ALTER COLUMN "lifecycle" SET DEFAULT 'curve';
ALTER TABLE "tokens" RENAME COLUMN "lifecycle" TO "state";
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_state_check" CHECK ("state" IN ('curve', 'graduated'));
DROP INDEX IF EXISTS "tokens_progress_idx";
CREATE INDEX "tokens_progress_idx" ON "tokens" ((CASE WHEN "graduation_threshold" <= 0 THEN 0 ELSE LEAST(10000, floor("sold_supply" * 10000 / "graduation_threshold"))::int END) DESC, "address") WHERE "state" = 'curve';
COMMENT ON INDEX "tokens_progress_idx" IS 'sql-only: sort=progress (curve progress_bps desc, then address; curve phase only)';
