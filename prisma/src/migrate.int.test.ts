import { adminPool, createTestDatabase } from "@tmi/testkit";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate, migrationFiles, withDatabase } from "./migrate.js";

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

  it("error: an unreachable server is reported", async () => {
    await expect(migrate({ databaseUrl: "postgresql://postgres@127.0.0.1:1/tmi" })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });
});
