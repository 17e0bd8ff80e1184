import { migrationFiles } from "@tmi/db";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  adminPool,
  cleanupTestDatabases,
  createTestDatabase,
  ensureTemplateDatabase,
  templateDatabaseName,
  testDatabaseCreatedAt,
  truncateAllTables,
} from "./database.js";

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function exists(name: string): Promise<boolean> {
  const { rowCount } = await adminPool().query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
  return (rowCount ?? 0) > 0;
}

describe("createTestDatabase", () => {
  it("default", async () => {
    const started = performance.now();
    const db = await createTestDatabase();
    const cloneMs = performance.now() - started;
    try {
      expect(db.name).toMatch(/^tmi_test_/);
      expect(db.url).toContain(`/${db.name}`);
      const tables = await withClient(db.url, async (c) => {
        const { rows } = await c.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
        );
        return rows.map((r) => r.table_name);
      });
      expect(tables).toContain("tokens");
      expect(tables).toContain("trending_entries");
      const applied = await withClient(
        db.url,
        async (c) => (await c.query("SELECT name FROM schema_migrations")).rowCount,
      );
      expect(applied).toBe(migrationFiles().length);
      console.log(`[testkit] template clone took ${cloneMs.toFixed(0)} ms`);
    } finally {
      await db.drop();
    }
    expect(await exists(db.name)).toBe(false);
  });

  it("behavior: databases are independent and uniquely named", async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.name).not.toBe(b.name);
      await withClient(a.url, (c) =>
        c.query("INSERT INTO excluded_addresses (address, kind, reason) VALUES ('0xabc', 'token', 'spam')"),
      );
      const count = await withClient(
        b.url,
        async (c) => (await c.query("SELECT 1 FROM excluded_addresses")).rowCount,
      );
      expect(count).toBe(0);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it("behavior: drop() terminates open connections first", async () => {
    const db = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pool.on("error", () => {});
    await pool.query("SELECT 1");
    await db.drop();
    expect(await exists(db.name)).toBe(false);
    await db.drop(); // a second call is a no-op
    await pool.end().catch(() => {});
  });

  it("behavior: truncateAllTables empties the tables and keeps the migration records", async () => {
    const db = await createTestDatabase();
    try {
      await withClient(db.url, (c) =>
        c.query(
          "INSERT INTO trending_snapshots (window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 1, 1)",
        ),
      );
      await truncateAllTables(db.url);
      const [snapshots, migrations, nextId] = await withClient(db.url, async (c) => [
        (await c.query("SELECT 1 FROM trending_snapshots")).rowCount,
        (await c.query("SELECT 1 FROM schema_migrations")).rowCount,
        (
          await c.query(
            "INSERT INTO trending_snapshots (window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 1, 1) RETURNING id",
          )
        ).rows[0].id,
      ]);
      expect(snapshots).toBe(0);
      expect(migrations).toBe(migrationFiles().length);
      expect(nextId).toBe("1");
    } finally {
      await db.drop();
    }
  });

  it("behavior: empty: true gives a database without the schema", async () => {
    const db = await createTestDatabase({ empty: true });
    try {
      const count = await withClient(db.url, async (c) =>
        Number(
          (await c.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'"))
            .rows[0].n,
        ),
      );
      expect(count).toBe(0);
    } finally {
      await db.drop();
    }
  });

  it("behavior: the template is named after the migrations and built once", async () => {
    expect(templateDatabaseName()).toMatch(/^tmi_tmpl_[0-9a-f]{16}$/);
    expect(await ensureTemplateDatabase()).toBe(templateDatabaseName());
    expect(await exists(templateDatabaseName())).toBe(true);
  });

  it("behavior: cleanup drops test databases older than the limit, only those", async () => {
    const old = `tmi_test_${(Date.now() - 5 * 3600_000).toString(36)}_wx_1_1_cafe01`;
    await adminPool().query(`CREATE DATABASE "${old}"`);
    const fresh = await createTestDatabase();
    try {
      expect(testDatabaseCreatedAt(old)).toBeLessThan(Date.now() - 4 * 3600_000);
      const dropped = await cleanupTestDatabases();
      expect(dropped).toContain(old);
      expect(dropped).not.toContain(fresh.name);
      expect(await exists(old)).toBe(false);
      expect(await exists(fresh.name)).toBe(true);
    } finally {
      await fresh.drop();
      await adminPool().query(`DROP DATABASE IF EXISTS "${old}"`);
    }
  });
});
