-- Holder count over time (issue 28 item 3; docs/api.md "GET /api/v1/tokens/{address}/holders/history"):
-- `holder_counts` keeps, per token and interval (1h, 4h, 1d) and UTC bucket in which the token's
-- holders changed, the number of holders after the last `Transfer` of the bucket (the holder rule of
-- `token_balances`). A bucket without a row has the count of the latest row before it. Written by the
-- indexer from each range's per-hour balance changes; journaled like every read model.

-- Up Migration

CREATE TABLE "holder_counts" (
    "token_address" TEXT NOT NULL,
    "interval" TEXT NOT NULL,
    "bucket_start" BIGINT NOT NULL,
    "holder_count" INTEGER NOT NULL,

    CONSTRAINT "holder_counts_pkey" PRIMARY KEY ("token_address", "interval", "bucket_start")
);

CREATE TRIGGER "holder_counts_journal" AFTER INSERT OR UPDATE OR DELETE ON "holder_counts" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- Down Migration

DROP TABLE IF EXISTS "holder_counts";
