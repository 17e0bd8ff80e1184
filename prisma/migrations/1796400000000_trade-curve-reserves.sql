-- Each curve trade keeps the curve's state after it: `curve_sold_supply` (soldSupply) and
-- `curve_reserve` (reserveCoordinate), as the indexer moves them (a buy adds token_amount and
-- curve_value, a sell takes them back). The DEX Screener adapter's `events` reads a range's
-- reserves from these columns instead of summing every earlier trade of the token per request.
-- Pool trades keep NULL. Existing rows are filled by the same running sums. Never edit this file
-- once committed: add a new migration instead.

-- Up Migration

ALTER TABLE "trades" ADD COLUMN "curve_sold_supply" NUMERIC(78,0);
ALTER TABLE "trades" ADD COLUMN "curve_reserve" NUMERIC(78,0);
UPDATE "trades" t SET "curve_sold_supply" = s.sold, "curve_reserve" = s.reserve
FROM (
  SELECT "block_number", "log_index",
         sum(CASE WHEN "side" = 'buy' THEN "token_amount" ELSE -"token_amount" END)
           OVER w AS sold,
         sum(CASE WHEN "side" = 'buy' THEN "curve_value" ELSE -"curve_value" END)
           OVER w AS reserve
  FROM "trades" WHERE "source" = 'curve'
  WINDOW w AS (PARTITION BY "token_address" ORDER BY "block_number", "log_index" ROWS UNBOUNDED PRECEDING)
) s
WHERE t."block_number" = s."block_number" AND t."log_index" = s."log_index";

-- Down Migration

ALTER TABLE "trades" DROP COLUMN IF EXISTS "curve_reserve";
ALTER TABLE "trades" DROP COLUMN IF EXISTS "curve_sold_supply";
