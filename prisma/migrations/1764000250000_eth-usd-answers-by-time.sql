-- USD charts (GET /api/v1/tokens/{address}/chart?currency=usd) price each bucket with the ETH/USD
-- answer in force at the bucket's end: the latest positive answer whose round `updated_at` is
-- before it. This index makes that one backward index probe per bucket. Never edit this file once
-- committed: add a new migration instead.

-- Up Migration

CREATE INDEX "eth_usd_answers_updated_at_idx" ON "eth_usd_answers"("updated_at", "block_number", "log_index");

-- Down Migration

DROP INDEX IF EXISTS "eth_usd_answers_updated_at_idx";
