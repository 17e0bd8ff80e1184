-- `candle_traders` (distinct traders per bucket, with the sides they took) is kept only for the
-- intervals the API's window statistics read (1m, 5m, 15m). The unique trader counts of the longer
-- candles (1h, 4h, 1d, 1w) come from the last bucket in which each trader traded each token, kept
-- on its `token_traders` row: chain time only moves forward, so a trader is new in a bucket exactly
-- when their last bucket of that interval is an earlier one. Same counts, far fewer rows written.

-- Up Migration

ALTER TABLE "token_traders"
    ADD COLUMN "last_bucket_1h" BIGINT,
    ADD COLUMN "last_bucket_4h" BIGINT,
    ADD COLUMN "last_bucket_1d" BIGINT,
    ADD COLUMN "last_bucket_1w" BIGINT;

DELETE FROM "candle_traders" WHERE "interval" IN ('1h', '4h', '1d', '1w');

-- Down Migration

ALTER TABLE "token_traders"
    DROP COLUMN "last_bucket_1h",
    DROP COLUMN "last_bucket_4h",
    DROP COLUMN "last_bucket_1d",
    DROP COLUMN "last_bucket_1w";
