// An excluded token's trades cost the market-wide feed nothing (docs/operations.md "Exclusions"):
// a token holding the feed's newest trades is excluded, and a page reads only the trades it
// shows, under the custom and the generic plan. Asserted on the rows the plan examined.
import { createDb } from "@tmi/db";
import { createCursorCodec } from "@tmi/shared/codec";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readKeysetPage } from "../src/common/keyset-page.js";
import { addExclusion, removeExclusion } from "../src/exclusions.js";
import { MARKET_TRADES, MARKET_TRADES_BY_SOURCE, type TradeRow } from "../src/trades/trade-queries.js";
import { insertToken, testAddress } from "./fixtures.js";
import { explainPrepared, planSession, recordingDb, rowsExaminedOn } from "./plans.js";

/** Trades of the busy token: the newest of the chain. */
const BUSY_TRADES = 3000;
const BUSY = testAddress(1);
const QUIET = testAddress(2);
const SPARSE = testAddress(3);
const codec = createCursorCodec("exclusion-test-secret-0123456789abcdef");

let database: TestDatabase;
let admin: pg.Pool;
let prisma: ReturnType<typeof createDb>;

/** Inserts `count` curve trades of `token` at blocks `block(i)`, log index `log`, i = 0..count-1. */
async function insertTrades(token: string, count: number, block: string, log: number): Promise<void> {
  await admin.query(
    `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address,
                         trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
     SELECT ${block}, ${log}, 0, '0x' || lpad(to_hex(${block}), 60, '0') || lpad(to_hex(${log}), 4, '0'),
            1763712000 + ${block}, $1, $2, 'buy', 'curve', 10^24, 10^17, 10^17, 0, 0, 10^11
     FROM generate_series(0, ${count - 1}) i`,
    [token, testAddress(9, "b")],
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Pool({ connectionString: database.url, max: 2 });
  admin.on("error", () => {});
  prisma = createDb({ url: database.url, max: 1 });
  for (const [i, token] of [BUSY, QUIET, SPARSE].entries())
    await insertToken(admin, { address: token, block: BigInt(10 + i), timestamp: 1_763_712_000n });
  // QUIET: 50 old trades; BUSY: the 3,000 newest; SPARSE: 5 among BUSY's.
  await insertTrades(QUIET, 50, "1000 + i", 0);
  await insertTrades(BUSY, BUSY_TRADES, "2000 + i", 0);
  await insertTrades(SPARSE, 5, "2000 + 600 * i", 1);
  await admin.query("ANALYZE");
  expect(await addExclusion(prisma, { address: BUSY, kind: "token", reason: "test" })).toBe(true);
}, 120_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await admin?.end();
  await database?.drop();
});

/** Runs `body` on a read session under `plan_cache_mode` `mode`. */
async function withSession(mode: string, body: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = await planSession(database.url, mode);
  try {
    await body(client);
  } finally {
    await client.end();
  }
}

describe.each(["force_generic_plan", "force_custom_plan"])("%s", (mode) => {
  test.each([
    ["all venues", MARKET_TRADES, []],
    ["one venue", MARKET_TRADES_BY_SOURCE, ["curve"]],
  ] as const)(
    "behavior: a page of the feed (%s) reads no trade of an excluded token",
    async (_, source, filters) => {
      await withSession(mode, async (client) => {
        const { db, statements } = recordingDb(client);
        const options = { filters, order: "desc" as const, limit: 20, cursors: codec, route: "t" };
        const page = await readKeysetPage<TradeRow>(db, source, { ...options, cursor: undefined });
        // The sparse token's 5 trades, then the quiet token's newest 15: none of the excluded token.
        expect(page?.rows.map((r) => r.token_address)).toEqual([
          ...Array(5).fill(SPARSE),
          ...Array(15).fill(QUIET),
        ]);
        const oldest = await readKeysetPage<TradeRow>(db, source, {
          ...options,
          order: "asc",
          cursor: undefined,
        });
        expect(oldest?.rows[0]?.token_address).toBe(QUIET);
        for (const { name, values } of statements) {
          const plan = await explainPrepared(client, name!, values);
          // The page's 21 rows (and their ETH/USD probes), whatever the excluded token's 3,000.
          expect(rowsExaminedOn(plan, "trades"), JSON.stringify(plan)).toBeLessThanOrEqual(2 * 21);
        }
      });
    },
  );
});

test("behavior: an excluded creator's tokens cost a page of the feed nothing per token", async () => {
  // A creator of 2,000 tokens (no trades), excluded: a page checks each of its rows' creator by key.
  const spammer = testAddress(5, "c");
  await admin.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
                         created_block_number, created_transaction_index, created_transaction_hash, created_log_index,
                         created_at, curve_address, virtual_token_reserve, virtual_eth_reserve, graduation_threshold,
                         updated_block_number)
     SELECT '0xf' || lpad(to_hex(i), 39, '0'), 31337, $1, 'S', 'S', 's', 's', 10^27, 50, 0,
            '0xf' || lpad(to_hex(i), 63, '0'), i, 1763712000, '0xe' || lpad(to_hex(i), 39, '0'), 10^27, 10^18, 8 * 10^26, 50
     FROM generate_series(1, 2000) i`,
    [spammer],
  );
  await admin.query("ANALYZE tokens");
  await addExclusion(prisma, { address: spammer, kind: "creator", reason: "test" });
  for (const mode of ["force_generic_plan", "force_custom_plan"])
    await withSession(mode, async (client) => {
      const { db, statements } = recordingDb(client);
      const options = { filters: [], order: "desc" as const, limit: 20, cursors: codec, route: "t" };
      await readKeysetPage<TradeRow>(db, MARKET_TRADES, { ...options, cursor: undefined });
      for (const { name, values } of statements) {
        const plan = await explainPrepared(client, name!, values);
        // One creator lookup per trade read (this small feed, 55 trades, may be read whole),
        // never a read of the excluded creator's 2,000 tokens.
        expect(rowsExaminedOn(plan, "tokens"), JSON.stringify(plan)).toBeLessThanOrEqual(100);
      }
    });
  await removeExclusion(prisma, { address: spammer, kind: "creator" });
});

test("behavior: removing the exclusion shows the token's trades in the feed again", async () => {
  expect(await removeExclusion(prisma, { address: BUSY, kind: "token" })).toBe(true);
  const { rows } = await admin.query("SELECT count(*)::int AS n FROM trades WHERE hidden");
  expect(rows[0].n).toBe(0);
  await withSession("auto", async (client) => {
    const page = await readKeysetPage<TradeRow>(client, MARKET_TRADES, {
      filters: [],
      order: "desc",
      limit: 3,
      cursor: undefined,
      cursors: codec,
      route: "t",
    });
    expect(page?.rows.map((r) => r.token_address)).toEqual([BUSY, BUSY, BUSY]);
  });
  // Excluding its creator hides it again.
  await addExclusion(prisma, { address: testAddress(9, "c"), kind: "creator", reason: "test" });
  const hidden = await admin.query("SELECT count(*)::int AS n FROM trades WHERE hidden");
  expect(hidden.rows[0].n).toBe(BUSY_TRADES + 50 + 5);
});
