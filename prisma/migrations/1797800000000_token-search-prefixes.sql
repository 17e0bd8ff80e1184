-- Search in launch order, exact and bounded (docs/api.md "Search, bounded"): every prefix of up to
-- 8 characters of a token's normalized name (`search_name`), normalized symbol (`search_symbol`)
-- and lowercase address, once per token and prefix, keyed in launch order. A search page of the
-- newest order (the default, and the contract's only order) for a term of at most 8 characters
-- without `phase` or screener filters walks its prefix's rows backwards from the cursor and stops
-- after the page: exact whatever the number of matches (the prefix indexes of `tokens` hold at
-- most 1,000 matches a page may read; past that a sparse page was approximate). Longer terms and
-- the other orders keep the bounded reads of `tokens`.
--
-- Kept by statement triggers on `tokens` (every writer of launches: the indexer's range
-- statement, tests and benchmarks; names and symbols never change after the launch): an insert
-- adds the launches' prefixes, a delete (a reorg's undo) removes them, a rewritten name or symbol
-- (a row trigger on those columns only) replaces them. Journaled like every
-- indexer-written table. About 20 rows per token (written once, at its launch). Existing tokens
-- are filled in. Never edit this file once committed: add a new migration instead.

-- Up Migration

CREATE TABLE "token_search_prefixes" (
    "prefix" TEXT NOT NULL,
    "created_block_number" BIGINT NOT NULL,
    "created_log_index" INTEGER NOT NULL,
    "address" TEXT NOT NULL
);

CREATE TRIGGER "token_search_prefixes_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_search_prefixes" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- The distinct prefixes of 1 to 8 characters of a token's name, symbol and address.
CREATE FUNCTION "tmi_token_prefixes"("search_name" TEXT, "search_symbol" TEXT, "address" TEXT)
RETURNS SETOF TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT DISTINCT left(f.v, n.n)
      FROM (VALUES ("search_name"), ("search_symbol"), ("address")) AS f(v)
     CROSS JOIN generate_series(1, 8) AS n(n)
     WHERE n.n <= char_length(f.v)
$$;

CREATE FUNCTION "tmi_token_search_prefixes_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO "token_search_prefixes" ("prefix", "created_block_number", "created_log_index", "address")
        SELECT p, t."created_block_number", t."created_log_index", t."address"
          FROM "changed_tokens" t, "tmi_token_prefixes"(t."search_name", t."search_symbol", t."address") p
        ON CONFLICT DO NOTHING;
    ELSE
        DELETE FROM "token_search_prefixes" x
         USING "changed_tokens" t, "tmi_token_prefixes"(t."search_name", t."search_symbol", t."address") p
         WHERE x."prefix" = p AND x."created_block_number" = t."created_block_number"
           AND x."created_log_index" = t."created_log_index";
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "tokens_search_prefixes_insert" AFTER INSERT ON "tokens"
    REFERENCING NEW TABLE AS "changed_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "tmi_token_search_prefixes_sync"();
CREATE TRIGGER "tokens_search_prefixes_delete" AFTER DELETE ON "tokens"
    REFERENCING OLD TABLE AS "changed_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "tmi_token_search_prefixes_sync"();

-- A row whose name, symbol (or address, or launch position) is rewritten (never by the indexer:
-- names are read once at the launch; an operator's or a test's repair) takes its new prefixes.
-- `UPDATE OF` these columns with a `WHEN`: the indexer's per-range update of `tokens` sets none
-- of them, and a reorg's undo that restores a row unchanged in them does not fire it.
CREATE FUNCTION "tmi_token_search_prefixes_rewrite"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM "token_search_prefixes"
     WHERE "created_block_number" = OLD."created_block_number" AND "created_log_index" = OLD."created_log_index"
       AND "prefix" IN (SELECT "tmi_token_prefixes"(OLD."search_name", OLD."search_symbol", OLD."address"));
    INSERT INTO "token_search_prefixes" ("prefix", "created_block_number", "created_log_index", "address")
    SELECT p, NEW."created_block_number", NEW."created_log_index", NEW."address"
      FROM "tmi_token_prefixes"(NEW."search_name", NEW."search_symbol", NEW."address") p
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE TRIGGER "tokens_search_prefixes_rewrite"
    AFTER UPDATE OF "search_name", "search_symbol", "address", "created_block_number", "created_log_index" ON "tokens"
    FOR EACH ROW
    WHEN ((OLD."search_name", OLD."search_symbol", OLD."address", OLD."created_block_number", OLD."created_log_index")
          IS DISTINCT FROM
          (NEW."search_name", NEW."search_symbol", NEW."address", NEW."created_block_number", NEW."created_log_index"))
    EXECUTE FUNCTION "tmi_token_search_prefixes_rewrite"();

-- The tokens indexed so far (bulk loads that run without triggers call the same fill).
INSERT INTO "token_search_prefixes" ("prefix", "created_block_number", "created_log_index", "address")
SELECT p, t."created_block_number", t."created_log_index", t."address"
  FROM "tokens" t, "tmi_token_prefixes"(t."search_name", t."search_symbol", t."address") p;
-- The key after the fill (one index build instead of a row-by-row one).
ALTER TABLE "token_search_prefixes"
    ADD CONSTRAINT "token_search_prefixes_pkey" PRIMARY KEY ("prefix", "created_block_number", "created_log_index");

-- Down Migration

DROP TRIGGER IF EXISTS "tokens_search_prefixes_rewrite" ON "tokens";
DROP FUNCTION IF EXISTS "tmi_token_search_prefixes_rewrite"();
DROP TRIGGER IF EXISTS "tokens_search_prefixes_delete" ON "tokens";
DROP TRIGGER IF EXISTS "tokens_search_prefixes_insert" ON "tokens";
DROP FUNCTION IF EXISTS "tmi_token_search_prefixes_sync"();
DROP FUNCTION IF EXISTS "tmi_token_prefixes"(TEXT, TEXT, TEXT);
DROP TABLE IF EXISTS "token_search_prefixes";
