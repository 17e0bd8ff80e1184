-- Indexes of the discovery routes (docs/api.md "Discovery: sorts, phase and batch", "Market-wide
-- trades"): every sort of GET /api/v1/tokens and every order of GET /api/v1/trades reads its
-- page from an index, never by sorting the table. Null FDV and trade time sort last: the sort
-- keys are coalesced to -1 (expression indexes, so they are SQL-only: schema.prisma cannot
-- declare them). Never edit this file once committed: add a new migration instead.

-- Up Migration

CREATE INDEX "trades_position_idx" ON "trades" ("block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);
CREATE INDEX "trades_source_position_idx" ON "trades" ("source", "block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);

CREATE INDEX "tokens_market_cap_idx" ON "tokens" ((coalesce("fully_diluted_value", -1)) DESC, "address");
COMMENT ON INDEX "tokens_market_cap_idx" IS 'sql-only: sort=market_cap (FDV desc, null last, then address)';
CREATE INDEX "tokens_last_trade_idx" ON "tokens" ((coalesce("latest_trade_timestamp", -1)) DESC, "address");
COMMENT ON INDEX "tokens_last_trade_idx" IS 'sql-only: sort=last_trade (latest trade time desc, none last, then address)';
CREATE INDEX "tokens_progress_idx" ON "tokens" ((CASE WHEN "graduation_threshold" <= 0 THEN 0 ELSE LEAST(10000, floor("sold_supply" * 10000 / "graduation_threshold"))::int END) DESC, "address") WHERE "state" = 'curve';
COMMENT ON INDEX "tokens_progress_idx" IS 'sql-only: sort=progress (curve progress_bps desc, then address; curve phase only)';
CREATE INDEX "tokens_holders_idx" ON "tokens" ("holder_count" DESC, "address");

CREATE INDEX "trending_entries_volume_idx" ON "trending_entries" ("snapshot_id", "window_volume" DESC, "token_address");
CREATE UNIQUE INDEX "trending_entries_token_idx" ON "trending_entries" ("snapshot_id", "token_address");

-- Down Migration

DROP INDEX IF EXISTS "trending_entries_token_idx";
DROP INDEX IF EXISTS "trending_entries_volume_idx";
DROP INDEX IF EXISTS "tokens_holders_idx";
DROP INDEX IF EXISTS "tokens_progress_idx";
DROP INDEX IF EXISTS "tokens_last_trade_idx";
DROP INDEX IF EXISTS "tokens_market_cap_idx";
DROP INDEX IF EXISTS "trades_source_position_idx";
DROP INDEX IF EXISTS "trades_position_idx";
