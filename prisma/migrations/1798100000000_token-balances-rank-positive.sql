-- The holders' rank index (`token_balances_rank_idx`: token, balance DESC, holder) now holds the
-- positive balances only (`WHERE balance > 0`; the indexer deletes a balance that reaches 0, and
-- only positive balances are holders). The holders pages and the risk read's top holders say
-- `balance > 0` and use it as before. The lookups of one balance by (token, holder) — each row of a traders page, the pnl
-- ranking's page, a wallet's closed positions, the indexer's balance deltas — do not, so they can
-- no longer take it: with about one balance per token on average the planner costs it the same as
-- the primary key for such a lookup, and kept whichever index was created last (the rank index
-- after a dump restore or the bench builder), which reads the token's whole range for one holder
-- (1,323 buffers against 84 for a page of 21 traders of a token of 4,000 holders). Never edit
-- this file once committed: add a new migration instead.

-- Up Migration

DROP INDEX IF EXISTS "token_balances_rank_idx";
CREATE INDEX "token_balances_rank_idx" ON "token_balances" ("token_address", "balance" DESC, "holder") WHERE "balance" > 0;
COMMENT ON INDEX "token_balances_rank_idx" IS 'sql-only: holders by balance desc, holder asc (positive balances); partial so a lookup by (token, holder) cannot take it';

-- Down Migration

DROP INDEX IF EXISTS "token_balances_rank_idx";
CREATE INDEX "token_balances_rank_idx" ON "token_balances" ("token_address", "balance" DESC, "holder");
