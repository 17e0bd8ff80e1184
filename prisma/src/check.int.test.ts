import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, testPostgresUrl } from "@tmi/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { checkSchemaDrift, SCHEMA_PATH, schemaShapeFromPrisma } from "./check.js";
import { compareSchemas, readDatabaseSchema } from "./drift.js";
import { MIGRATION_CHECKSUMS_TABLE, MIGRATIONS_TABLE } from "./migrate.js";

const expected = () => schemaShapeFromPrisma(readFileSync(SCHEMA_PATH, "utf8"));

describe("checkSchemaDrift", () => {
  it("default", async () => {
    const report = await checkSchemaDrift({ databaseUrl: testPostgresUrl() });
    expect(report.differences).toEqual([]);
    expect(report.scratchDatabase).toMatch(/^tmi_test_/);
    // Not vacuous: the comparison covers the whole schema.
    const shape = expected();
    expect(shape.size).toBe(35); // api_keys the 19th; eth_usd_buckets, token_cohorts, token_risk, holder_counts the 20th to 23rd; webhooks, webhook_outbox, webhook_deliveries the 24th to 26th; token_fees, token_asset_fees, creator_lp_fees (fee economy) the 27th to 29th; reward_distributions, reward_claims, reward_trees, reward_tree_leaves the 30th to 33rd; token_progress_highs (token.progress webhooks) the 34th; token_search_prefixes (search in launch order) the 35th
    expect(shape.get("tokens")?.columns.size).toBe(55); // address_tie (generated) the 55th
    // tokens_holders_idx is two columns (holder_count, address_tie); the other value-sort indexes
    // are sql-only (their value is an expression).
    expect([...(shape.get("tokens")?.indexes.keys() ?? [])].sort()).toEqual([
      "tokens_address_prefix_idx",
      "tokens_creator_newest_idx",
      "tokens_curve_address_key",
      "tokens_holders_idx",
      "tokens_lp_fee_vault_idx",
      "tokens_newest_idx",
      "tokens_pkey",
      "tokens_pool_address_key",
      "tokens_search_name_idx",
      "tokens_search_symbol_idx",
    ]);
  });

  it("behavior: a schema.prisma that differs from the migrations is reported", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tmi-db-check-"));
    try {
      const changed = readFileSync(SCHEMA_PATH, "utf8")
        .replace("  reason    String\n", "  reason    String\n  note      String?\n")
        .replace(
          '@@index([blockTimestamp], map: "trades_block_timestamp_idx")',
          '@@index([blockTimestamp(sort: Desc)], map: "trades_block_timestamp_idx")',
        );
      const path = join(dir, "schema.prisma");
      writeFileSync(path, changed);
      const report = await checkSchemaDrift({ databaseUrl: testPostgresUrl(), schemaPath: path });
      expect(report.differences).toEqual([
        "column excluded_addresses.note: missing in the database",
        "index trades_block_timestamp_idx on trades: columns (block_timestamp), schema.prisma (block_timestamp DESC)",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("readDatabaseSchema + compareSchemas", () => {
  it("behavior: differences made in a real database are reported, CHECK constraints and sql-only objects allowed", async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      expect(
        compareSchemas(
          expected(),
          await readDatabaseSchema(client, { ignoreTables: [MIGRATIONS_TABLE, MIGRATION_CHECKSUMS_TABLE] }),
        ),
      ).toEqual([]);
      await client.query(`
        ALTER TABLE trades ALTER COLUMN price TYPE text;
        DROP INDEX tokens_newest_idx;
        ALTER TABLE tokens ADD COLUMN extra integer;
        ALTER TABLE tokens ALTER COLUMN lifecycle DROP DEFAULT;
        ALTER TABLE candles ALTER COLUMN volume DROP NOT NULL;
        DROP INDEX tokens_search_name_idx;
        CREATE INDEX tokens_search_name_idx ON tokens (search_name);
        ALTER TABLE trending_entries DROP CONSTRAINT trending_entries_snapshot_id_fkey;
        ALTER TABLE trending_entries ADD CONSTRAINT trending_entries_snapshot_id_fkey FOREIGN KEY (snapshot_id)
          REFERENCES trending_snapshots (id) ON DELETE RESTRICT ON UPDATE CASCADE;
        CREATE INDEX trades_trader_idx ON trades (trader);
        CREATE INDEX trades_partial_idx ON trades (trader) WHERE side = 'buy';
        COMMENT ON INDEX trades_partial_idx IS 'sql-only: partial index for a test';
        ALTER TABLE trades ADD CONSTRAINT trades_amount_check CHECK (token_amount >= 0);
        CREATE TABLE stray (x int);
        CREATE TABLE ops_notes (x int);
        COMMENT ON TABLE ops_notes IS 'sql-only: operator notes';
      `);
      const differences = compareSchemas(
        expected(),
        await readDatabaseSchema(client, { ignoreTables: [MIGRATIONS_TABLE, MIGRATION_CHECKSUMS_TABLE] }),
      );
      expect(differences).toEqual(
        [
          "column candles.volume: nullable in the database, required in schema.prisma",
          'column tokens.lifecycle: no default in the database, default "active" in schema.prisma',
          "column tokens.extra: not in schema.prisma",
          "column trades.price: type is text in the database, numeric(78,0) in schema.prisma",
          "foreign key trending_entries_snapshot_id_fkey on trending_entries: (snapshot_id) → trending_snapshots(id) ON DELETE RESTRICT ON UPDATE CASCADE in the database, (snapshot_id) → trending_snapshots(id) ON DELETE CASCADE ON UPDATE CASCADE in schema.prisma",
          "index tokens_newest_idx (created_block_number DESC, created_log_index DESC) on tokens: missing in the database",
          "index tokens_search_name_idx on tokens: columns (search_name), schema.prisma (search_name text_pattern_ops)",
          "index trades_trader_idx (trader) on trades: not in schema.prisma (declare it, or COMMENT ON INDEX ... IS 'sql-only: why')",
          "table stray: not in schema.prisma",
        ].sort(),
      );
    } finally {
      await client.end();
      await db.drop();
    }
  });
});
