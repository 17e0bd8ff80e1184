-- Signed webhooks (docs/api.md "Webhooks"): subscriptions owned by an API key, a durable outbox
-- of events written by statement-level triggers in the writer's own transaction (the indexer's
-- for trades and tokens, metadata-api's for finalized metadata), and the delivery attempts of the
-- dispatcher. Each trigger costs one INSERT ... SELECT over the statement's transition table (not
-- one per row), and nothing at all while no enabled subscription asks for the event type. A
-- reorg undo deletes the rows: the DELETE triggers write `trade.removed` / `token.removed`
-- carrying the id of the outbox row they retract, in the same transaction as the undo, so a
-- committed trade event is never left without its retraction. Never edit this file once
-- committed: add a new migration instead.

-- Up Migration

CREATE TABLE "webhooks" (
  "id" TEXT NOT NULL,
  "api_key_id" TEXT NOT NULL,
  "url" TEXT NOT NULL,
  "events" TEXT[] NOT NULL,
  "filters" JSONB NOT NULL DEFAULT '{}',
  "secret" TEXT NOT NULL,
  "enabled" BOOLEAN NOT NULL DEFAULT true,
  "disabled_reason" TEXT,
  "failing_since" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "webhooks_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys" ("id") ON DELETE CASCADE
);
CREATE INDEX "webhooks_api_key_id_created_at_idx" ON "webhooks" ("api_key_id", "created_at");

CREATE TABLE "webhook_outbox" (
  "id" BIGSERIAL NOT NULL,
  "type" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "retracts" BIGINT,
  "payload" JSONB NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "dispatched" BOOLEAN NOT NULL DEFAULT false,
  CONSTRAINT "webhook_outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "webhook_outbox_pending_idx" ON "webhook_outbox" ("id") WHERE NOT "dispatched";
COMMENT ON INDEX "webhook_outbox_pending_idx" IS 'sql-only: the dispatcher claims the events not fanned out yet, in id order';
CREATE INDEX "webhook_outbox_subject_id_idx" ON "webhook_outbox" ("subject", "id");
CREATE INDEX "webhook_outbox_created_at_idx" ON "webhook_outbox" ("created_at") WHERE "dispatched";
COMMENT ON INDEX "webhook_outbox_created_at_idx" IS 'sql-only: retention of dispatched events';

CREATE TABLE "webhook_deliveries" (
  "id" BIGSERIAL NOT NULL,
  "webhook_id" TEXT NOT NULL,
  "event_id" BIGINT NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'pending',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_status" INTEGER,
  "last_error" TEXT,
  "next_attempt_at" TIMESTAMPTZ(3),
  "lease_until" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "delivered_at" TIMESTAMPTZ(3),
  CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks" ("id") ON DELETE CASCADE,
  CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "webhook_outbox" ("id") ON DELETE CASCADE,
  -- extra (not in schema.prisma): the statuses listed in the schema comment
  CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'delivered', 'failed'))
);
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_key" ON "webhook_deliveries" ("webhook_id", "event_id");
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries" ("event_id");
CREATE INDEX "webhook_deliveries_page_idx" ON "webhook_deliveries" ("webhook_id", "id" DESC);
COMMENT ON INDEX "webhook_deliveries_page_idx" IS 'sql-only: GET /api/v1/webhooks/{id}/deliveries (newest first)';
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'pending';
COMMENT ON INDEX "webhook_deliveries_due_idx" IS 'sql-only: the dispatcher re-enqueues due deliveries (after a Redis wipe)';

-- True when an enabled subscription asks for `event_type` (the triggers write nothing otherwise).
CREATE FUNCTION "tmi_webhook_wanted"("event_type" TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM "webhooks" WHERE "enabled" AND "event_type" = ANY ("events"))
$$;

-- trades: `trade` per inserted row (block hash from the row's own chain_events log, written
-- earlier in the same transaction), `trade.removed` per deleted row that had a `trade` event.
CREATE FUNCTION "tmi_webhook_trades"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT "tmi_webhook_wanted"('trade') THEN RETURN NULL; END IF;
        INSERT INTO "webhook_outbox" ("type", "subject", "payload")
        SELECT 'trade', 'trade:' || n."block_number" || ':' || n."log_index",
               jsonb_build_object('token_address', n."token_address", 'trader', n."trader", 'side', n."side",
                 'token_amount', n."token_amount"::text, 'reserve_amount', n."reserve_amount"::text,
                 'curve_value', n."curve_value"::text, 'protocol_fee', n."protocol_fee"::text,
                 'creator_fee', n."creator_fee"::text, 'source', n."source", 'block_number', n."block_number",
                 'transaction_index', n."transaction_index", 'transaction_hash', n."transaction_hash",
                 'log_index', n."log_index", 'block_timestamp', n."block_timestamp", 'block_hash', e."block_hash")
        FROM "tmi_new" n
        LEFT JOIN "chain_events" e ON e."block_number" = n."block_number" AND e."log_index" = n."log_index"
        ORDER BY n."block_number", n."log_index";
    ELSE
        INSERT INTO "webhook_outbox" ("type", "subject", "retracts", "payload")
        SELECT 'trade.removed', d.subject, r.retracts,
               r.trade || jsonb_build_object('retracts', 'evt_' || r.retracts)
        FROM (
            SELECT 'trade:' || o."block_number" || ':' || o."log_index" AS subject,
                   (SELECT max(w."id") FROM "webhook_outbox" w
                    WHERE w."subject" = 'trade:' || o."block_number" || ':' || o."log_index" AND w."type" IN ('trade', 'trade.removed')) AS last_id,
                   o."block_number", o."log_index"
            FROM "tmi_old" o
        ) d
        JOIN LATERAL (SELECT w."id" AS retracts, w."payload" AS trade FROM "webhook_outbox" w
                      WHERE w."id" = d.last_id AND w."type" = 'trade') r ON true
        ORDER BY d."block_number" DESC, d."log_index" DESC;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "trades_webhooks_insert" AFTER INSERT ON "trades" REFERENCING NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_trades"();
CREATE TRIGGER "trades_webhooks_delete" AFTER DELETE ON "trades" REFERENCING OLD TABLE AS "tmi_old"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_trades"();

-- The token object of an event: identity, curve and pool, launch position.
CREATE FUNCTION "tmi_webhook_token"(t "tokens") RETURNS JSONB LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('address', t."address", 'creator', t."creator", 'name', t."name", 'symbol', t."symbol",
    'initial_supply', t."initial_supply"::text, 'curve_address', t."curve_address", 'pool_address', t."pool_address",
    'lifecycle', t."lifecycle", 'graduation_threshold', t."graduation_threshold"::text,
    'current_price', t."current_price"::text, 'created_block_number', t."created_block_number",
    'created_transaction_hash', t."created_transaction_hash", 'created_at', t."created_at",
    'graduated_block_number', t."graduated_block_number", 'graduated_transaction_hash', t."graduated_transaction_hash")
$$;

-- tokens: `token.launched` per inserted row, `token.graduated` when an update sets the
-- graduation, `token.removed` per deleted row that had a `token.launched` event.
CREATE FUNCTION "tmi_webhook_tokens"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT "tmi_webhook_wanted"('token.launched') THEN RETURN NULL; END IF;
        INSERT INTO "webhook_outbox" ("type", "subject", "payload")
        SELECT 'token.launched', 'token:' || n."address",
               jsonb_build_object('token', "tmi_webhook_token"(n), 'block_number', n."created_block_number",
                 'block_hash', e."block_hash", 'log_index', n."created_log_index")
        FROM "tmi_new" n
        LEFT JOIN "chain_events" e ON e."block_number" = n."created_block_number" AND e."log_index" = n."created_log_index"
        ORDER BY n."created_block_number", n."created_log_index";
    ELSIF TG_OP = 'UPDATE' THEN
        IF NOT "tmi_webhook_wanted"('token.graduated') THEN RETURN NULL; END IF;
        INSERT INTO "webhook_outbox" ("type", "subject", "payload")
        SELECT 'token.graduated', 'graduation:' || n."address",
               jsonb_build_object('token', "tmi_webhook_token"(n), 'block_number', n."graduated_block_number",
                 'block_hash', e."block_hash", 'log_index', n."graduated_log_index")
        FROM "tmi_new" n
        JOIN "tmi_old" o ON o."address" = n."address"
        LEFT JOIN "chain_events" e ON e."block_number" = n."graduated_block_number" AND e."log_index" = n."graduated_log_index"
        WHERE o."graduated_block_number" IS NULL AND n."graduated_block_number" IS NOT NULL
        ORDER BY n."graduated_block_number", n."graduated_log_index";
    ELSE
        INSERT INTO "webhook_outbox" ("type", "subject", "retracts", "payload")
        SELECT 'token.removed', 'token:' || o."address", w."id",
               jsonb_build_object('token', "tmi_webhook_token"(o), 'retracts', 'evt_' || w."id")
        FROM "tmi_old" o
        JOIN LATERAL (SELECT x."id", x."type" FROM "webhook_outbox" x
                      WHERE x."subject" = 'token:' || o."address" ORDER BY x."id" DESC LIMIT 1) w ON w."type" = 'token.launched';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "tokens_webhooks_insert" AFTER INSERT ON "tokens" REFERENCING NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_tokens"();
CREATE TRIGGER "tokens_webhooks_update" AFTER UPDATE ON "tokens" REFERENCING OLD TABLE AS "tmi_old" NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_tokens"();
CREATE TRIGGER "tokens_webhooks_delete" AFTER DELETE ON "tokens" REFERENCING OLD TABLE AS "tmi_old"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_tokens"();

-- metadata_drafts: `metadata.finalized` when a draft becomes finalized (bound to its token).
CREATE FUNCTION "tmi_webhook_metadata"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT "tmi_webhook_wanted"('metadata.finalized') THEN RETURN NULL; END IF;
    INSERT INTO "webhook_outbox" ("type", "subject", "payload")
    SELECT 'metadata.finalized', 'metadata:' || n."token_address",
           jsonb_build_object('token_address', n."token_address", 'name', n."name", 'symbol', n."symbol",
             'description', n."description", 'website_url', n."website_url", 'x_url', n."x_url",
             'telegram_url', n."telegram_url", 'discord_url', n."discord_url", 'verified', n."verified",
             'transaction_hash', n."transaction_hash", 'finalized_at', n."finalized_at")
    FROM "tmi_new" n
    JOIN "tmi_old" o ON o."id" = n."id"
    WHERE n."status" = 'finalized' AND o."status" <> 'finalized';
    RETURN NULL;
END
$$;

CREATE TRIGGER "metadata_drafts_webhooks_update" AFTER UPDATE ON "metadata_drafts" REFERENCING OLD TABLE AS "tmi_old" NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_metadata"();

-- Down Migration

DROP TRIGGER IF EXISTS "metadata_drafts_webhooks_update" ON "metadata_drafts";
DROP TRIGGER IF EXISTS "tokens_webhooks_delete" ON "tokens";
DROP TRIGGER IF EXISTS "tokens_webhooks_update" ON "tokens";
DROP TRIGGER IF EXISTS "tokens_webhooks_insert" ON "tokens";
DROP TRIGGER IF EXISTS "trades_webhooks_delete" ON "trades";
DROP TRIGGER IF EXISTS "trades_webhooks_insert" ON "trades";
DROP FUNCTION IF EXISTS "tmi_webhook_metadata"();
DROP FUNCTION IF EXISTS "tmi_webhook_tokens"();
DROP FUNCTION IF EXISTS "tmi_webhook_token"("tokens");
DROP FUNCTION IF EXISTS "tmi_webhook_trades"();
DROP FUNCTION IF EXISTS "tmi_webhook_wanted"(TEXT);
DROP TABLE IF EXISTS "webhook_deliveries";
DROP TABLE IF EXISTS "webhook_outbox";
DROP TABLE IF EXISTS "webhooks";
