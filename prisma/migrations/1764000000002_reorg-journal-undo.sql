-- The one generic reorg undo: every journaled change of a write that touched a block above
-- `after_block` is undone in reverse order (an inserted row is deleted, an updated row gets its
-- prior image back, a deleted row is inserted again), whatever the table, by its primary key.
-- Journaling is off while undoing. Returns the number of changes undone; the undone journal
-- entries are removed. SQL-only (a function).

-- Up Migration

CREATE FUNCTION "tmi_journal_undo"("after_block" BIGINT) RETURNS INTEGER LANGUAGE plpgsql AS $$
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

-- Down Migration

DROP FUNCTION IF EXISTS "tmi_journal_undo"(BIGINT);
