-- zonk.fun V3: the read models follow the platform's V3 contracts (factory, per-token curve,
-- graduation manager, canonical Uniswap V3 pool). Old launchpad data does not survive: the
-- indexer's tables are emptied and the indexer re-indexes from START_BLOCK.
--
-- Also adds the reorg journal: one generic record of what each unfinalized block changed in the
-- read models (inserted rows, prior images of updated/deleted rows), written by row triggers
-- while the indexer sets `tmi.journal_block` for its transaction, and undone in reverse on a
-- reorg (see docs/indexer.md). Triggers and the trigger function are SQL-only objects.
--
-- Extras not in schema.prisma: CHECK constraints (*_check), the trigger function and triggers.

-- Up Migration

TRUNCATE "indexer_checkpoints", "blocks", "chain_events", "tokens", "trades", "token_balances",
    "token_traders", "candles", "candle_traders", "creators", "trending_entries",
    "trending_snapshots", "eth_usd_answers";

-- tokens: V3 curve state, canonical pool, graduation and settlement.
ALTER TABLE "tokens"
    DROP COLUMN "token_balance",
    DROP COLUMN "real_reserve",
    DROP COLUMN "tokens_sold",
    DROP CONSTRAINT "tokens_last_trade_source_check",
    ADD COLUMN "curve_address" TEXT NOT NULL,
    ADD COLUMN "sold_supply" DECIMAL(78,0) NOT NULL DEFAULT 0,
    ADD COLUMN "virtual_token_reserve" DECIMAL(78,0) NOT NULL,
    ADD COLUMN "virtual_eth_reserve" DECIMAL(78,0) NOT NULL,
    ADD COLUMN "graduation_manager_address" TEXT,
    ADD COLUMN "lp_custodian_address" TEXT,
    ADD COLUMN "residual_escrow_address" TEXT,
    ADD COLUMN "position_token_id" DECIMAL(78,0),
    ADD COLUMN "graduation_liquidity" DECIMAL(78,0),
    ADD COLUMN "graduation_token_amount" DECIMAL(78,0),
    ADD COLUMN "graduation_eth_amount" DECIMAL(78,0),
    ADD COLUMN "graduation_sold_supply" DECIMAL(78,0),
    ADD COLUMN "settled_block_number" BIGINT,
    ADD COLUMN "settled_transaction_hash" TEXT,
    ADD COLUMN "settled_log_index" INTEGER,
    ADD COLUMN "latest_trade_timestamp" BIGINT,
    ADD CONSTRAINT "tokens_last_trade_source_check" CHECK ("last_trade_source" IN ('curve', 'uniswap_v3'));

ALTER TABLE "tokens" ALTER COLUMN "reserve_balance" SET DEFAULT 0;

CREATE UNIQUE INDEX "tokens_curve_address_key" ON "tokens" ("curve_address");

-- trades: pool swaps are `uniswap_v3` (the platform's name).
ALTER TABLE "trades"
    DROP CONSTRAINT "trades_source_check",
    ADD CONSTRAINT "trades_source_check" CHECK ("source" IN ('curve', 'uniswap_v3'));

-- Logs the indexer could not apply (recorded, reported, and skipped so that indexing goes on).
CREATE TABLE "skipped_logs" (
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "block_hash" TEXT NOT NULL,
    "transaction_hash" TEXT NOT NULL,
    "contract_address" TEXT NOT NULL,
    "topic0" TEXT,
    "reason" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "skipped_logs_pkey" PRIMARY KEY ("block_number", "log_index")
);

-- The reorg journal.
CREATE TABLE "reorg_journal" (
    "id" BIGSERIAL NOT NULL,
    "block_number" BIGINT NOT NULL,
    "table_name" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "row_image" JSONB NOT NULL,
    CONSTRAINT "reorg_journal_pkey" PRIMARY KEY ("id"),
    -- extra (not in schema.prisma): the operations listed in the schema comment
    CONSTRAINT "reorg_journal_operation_check" CHECK ("operation" IN ('insert', 'update', 'delete'))
);

CREATE INDEX "reorg_journal_block_number_idx" ON "reorg_journal" ("block_number");

-- Records one row change of a journaled table. `tmi.journal_block` (set with set_config(..., true)
-- by the indexer for the transaction) is the first block of the write: undoing every entry at or
-- above a block restores the read models as they were before it. Unset (historical sync below the
-- reorg window): the trigger's WHEN clause is false and nothing is recorded.
CREATE FUNCTION "tmi_journal_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "reorg_journal" ("block_number", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, TG_TABLE_NAME, 'insert', to_jsonb(NEW));
        RETURN NULL;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO "reorg_journal" ("block_number", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, TG_TABLE_NAME, 'update', to_jsonb(OLD));
        RETURN NULL;
    ELSE
        INSERT INTO "reorg_journal" ("block_number", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, TG_TABLE_NAME, 'delete', to_jsonb(OLD));
        RETURN NULL;
    END IF;
END
$$;

CREATE TRIGGER "chain_events_journal" AFTER INSERT OR UPDATE OR DELETE ON "chain_events" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "tokens_journal" AFTER INSERT OR UPDATE OR DELETE ON "tokens" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "trades_journal" AFTER INSERT OR UPDATE OR DELETE ON "trades" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "token_balances_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_balances" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "token_traders_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_traders" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "candles_journal" AFTER INSERT OR UPDATE OR DELETE ON "candles" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "candle_traders_journal" AFTER INSERT OR UPDATE OR DELETE ON "candle_traders" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "creators_journal" AFTER INSERT OR UPDATE OR DELETE ON "creators" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "eth_usd_answers_journal" AFTER INSERT OR UPDATE OR DELETE ON "eth_usd_answers" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "skipped_logs_journal" AFTER INSERT OR UPDATE OR DELETE ON "skipped_logs" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- Down Migration

DROP TRIGGER IF EXISTS "skipped_logs_journal" ON "skipped_logs";
DROP TRIGGER IF EXISTS "eth_usd_answers_journal" ON "eth_usd_answers";
DROP TRIGGER IF EXISTS "creators_journal" ON "creators";
DROP TRIGGER IF EXISTS "candle_traders_journal" ON "candle_traders";
DROP TRIGGER IF EXISTS "candles_journal" ON "candles";
DROP TRIGGER IF EXISTS "token_traders_journal" ON "token_traders";
DROP TRIGGER IF EXISTS "token_balances_journal" ON "token_balances";
DROP TRIGGER IF EXISTS "trades_journal" ON "trades";
DROP TRIGGER IF EXISTS "tokens_journal" ON "tokens";
DROP TRIGGER IF EXISTS "chain_events_journal" ON "chain_events";
DROP FUNCTION IF EXISTS "tmi_journal_row"();
DROP TABLE IF EXISTS "reorg_journal";
DROP TABLE IF EXISTS "skipped_logs";
TRUNCATE "indexer_checkpoints", "blocks", "chain_events", "tokens", "trades", "token_balances",
    "token_traders", "candles", "candle_traders", "creators", "trending_entries",
    "trending_snapshots", "eth_usd_answers";
ALTER TABLE "trades"
    DROP CONSTRAINT "trades_source_check",
    ADD CONSTRAINT "trades_source_check" CHECK ("source" IN ('curve', 'dex_v3'));
DROP INDEX IF EXISTS "tokens_curve_address_key";
ALTER TABLE "tokens" ALTER COLUMN "reserve_balance" DROP DEFAULT;
ALTER TABLE "tokens"
    DROP CONSTRAINT "tokens_last_trade_source_check",
    DROP COLUMN "curve_address",
    DROP COLUMN "sold_supply",
    DROP COLUMN "virtual_token_reserve",
    DROP COLUMN "virtual_eth_reserve",
    DROP COLUMN "graduation_manager_address",
    DROP COLUMN "lp_custodian_address",
    DROP COLUMN "residual_escrow_address",
    DROP COLUMN "position_token_id",
    DROP COLUMN "graduation_liquidity",
    DROP COLUMN "graduation_token_amount",
    DROP COLUMN "graduation_eth_amount",
    DROP COLUMN "graduation_sold_supply",
    DROP COLUMN "settled_block_number",
    DROP COLUMN "settled_transaction_hash",
    DROP COLUMN "settled_log_index",
    DROP COLUMN "latest_trade_timestamp",
    ADD COLUMN "token_balance" DECIMAL(78,0) NOT NULL,
    ADD COLUMN "real_reserve" DECIMAL(78,0) NOT NULL DEFAULT 0,
    ADD COLUMN "tokens_sold" DECIMAL(78,0) NOT NULL DEFAULT 0,
    ADD CONSTRAINT "tokens_last_trade_source_check" CHECK ("last_trade_source" IN ('curve', 'dex_v3'));
