-- `token.progress` webhooks (docs/api.md "Webhooks"): a token's curve progress crossing a
-- threshold of a subscription's `filters.progress_bps`, once per threshold in canonical history.
--
-- `token_progress_highs` keeps, per token, the highest curve progress (bps, the rule of
-- `curve.progress_bps` applied to the trade's `curve_sold_supply`) any indexed curve trade reached
-- and the trade that first reached it. It is kept by a statement-level trigger on `trades` for
-- every inserted curve trade whether or not anyone subscribes (so a subscription created later
-- sees the real history), and journaled like every read model: a reorg undo restores the high of
-- before the undone blocks.
--
-- A crossing of threshold T is a trade whose progress reaches T while every earlier trade of the
-- token (the high, and the statement's earlier trades) stayed below T: one outbox row
-- `token.progress` per (crossing trade, T), for the thresholds enabled subscriptions ask for,
-- subject `progress:<token>`. A reorg undo deletes the crossing trade: the DELETE trigger writes
-- `token.progress.removed` carrying the id of each live `token.progress` event of that trade, in
-- the undo's transaction; the restored high lets a re-crossing on the new chain deliver again.
--
-- The indexer inserts a range's new tokens before its trades (services/indexer/src/write/
-- batch-writer.ts): a trade's token row (its graduation threshold) is there when the trigger runs.
-- Trades of tokens not in `tokens` are ignored. Never edit this file once committed: add a new
-- migration instead.

-- Up Migration

CREATE TABLE "token_progress_highs" (
  "token_address" TEXT NOT NULL,
  "high_bps" INTEGER NOT NULL,
  "block_number" BIGINT NOT NULL,
  "log_index" INTEGER NOT NULL,
  CONSTRAINT "token_progress_highs_pkey" PRIMARY KEY ("token_address")
);

CREATE TRIGGER "token_progress_highs_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_progress_highs" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- `curve.progress_bps` of `sold` against `threshold` (the rule of @tmi/shared/market progressBps).
CREATE FUNCTION "tmi_progress_bps"("sold" NUMERIC, "threshold" NUMERIC) RETURNS INTEGER LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN "threshold" <= 0 THEN 0 ELSE GREATEST(0, LEAST(10000, div("sold" * 10000, "threshold")))::int END
$$;

-- The highs of the trades already indexed.
INSERT INTO "token_progress_highs" ("token_address", "high_bps", "block_number", "log_index")
SELECT DISTINCT ON (s."token_address") s."token_address", s.bps, s."block_number", s."log_index"
FROM (
  SELECT tr."token_address", tr."block_number", tr."log_index",
         "tmi_progress_bps"(tr."curve_sold_supply", t."graduation_threshold") AS bps
  FROM "trades" tr JOIN "tokens" t ON t."address" = tr."token_address"
  WHERE tr."source" = 'curve' AND tr."curve_sold_supply" IS NOT NULL
) s
WHERE s.bps > 0
ORDER BY s."token_address", s.bps DESC, s."block_number", s."log_index";

-- The thresholds (bps) enabled `token.progress` subscriptions ask for, ascending; NULL when none.
CREATE FUNCTION "tmi_webhook_progress_thresholds"() RETURNS INTEGER[] LANGUAGE sql STABLE AS $$
  SELECT array_agg(DISTINCT x.bps ORDER BY x.bps)
  FROM "webhooks" w
  CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(w."filters" -> 'progress_bps') = 'array'
                                                    THEN w."filters" -> 'progress_bps' ELSE '[]'::jsonb END) AS e(v)
  CROSS JOIN LATERAL (SELECT e.v::int AS bps) x
  WHERE w."enabled" AND 'token.progress' = ANY (w."events")
$$;

CREATE FUNCTION "tmi_webhook_progress"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    thresholds INTEGER[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF "tmi_webhook_wanted"('token.progress') THEN
            thresholds := "tmi_webhook_progress_thresholds"();
        END IF;
        WITH s AS (
            SELECT n."token_address", n."block_number", n."log_index", n."transaction_hash", n."block_timestamp",
                   n."curve_sold_supply", "tmi_progress_bps"(n."curve_sold_supply", t."graduation_threshold") AS bps, t AS token
            FROM "tmi_new" n JOIN "tokens" t ON t."address" = n."token_address"
            WHERE n."source" = 'curve' AND n."curve_sold_supply" IS NOT NULL
        ), c AS (
            SELECT s.*, GREATEST(coalesce(h."high_bps", 0), coalesce(max(s.bps) OVER (PARTITION BY s."token_address"
                     ORDER BY s."block_number", s."log_index" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS before_bps
            FROM s LEFT JOIN "token_progress_highs" h ON h."token_address" = s."token_address"
        ), events AS (
            INSERT INTO "webhook_outbox" ("type", "subject", "payload")
            SELECT 'token.progress', 'progress:' || c."token_address",
                   jsonb_build_object('token', "tmi_webhook_token"(c.token), 'threshold_bps', th.bps, 'progress_bps', c.bps,
                     'sold_supply', c."curve_sold_supply"::text, 'block_number', c."block_number", 'block_hash', e."block_hash",
                     'log_index', c."log_index", 'transaction_hash', c."transaction_hash", 'block_timestamp', c."block_timestamp")
            FROM c
            CROSS JOIN unnest(thresholds) AS th(bps)
            LEFT JOIN "chain_events" e ON e."block_number" = c."block_number" AND e."log_index" = c."log_index"
            WHERE th.bps > c.before_bps AND th.bps <= c.bps
            ORDER BY c."block_number", c."log_index", th.bps
        )
        INSERT INTO "token_progress_highs" ("token_address", "high_bps", "block_number", "log_index")
        SELECT DISTINCT ON (s."token_address") s."token_address", s.bps, s."block_number", s."log_index"
        FROM s WHERE s.bps > 0
        ORDER BY s."token_address", s.bps DESC, s."block_number", s."log_index"
        ON CONFLICT ("token_address") DO UPDATE SET "high_bps" = EXCLUDED."high_bps",
            "block_number" = EXCLUDED."block_number", "log_index" = EXCLUDED."log_index"
        WHERE EXCLUDED."high_bps" > "token_progress_highs"."high_bps";
    ELSE
        INSERT INTO "webhook_outbox" ("type", "subject", "retracts", "payload")
        SELECT 'token.progress.removed', w."subject", w."id", w."payload" || jsonb_build_object('retracts', 'evt_' || w."id")
        FROM "tmi_old" o
        JOIN "webhook_outbox" w ON w."subject" = 'progress:' || o."token_address" AND w."type" = 'token.progress'
          AND (w."payload" ->> 'block_number')::bigint = o."block_number" AND (w."payload" ->> 'log_index')::int = o."log_index"
        WHERE NOT EXISTS (SELECT 1 FROM "webhook_outbox" r WHERE r."subject" = w."subject" AND r."retracts" = w."id")
        ORDER BY w."id" DESC;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "trades_progress_insert" AFTER INSERT ON "trades" REFERENCING NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_progress"();
CREATE TRIGGER "trades_progress_delete" AFTER DELETE ON "trades" REFERENCING OLD TABLE AS "tmi_old"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_progress"();

-- Down Migration

DROP TRIGGER IF EXISTS "trades_progress_delete" ON "trades";
DROP TRIGGER IF EXISTS "trades_progress_insert" ON "trades";
DROP FUNCTION IF EXISTS "tmi_webhook_progress"();
DROP FUNCTION IF EXISTS "tmi_webhook_progress_thresholds"();
DROP FUNCTION IF EXISTS "tmi_progress_bps"(NUMERIC, NUMERIC);
DROP TABLE IF EXISTS "token_progress_highs";
