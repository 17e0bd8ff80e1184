-- The reorg undo (`tmi_journal_undo`, migration `reorg-journal-undo`) writes a journaled row image
-- back with every column of its table: `UPDATE … SET <every column>` and `INSERT … SELECT *`.
-- PostgreSQL refuses any value, even NULL, for a generated column, so a table with one
-- (`tokens.address_tie`, migration `tokens-address-tie-column`) could not be undone. The undo now
-- leaves the generated columns out of both (PostgreSQL computes them again from the restored
-- columns); the row images keep them, and images journaled before a column existed lack it, which
-- is the same. Otherwise unchanged. Never edit this file once committed: add a new migration instead.

-- Up Migration

CREATE OR REPLACE FUNCTION "tmi_journal_undo"("after_block" BIGINT) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
    rel REGCLASS;
    cond TEXT;
    cols TEXT;
    n INTEGER := 0;
BEGIN
    PERFORM set_config('tmi.journal_block', '', true);
    FOR r IN
        SELECT "table_name", "operation", "row_image" FROM "reorg_journal"
        WHERE "to_block" > "after_block" ORDER BY "id" DESC
    LOOP
        rel := format('public.%I', r."table_name")::regclass;
        SELECT string_agg(format('t.%I IS NOT DISTINCT FROM s.%I', a.attname, a.attname), ' AND ')
          INTO cond
          FROM pg_index i
          CROSS JOIN LATERAL unnest(i.indkey) AS k(attnum)
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
          WHERE i.indrelid = rel AND i.indisprimary;
        IF r."operation" = 'insert' THEN
            EXECUTE format('DELETE FROM %s t USING jsonb_populate_record(NULL::%s, $1) s WHERE %s', rel, rel, cond)
              USING r."row_image";
        ELSIF r."operation" = 'update' THEN
            SELECT string_agg(format('%I = s.%I', a.attname, a.attname), ', ')
              INTO cols
              FROM pg_attribute a
              WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
            EXECUTE format('UPDATE %s t SET %s FROM jsonb_populate_record(NULL::%s, $1) s WHERE %s', rel, cols, rel, cond)
              USING r."row_image";
        ELSE
            SELECT string_agg(format('%I', a.attname), ', ' ORDER BY a.attnum)
              INTO cols
              FROM pg_attribute a
              WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
            EXECUTE format('INSERT INTO %s (%s) SELECT %s FROM jsonb_populate_record(NULL::%s, $1)', rel, cols, cols, rel)
              USING r."row_image";
        END IF;
        n := n + 1;
    END LOOP;
    DELETE FROM "reorg_journal" WHERE "to_block" > "after_block";
    RETURN n;
END
$$;

-- Down Migration

CREATE OR REPLACE FUNCTION "tmi_journal_undo"("after_block" BIGINT) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
    rel REGCLASS;
    cond TEXT;
    cols TEXT;
    n INTEGER := 0;
BEGIN
    PERFORM set_config('tmi.journal_block', '', true);
    FOR r IN
        SELECT "table_name", "operation", "row_image" FROM "reorg_journal"
        WHERE "to_block" > "after_block" ORDER BY "id" DESC
    LOOP
        rel := format('public.%I', r."table_name")::regclass;
        SELECT string_agg(format('t.%I IS NOT DISTINCT FROM s.%I', a.attname, a.attname), ' AND ')
          INTO cond
          FROM pg_index i
          CROSS JOIN LATERAL unnest(i.indkey) AS k(attnum)
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
          WHERE i.indrelid = rel AND i.indisprimary;
        IF r."operation" = 'insert' THEN
            EXECUTE format('DELETE FROM %s t USING jsonb_populate_record(NULL::%s, $1) s WHERE %s', rel, rel, cond)
              USING r."row_image";
        ELSIF r."operation" = 'update' THEN
            SELECT string_agg(format('%I = s.%I', a.attname, a.attname), ', ')
              INTO cols
              FROM pg_attribute a
              WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped;
            EXECUTE format('UPDATE %s t SET %s FROM jsonb_populate_record(NULL::%s, $1) s WHERE %s', rel, cols, rel, cond)
              USING r."row_image";
        ELSE
            EXECUTE format('INSERT INTO %s SELECT * FROM jsonb_populate_record(NULL::%s, $1)', rel, rel)
              USING r."row_image";
        END IF;
        n := n + 1;
    END LOOP;
    DELETE FROM "reorg_journal" WHERE "to_block" > "after_block";
    RETURN n;
END
$$;
