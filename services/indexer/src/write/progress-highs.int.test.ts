// The indexer keeps `token_progress_highs` (the `token.progress` webhooks' memory of canonical
// history) in its range writes, with no webhook subscribed: per token, the first curve trade that
// reached the highest progress, across ranges — the rule of the migration that created the table
// (its backfill query over the stored trades is the reference here).
import { WAD } from "@tmi/shared/chain";
import { progressBps } from "@tmi/shared/market";
import { createTestDatabase } from "@tmi/testkit";
import pg from "pg";
import { expect, test } from "vitest";
import { indexRanges } from "../testing/index-ranges.js";
import { addr, curveOf, poolOf, SyntheticChain, TEST_PLATFORM } from "../testing/synthetic-chain.js";
import { loadKnownState } from "./known-state-loader.js";

const PLATFORM = TEST_PLATFORM;
const [T1, T2] = [addr(0x701), addr(0x702)];
const [CREATOR, ALICE, BOB] = [addr(0xc1), addr(0xa1), addr(0xb0)];

/** The highs as the trigger-era backfill computes them from the stored trades. */
async function referenceHighs(pool: pg.Pool): Promise<unknown[]> {
  const { rows } = await pool.query(
    `SELECT DISTINCT ON (s.token_address) s.token_address, s.bps AS high_bps, s.block_number::text, s.log_index
     FROM (SELECT tr.token_address, tr.block_number, tr.log_index,
                  tmi_progress_bps(tr.curve_sold_supply, t.graduation_threshold) AS bps
           FROM trades tr JOIN tokens t ON t.address = tr.token_address
           WHERE tr.source = 'curve' AND tr.curve_sold_supply IS NOT NULL) s
     WHERE s.bps > 0
     ORDER BY s.token_address, s.bps DESC, s.block_number, s.log_index`,
  );
  return rows;
}

const storedHighs = async (pool: pg.Pool) =>
  (
    await pool.query(
      "SELECT token_address, high_bps, block_number::text, log_index FROM token_progress_highs ORDER BY token_address",
    )
  ).rows;

test("behavior: the indexer keeps each token's first trade reaching its highest progress, across ranges, without a subscription", async () => {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    await indexAndCheck(pool);
  } finally {
    await pool.end();
    await database.drop();
  }
});

/** Indexes the fixture in three writes and compares the stored highs with the reference. */
async function indexAndCheck(pool: pg.Pool): Promise<void> {
  const chain = new SyntheticChain(PLATFORM, 1)
    .block(1)
    .launch(CREATOR, T1, curveOf(T1), poolOf(T1))
    .launch(CREATOR, T2, curveOf(T2), poolOf(T2))
    .buy(T1, ALICE, WAD / 2n)
    .buy(T1, BOB, 1_000n) // more sold, same bps: the high stays Alice's buy
    .block(2)
    .sell(T1, ALICE, 1_000_000n * WAD)
    .buy(T2, BOB, WAD / 3n)
    .block(3)
    .buy(T1, BOB, 1_000_000n) // back near the high of block 1, not above it
    .buy(T2, ALICE, WAD)
    .block(4)
    .buy(T1, ALICE, WAD);
  const state = await loadKnownState(pool, { factory: PLATFORM.factory, weth: PLATFORM.weth, feed: null });
  const options = { chainId: 31337, headBlock: 100 };
  await indexRanges(pool, chain, [[1, 1]], state, options);
  // The fixture's tie: Bob's tiny buy sold more at the same progress as Alice's.
  const { rows: t1 } = await pool.query<{ sold: string; threshold: string; log_index: number }>(
    `SELECT tr.curve_sold_supply::text AS sold, t.graduation_threshold::text AS threshold, tr.log_index
     FROM trades tr JOIN tokens t ON t.address = tr.token_address WHERE tr.token_address = $1 ORDER BY tr.log_index`,
    [T1],
  );
  const bps = t1.map((r) => progressBps(BigInt(r.sold), BigInt(r.threshold)));
  expect(bps[0]).toBeGreaterThan(0);
  expect(bps[1]).toBe(bps[0]);
  expect(BigInt(t1[1]!.sold)).toBeGreaterThan(BigInt(t1[0]!.sold));
  expect(await storedHighs(pool)).toEqual([
    { token_address: T1, high_bps: bps[0], block_number: "1", log_index: t1[0]!.log_index },
  ]);
  await indexRanges(
    pool,
    chain,
    [
      [2, 3],
      [4, 4],
    ],
    state,
    options,
  );
  const reference = await referenceHighs(pool);
  expect(reference).toHaveLength(2);
  expect(await storedHighs(pool)).toEqual(reference);
  const outbox = await pool.query("SELECT count(*)::int AS n FROM webhook_outbox");
  expect(outbox.rows[0].n).toBe(0);
}
