-- The reorg journal records the whole block range of the write that made each change
-- (`block_number` = first block, `to_block` = last block): a reorg to ancestor A undoes every
-- write that touched a block above A, and the read models are then as of the block before the
-- first undone write. The fee manager a token was registered with at launch (TokenRegistered in
-- the launch transaction) decides which FeesDeposited logs of the token are genuine.

-- Up Migration

ALTER TABLE "reorg_journal" ADD COLUMN "to_block" BIGINT NOT NULL DEFAULT 0;
CREATE INDEX "reorg_journal_to_block_idx" ON "reorg_journal" ("to_block");

ALTER TABLE "tokens" ADD COLUMN "fee_manager_address" TEXT;

-- `tmi.journal_block` = first block of the write, `tmi.journal_to_block` = last block.
CREATE OR REPLACE FUNCTION "tmi_journal_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "reorg_journal" ("block_number", "to_block", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, current_setting('tmi.journal_to_block')::BIGINT,
                TG_TABLE_NAME, 'insert', to_jsonb(NEW));
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO "reorg_journal" ("block_number", "to_block", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, current_setting('tmi.journal_to_block')::BIGINT,
                TG_TABLE_NAME, 'update', to_jsonb(OLD));
    ELSE
        INSERT INTO "reorg_journal" ("block_number", "to_block", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, current_setting('tmi.journal_to_block')::BIGINT,
                TG_TABLE_NAME, 'delete', to_jsonb(OLD));
    END IF;
    RETURN NULL;
END
$$;

-- Down Migration

CREATE OR REPLACE FUNCTION "tmi_journal_row"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "reorg_journal" ("block_number", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, TG_TABLE_NAME, 'insert', to_jsonb(NEW));
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO "reorg_journal" ("block_number", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, TG_TABLE_NAME, 'update', to_jsonb(OLD));
    ELSE
        INSERT INTO "reorg_journal" ("block_number", "table_name", "operation", "row_image")
        VALUES (current_setting('tmi.journal_block')::BIGINT, TG_TABLE_NAME, 'delete', to_jsonb(OLD));
    END IF;
    RETURN NULL;
END
$$;
ALTER TABLE "tokens" DROP COLUMN "fee_manager_address";
DROP INDEX IF EXISTS "reorg_journal_to_block_idx";
ALTER TABLE "reorg_journal" DROP COLUMN "to_block";
