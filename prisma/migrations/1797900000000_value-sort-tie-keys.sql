-- The value sorts of the token list (`market_cap`, `last_trade`, `holders`, `progress`; docs/api.md
-- "Discovery: sorts, phase and batch") run value descending, then address ascending. Their indexes
-- held (value DESC, address ASC): two directions, so a cursor bounded the index by the value only
-- and filtered the rows of its tie group before the cursor one by one (most tokens share a value:
-- one holder, the launch market cap, no trade; a page deep in a 900,000-token group read 450,000
-- index entries at 1M tokens). The tie now runs on the address with every hex digit inverted
-- (`translate(address, '0123456789abcdef', 'fedcba9876543210')`, descending): the same order as
-- the address ascending for lowercase addresses, and one direction for the whole key, so the
-- cursor is a row comparison that starts the index scan at the position. query-api's keys
-- (services/query-api/src/tokens/token-orders.ts) name the same expressions. Never edit this file
-- once committed: add a new migration instead.

-- Up Migration

DROP INDEX IF EXISTS "tokens_market_cap_idx";
CREATE INDEX "tokens_market_cap_idx" ON "tokens" ((coalesce("fully_diluted_value", -1)) DESC, (translate("address", '0123456789abcdef', 'fedcba9876543210')) DESC);
COMMENT ON INDEX "tokens_market_cap_idx" IS 'sql-only: sort=market_cap (FDV desc, null last, then address asc as its inverted digits desc)';
DROP INDEX IF EXISTS "tokens_last_trade_idx";
CREATE INDEX "tokens_last_trade_idx" ON "tokens" ((coalesce("latest_trade_timestamp", -1)) DESC, (translate("address", '0123456789abcdef', 'fedcba9876543210')) DESC);
COMMENT ON INDEX "tokens_last_trade_idx" IS 'sql-only: sort=last_trade (last trade time desc, none last, then address asc as its inverted digits desc)';
DROP INDEX IF EXISTS "tokens_holders_idx";
CREATE INDEX "tokens_holders_idx" ON "tokens" ("holder_count" DESC, (translate("address", '0123456789abcdef', 'fedcba9876543210')) DESC);
COMMENT ON INDEX "tokens_holders_idx" IS 'sql-only: sort=holders (holder count desc, then address asc as its inverted digits desc)';
DROP INDEX IF EXISTS "tokens_progress_idx";
CREATE INDEX "tokens_progress_idx" ON "tokens" ((CASE WHEN "graduation_threshold" <= 0 THEN 0 ELSE GREATEST(0, LEAST(10000, div("sold_supply" * 10000, "graduation_threshold")))::int END) DESC, (translate("address", '0123456789abcdef', 'fedcba9876543210')) DESC) WHERE "lifecycle" = 'active';
COMMENT ON INDEX "tokens_progress_idx" IS 'sql-only: sort=progress (curve progress_bps desc, then address asc as its inverted digits desc; active lifecycle only)';

-- Down Migration

DROP INDEX IF EXISTS "tokens_market_cap_idx";
CREATE INDEX "tokens_market_cap_idx" ON "tokens" ((coalesce("fully_diluted_value", -1)) DESC, "address");
COMMENT ON INDEX "tokens_market_cap_idx" IS 'sql-only: sort=market_cap (FDV desc, null last, then address)';
DROP INDEX IF EXISTS "tokens_last_trade_idx";
CREATE INDEX "tokens_last_trade_idx" ON "tokens" ((coalesce("latest_trade_timestamp", -1)) DESC, "address");
COMMENT ON INDEX "tokens_last_trade_idx" IS 'sql-only: sort=last_trade (last trade time desc, none last, then address)';
DROP INDEX IF EXISTS "tokens_holders_idx";
CREATE INDEX "tokens_holders_idx" ON "tokens" ("holder_count" DESC, "address");
COMMENT ON INDEX "tokens_holders_idx" IS 'sql-only: sort=holders (holder count desc, then address)';
DROP INDEX IF EXISTS "tokens_progress_idx";
CREATE INDEX "tokens_progress_idx" ON "tokens" ((CASE WHEN "graduation_threshold" <= 0 THEN 0 ELSE GREATEST(0, LEAST(10000, div("sold_supply" * 10000, "graduation_threshold")))::int END) DESC, "address") WHERE "lifecycle" = 'active';
COMMENT ON INDEX "tokens_progress_idx" IS 'sql-only: sort=progress (curve progress_bps desc, then address; active lifecycle only)';
