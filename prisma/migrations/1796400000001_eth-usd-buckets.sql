-- ETH/USD kept per candle bucket (docs/api.md "Chart by time and in USD"): for every candle
-- interval, one row per bucket that holds a positive answer of the feed (by the round's
-- `updated_at`), the latest of them (by updated_at, then block and log index). The answer in
-- force at a bucket's end is the row of the latest bucket at or before it, so a USD chart reads
-- its range of this table (one primary-key range scan) instead of probing `eth_usd_answers` once
-- per bucket. Kept by statement-level triggers on `eth_usd_answers` (every writer of answers:
-- the indexer's range statement, its feed start, tests and benchmarks): an insert upserts the
-- buckets of the new answers, a delete (a reorg's undo, an operator) recomputes the buckets of the
-- removed ones from the answers left; journaled like every indexer-written table. Buckets as the candles': weeks from Monday 1970-01-05 (345,600 s), every
-- other interval divides the day. Existing answers are filled in. Never edit this file once
-- committed: add a new migration instead.

-- Up Migration

CREATE TABLE "eth_usd_buckets" (
    "interval" TEXT NOT NULL,
    "bucket_start" BIGINT NOT NULL,
    "answer" NUMERIC(78,0) NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "block_number" BIGINT NOT NULL,
    "log_index" INTEGER NOT NULL,

    CONSTRAINT "eth_usd_buckets_pkey" PRIMARY KEY ("interval", "bucket_start")
);

CREATE TRIGGER "eth_usd_buckets_journal" AFTER INSERT OR UPDATE OR DELETE ON "eth_usd_buckets" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- The candle bucket of Unix time `ts` for an interval of `size` seconds (`bucketStart` of
-- @tmi/shared/market).
CREATE FUNCTION "tmi_bucket_start"("ts" BIGINT, "size" BIGINT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN "size" = 604800 THEN floor(("ts" - 345600)::numeric / 604800)::int8 * 604800 + 345600
                ELSE floor("ts"::numeric / "size")::int8 * "size" END
$$;

-- Per interval and bucket, the latest positive answer of `answers` (one row per bucket).
CREATE VIEW "eth_usd_answer_buckets" AS
SELECT DISTINCT ON (iv.name, "tmi_bucket_start"(a."updated_at", iv.size))
       iv.name AS "interval", "tmi_bucket_start"(a."updated_at", iv.size) AS "bucket_start",
       a."answer", a."updated_at", a."block_number", a."log_index"
  FROM "eth_usd_answers" a
 CROSS JOIN (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)) AS iv(name, size)
 WHERE a."answer" > 0
 ORDER BY iv.name, "tmi_bucket_start"(a."updated_at", iv.size), a."updated_at" DESC, a."block_number" DESC, a."log_index" DESC;

-- Inserted answers: each bucket they fall in takes the latest of its row and them. Deleted answers
-- (a reorg's undo, an operator): the buckets they fell in are recomputed from the answers left.
CREATE FUNCTION "tmi_eth_usd_buckets_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "eth_usd_buckets" ("interval", "bucket_start", "answer", "updated_at", "block_number", "log_index")
        SELECT DISTINCT ON (iv.name, "tmi_bucket_start"(n."updated_at", iv.size))
               iv.name, "tmi_bucket_start"(n."updated_at", iv.size), n."answer", n."updated_at", n."block_number", n."log_index"
          FROM "changed_answers" n
         CROSS JOIN (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)) AS iv(name, size)
         WHERE n."answer" > 0
         ORDER BY iv.name, "tmi_bucket_start"(n."updated_at", iv.size), n."updated_at" DESC, n."block_number" DESC, n."log_index" DESC
        ON CONFLICT ("interval", "bucket_start") DO UPDATE
           SET "answer" = excluded."answer", "updated_at" = excluded."updated_at",
               "block_number" = excluded."block_number", "log_index" = excluded."log_index"
         WHERE (excluded."updated_at", excluded."block_number", excluded."log_index")
             > ("eth_usd_buckets"."updated_at", "eth_usd_buckets"."block_number", "eth_usd_buckets"."log_index");
    ELSE
        -- The buckets left without a positive answer lose their row ...
        DELETE FROM "eth_usd_buckets" b
         USING (SELECT DISTINCT iv.name, iv.size, "tmi_bucket_start"(o."updated_at", iv.size) AS "bucket_start"
                  FROM "changed_answers" o
                 CROSS JOIN (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)) AS iv(name, size)) t
         WHERE b."interval" = t.name AND b."bucket_start" = t."bucket_start"
           AND NOT EXISTS (SELECT 1 FROM "eth_usd_answers" a WHERE a."answer" > 0
                            AND a."updated_at" >= t."bucket_start" AND a."updated_at" < t."bucket_start" + t.size);
        -- ... the others take the latest answer left in them.
        INSERT INTO "eth_usd_buckets" ("interval", "bucket_start", "answer", "updated_at", "block_number", "log_index")
        SELECT t.name, t."bucket_start", x."answer", x."updated_at", x."block_number", x."log_index"
          FROM (SELECT DISTINCT iv.name, iv.size, "tmi_bucket_start"(o."updated_at", iv.size) AS "bucket_start"
                  FROM "changed_answers" o
                 CROSS JOIN (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)) AS iv(name, size)) t
          JOIN LATERAL (SELECT a."answer", a."updated_at", a."block_number", a."log_index" FROM "eth_usd_answers" a
                         WHERE a."answer" > 0 AND a."updated_at" >= t."bucket_start" AND a."updated_at" < t."bucket_start" + t.size
                         ORDER BY a."updated_at" DESC, a."block_number" DESC, a."log_index" DESC LIMIT 1) x ON true
        ON CONFLICT ("interval", "bucket_start") DO UPDATE
           SET "answer" = excluded."answer", "updated_at" = excluded."updated_at",
               "block_number" = excluded."block_number", "log_index" = excluded."log_index";
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "eth_usd_answers_buckets_insert" AFTER INSERT ON "eth_usd_answers"
    REFERENCING NEW TABLE AS "changed_answers" FOR EACH STATEMENT EXECUTE FUNCTION "tmi_eth_usd_buckets_sync"();
CREATE TRIGGER "eth_usd_answers_buckets_delete" AFTER DELETE ON "eth_usd_answers"
    REFERENCING OLD TABLE AS "changed_answers" FOR EACH STATEMENT EXECUTE FUNCTION "tmi_eth_usd_buckets_sync"();

INSERT INTO "eth_usd_buckets" SELECT * FROM "eth_usd_answer_buckets";
DROP VIEW "eth_usd_answer_buckets";

-- Down Migration

DROP TRIGGER IF EXISTS "eth_usd_answers_buckets_delete" ON "eth_usd_answers";
DROP TRIGGER IF EXISTS "eth_usd_answers_buckets_insert" ON "eth_usd_answers";
DROP FUNCTION IF EXISTS "tmi_eth_usd_buckets_sync"();
DROP FUNCTION IF EXISTS "tmi_bucket_start"(BIGINT, BIGINT);
DROP TABLE IF EXISTS "eth_usd_buckets";
