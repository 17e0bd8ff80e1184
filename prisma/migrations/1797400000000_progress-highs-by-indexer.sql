-- `token_progress_highs` is now written by the indexer in its range's read-model statement
-- (services/indexer/src/model/progress.ts, prepare/progress.ts: one upsert per range of the
-- range's highest progress per token, after the trades COPY, stored only when strictly higher),
-- whether or not anyone subscribes. The statement trigger on `trades` that kept it on every COPY
-- (a window and an upsert per trades statement, docs/benchmarks.md "`token.progress`: the
-- progress-high trigger on every trades insert") now fires only while an enabled webhook wants
-- `token.progress` (its `WHEN`: the `tmi_webhook_wanted` probe, evaluated once per statement).
--
-- While it fires, nothing changes: the trigger function of 1796800000000_ writes the
-- `token.progress` outbox rows against the highs of before the range and raises the highs itself
-- (the same rows the indexer's later upsert would write, which then finds nothing strictly higher).
-- The highs stay journaled (both writes run in the journaled transaction); the DELETE trigger
-- (`token.progress.removed` retractions) is unchanged. Other writers of `trades` (none but the
-- indexer in production) no longer move the highs while nobody subscribes. Never edit this file
-- once committed: add a new migration instead.

-- Up Migration

DROP TRIGGER "trades_progress_insert" ON "trades";
CREATE TRIGGER "trades_progress_insert" AFTER INSERT ON "trades" REFERENCING NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT WHEN ("tmi_webhook_wanted"('token.progress')) EXECUTE FUNCTION "tmi_webhook_progress"();

-- Down Migration

DROP TRIGGER IF EXISTS "trades_progress_insert" ON "trades";
CREATE TRIGGER "trades_progress_insert" AFTER INSERT ON "trades" REFERENCING NEW TABLE AS "tmi_new"
    FOR EACH STATEMENT EXECUTE FUNCTION "tmi_webhook_progress"();
