-- The market-wide feed (GET /api/v1/trades) reads its pages from indexes of the trades that are
-- not hidden: `trades.hidden` is true for the trades of the tokens excluded from discovery (an
-- excluded token, or every token of an excluded creator; `hideTradesSql` of
-- packages/shared/src/market/hidden-trades.ts), set by the exclusion commands and by the indexer
-- for each range it writes. Walking the old full indexes, an excluded token holding the newest
-- 200k trades cost the feed 200k filtered rows per page. The partial indexes replace the feed's
-- full ones (nothing else reads them). Never edit this file once committed: add a new migration
-- instead.

-- Up Migration

ALTER TABLE "trades" ADD COLUMN "hidden" BOOLEAN NOT NULL DEFAULT false;
UPDATE "trades" r SET "hidden" = true
WHERE r."token_address" IN (
  SELECT x."address" FROM "excluded_addresses" x WHERE x."kind" = 'token'
  UNION SELECT t."address" FROM "tokens" t JOIN "excluded_addresses" x ON x."kind" = 'creator' AND x."address" = t."creator");

DROP INDEX IF EXISTS "trades_position_idx";
DROP INDEX IF EXISTS "trades_source_position_idx";
CREATE INDEX "trades_visible_position_idx" ON "trades" ("block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC) WHERE NOT "hidden";
COMMENT ON INDEX "trades_visible_position_idx" IS 'sql-only: GET /api/v1/trades (the trades not hidden, newest first; partial)';
CREATE INDEX "trades_visible_source_position_idx" ON "trades" ("source", "block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC) WHERE NOT "hidden";
COMMENT ON INDEX "trades_visible_source_position_idx" IS 'sql-only: GET /api/v1/trades?source= (the trades not hidden, newest first; partial)';

-- Down Migration

DROP INDEX IF EXISTS "trades_visible_source_position_idx";
DROP INDEX IF EXISTS "trades_visible_position_idx";
CREATE INDEX "trades_position_idx" ON "trades" ("block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);
CREATE INDEX "trades_source_position_idx" ON "trades" ("source", "block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);
ALTER TABLE "trades" DROP COLUMN IF EXISTS "hidden";
