// The wallet statements stay linear in the wallet's tokens under both the custom and the generic
// plan (docs/api.md "GET /api/v1/wallets/{address}/holdings"): a wallet holding and having traded
// thousands of tokens (dust buys), with `include_closed=true`, must not make PostgreSQL rescan the
// wallet's balances once per position. Asserted on the plan's rows examined, never a duration.
import { createCursorCodec } from "@tmi/shared/codec";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readTokenTraders } from "../src/tokens/traders/trader-queries.js";
import { getWalletTotals, listHoldings } from "../src/wallets/wallet-queries.js";
import { explainPrepared, planSession, recordingDb, rowsExaminedOn } from "./plans.js";
import { insertSeriesTokens } from "./seed.js";

/** Tokens of the wallet: it traded all of them and still holds the first half. */
const N = 2000;
const WALLET = `0x${"77".repeat(20)}`;
/** Token 1: also held and traded by {@link HOT_HOLDERS} other wallets. */
const HOT = `0x${"1".padStart(40, "0")}`;
/** Other wallets, one token each: the statistics of a chain with many small wallets. */
const OTHERS = 20_000;
/** Other wallets that also hold and traded token 1. */
const HOT_HOLDERS = 5000;
const otherAt = (j: string) => `'0xb' || lpad(to_hex(${j}), 39, '0')`;
/** The test token address of the SQL integer expression `i`. */
const tokenAt = (i: string) => `'0x' || lpad(to_hex(${i}), 40, '0')`;

let database: TestDatabase;

/** A new read session (query-api's settings) under `plan_cache_mode` `mode`. */
async function session(mode: string): Promise<pg.Client> {
  const client = await planSession(database.url, mode);
  return client;
}

beforeAll(async () => {
  database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await insertSeriesTokens(admin, N, `'0x${"99".repeat(20)}'`);
  // The wallet holds the first half; the other wallets one token each.
  await admin.query(
    `INSERT INTO token_balances (token_address, holder, balance)
     SELECT ${tokenAt("i")}, $1, 10^21 + i FROM generate_series(1, ${N / 2}) i
     UNION ALL SELECT ${tokenAt(`j % ${N} + 1`)}, ${otherAt("j")}, 10^20 FROM generate_series(1, ${OTHERS}) j`,
    [WALLET],
  );
  await admin.query(
    `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
                            buy_count, sell_count, open_quantity, cost_basis, realized_pnl,
                            first_block_number, first_transaction_hash, first_log_index, first_timestamp,
                            last_block_number, last_transaction_hash, last_log_index, last_timestamp)
     SELECT ${tokenAt("i")}, w, 10^21, 10^15, 0, 0, 10^15, 1, 0, 10^21, 10^15, 0,
            200 + i, '0xe' || lpad(to_hex(i), 63, '0'), 0, 1763713000 + i,
            200 + i, '0xe' || lpad(to_hex(i), 63, '0'), 0, 1763713000 + i
     FROM (SELECT i, $1 AS w FROM generate_series(1, ${N}) i
           UNION ALL SELECT j % ${N} + 1, ${otherAt("j")} FROM generate_series(1, ${OTHERS}) j) x`,
    [WALLET],
  );
  // A hot token: held and traded by 5,000 of the other wallets too.
  await admin.query(
    `INSERT INTO token_balances (token_address, holder, balance)
     SELECT ${tokenAt("1")}, ${otherAt("j")}, 10^18 + j FROM generate_series(1, ${HOT_HOLDERS}) j ON CONFLICT DO NOTHING`,
  );
  await admin.query(
    `INSERT INTO positions (token_address, trader, bought_tokens, bought_reserve, sold_tokens, sold_reserve, volume,
                            buy_count, sell_count, open_quantity, cost_basis, realized_pnl,
                            first_block_number, first_transaction_hash, first_log_index, first_timestamp,
                            last_block_number, last_transaction_hash, last_log_index, last_timestamp)
     SELECT ${tokenAt("1")}, ${otherAt("j")}, 10^21, 10^15 + j, 0, 0, 10^15 + j, 1, 0, 10^21, 10^15, 0,
            300, '0xe' || lpad(to_hex(j), 63, '0'), 1, 1763714000, 300, '0xe' || lpad(to_hex(j), 63, '0'), 1, 1763714000
     FROM generate_series(1, ${HOT_HOLDERS}) j ON CONFLICT DO NOTHING`,
  );
  await admin.query("ANALYZE");
  await admin.end();
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

/** Runs `body` on a new session under `mode`, then closes it. */
async function withSession(mode: string, body: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = await session(mode);
  try {
    await body(client);
  } finally {
    await client.end();
  }
}

/** Asserts every statement `run` prepares examines at most 4 × N rows of each of `relations`. */
async function expectLinear(
  mode: string,
  relations: string[],
  run: (db: ReturnType<typeof recordingDb>["db"]) => Promise<void>,
): Promise<void> {
  await withSession(mode, async (client) => {
    const { db, statements } = recordingDb(client);
    await run(db);
    expect(statements.length).toBeGreaterThan(0);
    for (const { name, values } of statements) {
      const plan = await explainPrepared(client, name!, values);
      if (process.env.SHOW_PLANS) console.log(JSON.stringify(plan, null, 1));
      // Each of the wallet's rows is read a bounded number of times (a rescan of the wallet's
      // balances per position examines N²/4 rows).
      for (const relation of relations)
        expect(rowsExaminedOn(plan, relation), `${relation} in ${JSON.stringify(plan)}`).toBeLessThanOrEqual(
          4 * N,
        );
    }
  });
}

describe.each(["force_generic_plan", "force_custom_plan"])("%s", (mode) => {
  test("behavior: holdings with include_closed examine rows linear in the wallet's tokens", async () => {
    await expectLinear(mode, ["token_balances", "positions", "tokens"], async (db) => {
      const held = await listHoldings(db, { wallet: WALLET, includeClosed: true, after: null, take: 21 });
      expect(held).toHaveLength(21);
      // Past the held tokens: the first page of the closed ones.
      const closed = await listHoldings(db, {
        wallet: WALLET,
        includeClosed: true,
        after: [0, 0n, `0x${"0".repeat(40)}`],
        take: 101,
      });
      expect(closed).toHaveLength(101);
      expect(closed[0]?.balance).toBe("0");
      // A page within the closed group.
      const later = await listHoldings(db, {
        wallet: WALLET,
        includeClosed: true,
        after: closed[50]!.position,
        take: 21,
      });
      expect(later[0]?.position).toEqual(closed[51]?.position);
    });
  });

  test("behavior: a page of a token's traders examines rows linear in the page, not in the token's holders", async () => {
    await withSession(mode, async (client) => {
      const { db, statements } = recordingDb(client);
      const codec = createCursorCodec("wallet-plans-secret-0123456789abcdef");
      for (const sort of ["volume", "realized_pnl"] as const) {
        const page = await readTokenTraders(db, {
          token: HOT,
          sort,
          limit: 20,
          cursor: undefined,
          cursors: codec,
        });
        expect(page?.rows).toHaveLength(20);
        expect(page?.rows.every((r) => r.balance !== "0")).toBe(true);
      }
      for (const { name, values } of statements) {
        const plan = await explainPrepared(client, name!, values);
        for (const relation of ["token_balances", "positions"])
          expect(
            rowsExaminedOn(plan, relation),
            `${relation} in ${JSON.stringify(plan)}`,
          ).toBeLessThanOrEqual(4 * 21);
      }
    });
  });

  test("behavior: the wallet summary examines rows linear in the wallet's tokens", async () => {
    await expectLinear(mode, ["token_balances", "positions", "tokens"], async (db) => {
      const totals = await getWalletTotals(db, WALLET);
      expect(totals.holding_count).toBe(N / 2);
    });
  });
});

test("behavior: pages of holdings with include_closed list every held token by value, then every closed one by address, once", async () => {
  await withSession("force_generic_plan", async (client) => {
    const seen: string[] = [];
    let after: Awaited<ReturnType<typeof listHoldings>>[number]["position"] | null = null;
    for (;;) {
      const page = await listHoldings(client, { wallet: WALLET, includeClosed: true, after, take: 101 });
      seen.push(...page.slice(0, 100).map((h) => `${h.position[0]}:${h.position[2]}`));
      if (page.length <= 100) break;
      after = page[99]!.position;
    }
    expect(seen).toHaveLength(N);
    expect(new Set(seen).size).toBe(N);
    // Held: tokens 1..N/2 (value grows with the token number, so the last first); closed: N/2+1..N.
    expect(seen[0]).toBe(`0:0x${(N / 2).toString(16).padStart(40, "0")}`);
    expect(seen[N / 2]).toBe(`1:0x${(N / 2 + 1).toString(16).padStart(40, "0")}`);
  });
});
