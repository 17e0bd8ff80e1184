// The indexer flags the trades it writes of the tokens excluded from discovery (`trades.hidden`,
// `hideTradesSql` of @tmi/shared/market): an excluded token's, and those of a token an excluded
// creator launches in the same range, so the market-wide feed's indexes never hold them.
import { WAD } from "@tmi/shared/chain";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { indexRanges } from "../testing/index-ranges.js";
import { addr, curveOf, poolOf, SyntheticChain, TEST_PLATFORM } from "../testing/synthetic-chain.js";
import { loadKnownState } from "./known-state-loader.js";

const PLATFORM = TEST_PLATFORM;
const [T1, T2, T3] = [addr(0x701), addr(0x702), addr(0x703)];
const [CREATOR, ALICE, BOB] = [addr(0xc1), addr(0xa1), addr(0xb0)];

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

test("behavior: trades written of an excluded token or of an excluded creator's new token are hidden", async () => {
  const chain = new SyntheticChain(PLATFORM, 1)
    .block(1)
    .launch(CREATOR, T1, curveOf(T1), poolOf(T1))
    .launch(ALICE, T2, curveOf(T2), poolOf(T2))
    .buy(T1, ALICE, WAD / 5n)
    .block(2)
    .buy(T1, BOB, WAD / 7n)
    .buy(T2, BOB, WAD / 9n)
    .launch(BOB, T3, curveOf(T3), poolOf(T3))
    .buy(T3, ALICE, WAD / 11n);
  const state = await loadKnownState(pool, { factory: PLATFORM.factory, weth: PLATFORM.weth, feed: null });
  const options = { chainId: 31337, headBlock: 100 };
  await indexRanges(pool, chain, [[1, 1]], state, options);
  await pool.query(
    "INSERT INTO excluded_addresses (address, kind, reason) VALUES ($1, 'token', 'test'), ($2, 'creator', 'test')",
    [T1, BOB],
  );
  await indexRanges(pool, chain, [[2, 2]], state, options);
  const { rows } = await pool.query<{ token_address: string; block_number: string; hidden: boolean }>(
    "SELECT token_address, block_number::text, hidden FROM trades ORDER BY block_number, log_index",
  );
  expect(rows).toEqual([
    // Written before the exclusion: flagged by the exclusion command (query-api's), not here.
    { token_address: T1, block_number: "1", hidden: false },
    { token_address: T1, block_number: "2", hidden: true },
    { token_address: T2, block_number: "2", hidden: false },
    { token_address: T3, block_number: "2", hidden: true },
  ]);
});
