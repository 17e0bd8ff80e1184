-- Candles gain the volume of each side (docs/api.md "Charts" and the token detail's window
-- `stats`): `buy_volume` and `sell_volume` are the volume rule (Σ `curve_value`) over the bucket's
-- buys and sells, so `buy_volume + sell_volume = volume`. Existing buckets are filled from
-- `trades` with the buckets' own alignment (weeks from Monday 1970-01-05, 345,600 s; every other
-- interval divides the day). Never edit this file once committed: add a new migration instead.

-- Up Migration

ALTER TABLE "candles" ADD COLUMN "buy_volume" NUMERIC(78,0) NOT NULL DEFAULT 0;
ALTER TABLE "candles" ADD COLUMN "sell_volume" NUMERIC(78,0) NOT NULL DEFAULT 0;
UPDATE "candles" c SET "buy_volume" = s.bv, "sell_volume" = s.sv
FROM (
  SELECT r."token_address", iv.name AS interval,
         CASE WHEN iv.size = 604800 THEN floor((r."block_timestamp" - 345600)::numeric / 604800)::int8 * 604800 + 345600
              ELSE floor(r."block_timestamp"::numeric / iv.size)::int8 * iv.size END AS bucket_start,
         coalesce(sum(r."curve_value") FILTER (WHERE r."side" = 'buy'), 0) AS bv,
         coalesce(sum(r."curve_value") FILTER (WHERE r."side" = 'sell'), 0) AS sv
  FROM "trades" r
  CROSS JOIN (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800)) AS iv(name, size)
  GROUP BY 1, 2, 3
) s
WHERE c."token_address" = s."token_address" AND c."interval" = s.interval AND c."bucket_start" = s.bucket_start;

-- Down Migration

ALTER TABLE "candles" DROP COLUMN IF EXISTS "sell_volume";
ALTER TABLE "candles" DROP COLUMN IF EXISTS "buy_volume";
