import { adminPool, createTestDatabase } from "@tmi/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { MIGRATION_CHECKSUMS_TABLE, migrate, migrationFiles, withDatabase } from "./migrate.js";

async function tableNames(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    return rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

describe("migrate", () => {
  it("default", async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const first = await migrate({ databaseUrl: db.url });
      expect(first.createdDatabase).toBe(false);
      expect(first.applied).toEqual(migrationFiles().map((f) => f.replace(/\.sql$/, "")));
      console.log(`[db] migrate from empty took ${first.durationMs.toFixed(0)} ms`);
      expect(await tableNames(db.url)).toContain("tokens");
      const second = await migrate({ databaseUrl: db.url });
      expect(second.applied).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  it("behavior: creates the database when it does not exist", async () => {
    const db = await createTestDatabase({ empty: true });
    await db.drop();
    const name = `${db.name}_new`;
    const url = withDatabase(db.url, name);
    try {
      const result = await migrate({ databaseUrl: url });
      expect(result.createdDatabase).toBe(true);
      expect(await tableNames(url)).toContain("schema_migrations");
    } finally {
      await adminPool().query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  });

  it("behavior: concurrent callers apply the migrations once", async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const results = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: db.url })));
      const applied = results.flatMap((r) => r.applied);
      expect(applied).toEqual(migrationFiles().map((f) => f.replace(/\.sql$/, "")));
    } finally {
      await db.drop();
    }
  });

  it("error: an applied migration whose file was edited is refused", async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      await migrate({ databaseUrl: db.url });
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT name, sha256 FROM ${MIGRATION_CHECKSUMS_TABLE}`);
        expect(rows.map((r) => r.name)).toEqual(migrationFiles().map((f) => f.replace(/\.sql$/, "")));
        expect(rows[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
        // Same as editing the file after it was applied.
        await client.query(`UPDATE ${MIGRATION_CHECKSUMS_TABLE} SET sha256 = 'edited'`);
      } finally {
        await client.end();
      }
      await expect(migrate({ databaseUrl: db.url })).rejects.toThrow(
        /1763704800000_init\.sql was edited after it was applied/,
      );
    } finally {
      await db.drop();
    }
  });

  it("error: an unreachable server is reported", async () => {
    await expect(migrate({ databaseUrl: "postgresql://postgres@127.0.0.1:1/tmi" })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });
});
