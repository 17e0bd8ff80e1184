-- Initial schema, written by hand to match prisma/schema.prisma exactly (tables, columns, types,
-- nullability, defaults, primary keys, uniques, foreign keys, indexes with their `map:` names).
-- Applied by node-pg-migrate (`pnpm db:migrate`); `pnpm db:check` compares the result with the
-- Prisma schema. Never edit this file once committed: add a new migration instead.
--
-- Extras that schema.prisma cannot express (allowed by the drift check): the CHECK constraints
-- named *_check below, each restricting a text column to the values its schema comment lists.
-- Names follow Prisma's conventions (<table>_pkey, <table>_<column>_key, <table>_<column>_fkey).

-- Up Migration

CREATE TABLE "indexer_checkpoints" (
    "chain_id" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_hash" TEXT NOT NULL,
    "block_timestamp" BIGINT NOT NULL,
    "head_block_number" BIGINT,
    "head_seen_at" TIMESTAMPTZ(3),
    "last_reorg_at" TIMESTAMPTZ(3),
    "last_reorg_from_block" BIGINT,
    "last_reorg_to_block" BIGINT,
    "last_reorg_depth" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "indexer_checkpoints_pkey" PRIMARY KEY ("chain_id")
);

CREATE TABLE "blocks" (
    "number" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "parent_hash" TEXT NOT NULL,
    "timestamp" BIGINT NOT NULL,
    CONSTRAINT "blocks_pkey" PRIMARY KEY ("number")
);

CREATE TABLE "chain_events" (
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "block_hash" TEXT NOT NULL,
    "block_timestamp" BIGINT NOT NULL,
    "transaction_index" INTEGER NOT NULL,
    "transaction_hash" TEXT NOT NULL,
    "contract_address" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "token_address" TEXT,
    "decoded" JSONB NOT NULL,
    CONSTRAINT "chain_events_pkey" PRIMARY KEY ("block_number", "log_index")
);

CREATE INDEX "chain_events_token_position_idx" ON "chain_events" ("token_address", "block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);

CREATE TABLE "tokens" (
    "address" TEXT NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "creator" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "search_name" TEXT NOT NULL,
    "search_symbol" TEXT NOT NULL,
    "initial_supply" DECIMAL(78,0) NOT NULL,
    "created_block_number" BIGINT NOT NULL,
    "created_transaction_index" INTEGER NOT NULL,
    "created_transaction_hash" TEXT NOT NULL,
    "created_log_index" INTEGER NOT NULL,
    "created_at" BIGINT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'curve',
    "reserve_balance" DECIMAL(78,0) NOT NULL,
    "token_balance" DECIMAL(78,0) NOT NULL,
    "real_reserve" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "tokens_sold" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "graduation_threshold" DECIMAL(78,0) NOT NULL,
    "pool_address" TEXT,
    "pool_token_is_token0" BOOLEAN,
    "graduated_block_number" BIGINT,
    "graduated_transaction_hash" TEXT,
    "graduated_log_index" INTEGER,
    "graduated_at" BIGINT,
    "trade_count" INTEGER NOT NULL DEFAULT 0,
    "buy_count" INTEGER NOT NULL DEFAULT 0,
    "sell_count" INTEGER NOT NULL DEFAULT 0,
    "volume" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "fees" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "unique_trader_count" INTEGER NOT NULL DEFAULT 0,
    "holder_count" INTEGER NOT NULL DEFAULT 0,
    "current_price" DECIMAL(78,0),
    "fully_diluted_value" DECIMAL(78,0),
    "last_trade_source" TEXT,
    "last_trade_block_number" BIGINT,
    "updated_block_number" BIGINT NOT NULL,
    CONSTRAINT "tokens_pkey" PRIMARY KEY ("address"),
    -- extra (not in schema.prisma): allowed values from the schema comments
    CONSTRAINT "tokens_state_check" CHECK ("state" IN ('curve', 'graduated')),
    CONSTRAINT "tokens_last_trade_source_check" CHECK ("last_trade_source" IN ('curve', 'dex_v3'))
);

CREATE UNIQUE INDEX "tokens_pool_address_key" ON "tokens" ("pool_address");
CREATE INDEX "tokens_newest_idx" ON "tokens" ("created_block_number" DESC, "created_log_index" DESC);
CREATE INDEX "tokens_creator_newest_idx" ON "tokens" ("creator", "created_block_number" DESC, "created_log_index" DESC);
CREATE INDEX "tokens_search_name_idx" ON "tokens" ("search_name" text_pattern_ops);
CREATE INDEX "tokens_search_symbol_idx" ON "tokens" ("search_symbol" text_pattern_ops);
CREATE INDEX "tokens_address_prefix_idx" ON "tokens" ("address" text_pattern_ops);

CREATE TABLE "trades" (
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "transaction_index" INTEGER NOT NULL,
    "transaction_hash" TEXT NOT NULL,
    "block_timestamp" BIGINT NOT NULL,
    "token_address" TEXT NOT NULL,
    "trader" TEXT NOT NULL,
    "side" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "token_amount" DECIMAL(78,0) NOT NULL,
    "reserve_amount" DECIMAL(78,0) NOT NULL,
    "curve_value" DECIMAL(78,0) NOT NULL,
    "protocol_fee" DECIMAL(78,0) NOT NULL,
    "creator_fee" DECIMAL(78,0) NOT NULL,
    "price" DECIMAL(78,0),
    CONSTRAINT "trades_pkey" PRIMARY KEY ("block_number", "log_index"),
    -- extra (not in schema.prisma): allowed values from the schema comments
    CONSTRAINT "trades_side_check" CHECK ("side" IN ('buy', 'sell')),
    CONSTRAINT "trades_source_check" CHECK ("source" IN ('curve', 'dex_v3'))
);

CREATE INDEX "trades_token_position_idx" ON "trades" ("token_address", "block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);
CREATE INDEX "trades_block_timestamp_idx" ON "trades" ("block_timestamp");

CREATE TABLE "token_balances" (
    "token_address" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "balance" DECIMAL(78,0) NOT NULL,
    CONSTRAINT "token_balances_pkey" PRIMARY KEY ("token_address", "holder")
);

CREATE INDEX "token_balances_rank_idx" ON "token_balances" ("token_address", "balance" DESC, "holder");

CREATE TABLE "token_traders" (
    "token_address" TEXT NOT NULL,
    "trader" TEXT NOT NULL,
    "first_block_number" BIGINT NOT NULL,
    CONSTRAINT "token_traders_pkey" PRIMARY KEY ("token_address", "trader")
);

CREATE TABLE "candles" (
    "token_address" TEXT NOT NULL,
    "interval" TEXT NOT NULL,
    "bucket_start" BIGINT NOT NULL,
    "trade_count" INTEGER NOT NULL,
    "buy_count" INTEGER NOT NULL,
    "sell_count" INTEGER NOT NULL,
    "volume" DECIMAL(78,0) NOT NULL,
    "unique_trader_count" INTEGER NOT NULL,
    "open_price" DECIMAL(78,0),
    "high_price" DECIMAL(78,0),
    "low_price" DECIMAL(78,0),
    "close_price" DECIMAL(78,0),
    CONSTRAINT "candles_pkey" PRIMARY KEY ("token_address", "interval", "bucket_start"),
    -- extra (not in schema.prisma): the intervals listed in the schema comment
    CONSTRAINT "candles_interval_check" CHECK ("interval" IN ('1m', '5m', '15m', '1h', '4h', '1d', '1w'))
);

CREATE TABLE "candle_traders" (
    "token_address" TEXT NOT NULL,
    "interval" TEXT NOT NULL,
    "bucket_start" BIGINT NOT NULL,
    "trader" TEXT NOT NULL,
    "bought" BOOLEAN NOT NULL DEFAULT false,
    "sold" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "candle_traders_pkey" PRIMARY KEY ("token_address", "interval", "bucket_start", "trader"),
    -- extra (not in schema.prisma): the intervals listed in the candles schema comment
    CONSTRAINT "candle_traders_interval_check" CHECK ("interval" IN ('1m', '5m', '15m', '1h', '4h', '1d', '1w'))
);

CREATE TABLE "creators" (
    "address" TEXT NOT NULL,
    "token_count" INTEGER NOT NULL DEFAULT 0,
    "volume" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "updated_block_number" BIGINT NOT NULL,
    CONSTRAINT "creators_pkey" PRIMARY KEY ("address")
);

CREATE TABLE "trending_snapshots" (
    "id" BIGSERIAL NOT NULL,
    "window_seconds" INTEGER NOT NULL,
    "as_of_block_number" BIGINT NOT NULL,
    "as_of_timestamp" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "trending_snapshots_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "trending_entries" (
    "snapshot_id" BIGINT NOT NULL,
    "rank" INTEGER NOT NULL,
    "token_address" TEXT NOT NULL,
    "window_volume" DECIMAL(78,0) NOT NULL,
    "window_trade_count" INTEGER NOT NULL,
    "window_unique_traders" INTEGER NOT NULL,
    CONSTRAINT "trending_entries_pkey" PRIMARY KEY ("snapshot_id", "rank"),
    CONSTRAINT "trending_entries_snapshot_id_fkey" FOREIGN KEY ("snapshot_id")
        REFERENCES "trending_snapshots" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "eth_usd_answers" (
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "round_id" DECIMAL(78,0) NOT NULL,
    "answer" DECIMAL(78,0) NOT NULL,
    "updated_at" BIGINT NOT NULL,
    CONSTRAINT "eth_usd_answers_pkey" PRIMARY KEY ("block_number", "log_index")
);

CREATE TABLE "metadata_drafts" (
    "id" TEXT NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "description" TEXT,
    "initial_supply" DECIMAL(78,0) NOT NULL,
    "website_url" TEXT,
    "x_url" TEXT,
    "telegram_url" TEXT,
    "discord_url" TEXT,
    "image_key" TEXT NOT NULL,
    "metadata_key" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "token_address" TEXT,
    "transaction_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finalized_at" TIMESTAMPTZ(3),
    CONSTRAINT "metadata_drafts_pkey" PRIMARY KEY ("id"),
    -- extra (not in schema.prisma): the statuses listed in the schema comment
    CONSTRAINT "metadata_drafts_status_check" CHECK ("status" IN ('draft', 'pending', 'finalized'))
);

CREATE UNIQUE INDEX "metadata_drafts_token_address_key" ON "metadata_drafts" ("token_address");

CREATE TABLE "excluded_addresses" (
    "address" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "excluded_addresses_pkey" PRIMARY KEY ("address", "kind"),
    -- extra (not in schema.prisma): the kinds listed in the schema comment
    CONSTRAINT "excluded_addresses_kind_check" CHECK ("kind" IN ('token', 'creator'))
);

-- Down Migration

DROP TABLE IF EXISTS "excluded_addresses";
DROP TABLE IF EXISTS "metadata_drafts";
DROP TABLE IF EXISTS "eth_usd_answers";
DROP TABLE IF EXISTS "trending_entries";
DROP TABLE IF EXISTS "trending_snapshots";
DROP TABLE IF EXISTS "creators";
DROP TABLE IF EXISTS "candle_traders";
DROP TABLE IF EXISTS "candles";
DROP TABLE IF EXISTS "token_traders";
DROP TABLE IF EXISTS "token_balances";
DROP TABLE IF EXISTS "trades";
DROP TABLE IF EXISTS "tokens";
DROP TABLE IF EXISTS "chain_events";
DROP TABLE IF EXISTS "blocks";
DROP TABLE IF EXISTS "indexer_checkpoints";
