// A traders page reads each row's balance by key, however many holders the token has
// (docs/benchmarks.md "traders_deep: the balance lookup by key"). The lookup (token, holder) could
// be served by the primary key or by `token_balances_rank_idx` (token, balance desc, holder), which
// also holds both columns but reads the token's whole range to find one holder. With about one
// balance per token on average the planner costs the two the same and took the rank index (84
// buffers per row for a token of 5,000 holders at 1M tokens). The rank index now only holds
// positive balances (`WHERE balance > 0`, every stored balance): a lookup without that condition
// cannot use it. Asserted from the buffers of the lookups, generic and custom plans.
import { createCursorCodec } from "@tmi/shared/codec";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type KeysetPosition, readKeysetPage } from "../src/common/keyset-page.js";
import { PNL_PAGE_SQL } from "../src/tokens/traders/pnl-ranking.js";
import { tokenTradersSource } from "../src/tokens/traders/trader-queries.js";
import type { TraderSort } from "../src/tokens/traders/trader-schemas.js";
import { explainPrepared, type PlanNode, planNodes, planSession, recordingDb } from "./plans.js";
import { addr, insertSeriesPositions, insertSeriesTokens, wallet, walletSql } from "./seed.js";

/** Tokens; token 1 is the hot one, every other has one holder and trader. */
const TOKENS = 20_000;
/** The hot token's holders and traders. */
const HOT_HOLDERS = 4000;
const HOT = addr(1);
const codec = createCursorCodec("balance-lookup-test-secret-0123456789abcdef");

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await insertSeriesTokens(admin, TOKENS, `'0x' || lpad('c', 40, '0')`);
    // Rows i = 1..HOT_HOLDERS: the hot token's holder i; the rest: token i - HOT_HOLDERS + 1's one holder.
    const rows = HOT_HOLDERS + TOKENS - 1;
    const token = `CASE WHEN i <= ${HOT_HOLDERS} THEN '${HOT}' ELSE '0x' || lpad(to_hex(i - ${HOT_HOLDERS} + 1), 40, '0') END`;
    await admin.query(
      `INSERT INTO token_balances (token_address, holder, balance)
       SELECT ${token}, ${walletSql("i")}, 10^18 * (1 + i % 997) FROM generate_series(1, ${rows}) i`,
    );
    await insertSeriesPositions(admin, rows, token, walletSql("i"));
    // The rank index created last, as a restore from a dump (indexes by name) or the bench's
    // builder leaves it: of indexes costed the same, the planner keeps the last created.
    const { rows: index } = await admin.query<{ def: string }>(
      "SELECT pg_get_indexdef('token_balances_rank_idx'::regclass) AS def",
    );
    await admin.query("DROP INDEX token_balances_rank_idx");
    await admin.query(index[0]!.def);
    await admin.query("ANALYZE");
  } finally {
    await admin.end();
  }
}, 180_000);

afterAll(async () => {
  await database?.drop();
});

/** The scans of `token_balances` in `plan`, with their loops and buffers. */
function balanceScans(plan: PlanNode): PlanNode[] {
  return planNodes(plan).filter((n) => n["Relation Name"] === "token_balances");
}

/**
 * Asserts the balance lookups of `plan` read by key: about 3 buffers per lookup (index root and
 * leaf, heap page), where the rank index reads the hot token's range (dozens) for each.
 */
function expectKeyLookups(plan: PlanNode, lookups: number): void {
  const scans = balanceScans(plan);
  expect(scans.length).toBeGreaterThan(0);
  expect(scans.map((n) => n["Index Name"])).not.toContain("token_balances_rank_idx");
  const loops = scans.reduce((sum, n) => sum + n["Actual Loops"], 0);
  const buffers = scans.reduce(
    (sum, n) => sum + (n["Shared Hit Blocks"] ?? 0) + (n["Shared Read Blocks"] ?? 0),
    0,
  );
  expect(loops).toBe(lookups);
  expect(buffers).toBeLessThanOrEqual(4 * lookups);
}

describe.each(["force_generic_plan", "force_custom_plan"])("%s", (mode) => {
  test.each(["volume", "pnl", "realized_pnl", "bought", "sold"] as TraderSort[])(
    "behavior: a %s page of the hot token's traders reads each balance by key",
    async (sort) => {
      const client = await planSession(database.url, mode);
      try {
        const { db, statements } = recordingDb(client);
        const route = `balance-lookup:${sort}`;
        // Deep in the token's traders: the cursor 3,000 traders down (volume 10^15 + 1,000).
        const after: KeysetPosition = [10n ** 15n + 1000n, wallet(1000)];
        const page = await readKeysetPage(db, tokenTradersSource(sort), {
          filters: [HOT],
          order: "desc",
          limit: 20,
          cursor: codec.encode(route, after),
          cursors: codec,
          route,
        });
        expect(page?.rows).toHaveLength(20);
        const last = statements.at(-1)!;
        const plan = await explainPrepared(client, last.name!, last.values);
        expectKeyLookups(plan, 21);
      } finally {
        await client.end();
      }
    },
    60_000,
  );

  test("behavior: the pnl ranking's page reads each balance by key", async () => {
    const client = await planSession(database.url, mode);
    try {
      const traders = Array.from({ length: 21 }, (_, i) => wallet(2000 + i));
      await client.query({ name: "balance_lookup_pnl_page", text: PNL_PAGE_SQL, values: [HOT, traders] });
      const plan = await explainPrepared(client, "balance_lookup_pnl_page", [HOT, traders]);
      expectKeyLookups(plan, 21);
    } finally {
      await client.end();
    }
  });
});
