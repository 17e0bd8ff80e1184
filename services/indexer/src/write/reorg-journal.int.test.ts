import { EXACT_GRADUATION_GROSS, TERMINAL_SQRT_PRICE_X96_TOKEN0, WAD } from "@tmi/shared/chain";
import {
  createTestDatabase,
  dumpIndexedTables,
  insertSyntheticTokens,
  oraclePositions,
  STORED_POSITIONS_SQL,
  type TestDatabase,
} from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { KnownState } from "../model/known-state.js";
import { indexRanges } from "../testing/index-ranges.js";
import { addr, SyntheticChain } from "../testing/synthetic-chain.js";
import { loadKnownState } from "./known-state-loader.js";
import { revertTo } from "./reorg-journal.js";

const PLATFORM = { factory: addr(0xfac), weth: addr(0xffff), feeManager: addr(0xfee), manager: addr(0x3a9) };
const ADDRESSES = { factory: PLATFORM.factory, weth: PLATFORM.weth, feed: null };
const CHAIN_ID = 31337;
const [T1, T2, T3, T4] = [addr(0x701), addr(0x702), addr(0x703), addr(0x704)];
const curveOf = (t: string) => addr(Number(BigInt(t)) + 0x1000);
const poolOf = (t: string) => addr(Number(BigInt(t)) + 0x2000);
const [CREATOR, ALICE, BOB, CAROL, DAVE] = [addr(0xc1), addr(0xa1), addr(0xb0), addr(0xca), addr(0xd0)];

/** Blocks 1–6 shared by both branches: launches, trades, transfers, a graduation. */
function commonPrefix(): SyntheticChain {
  return new SyntheticChain(PLATFORM, 1)
    .block(1)
    .launch(CREATOR, T1, curveOf(T1), poolOf(T1))
    .launch(ALICE, T2, curveOf(T2), poolOf(T2))
    .block(2)
    .buy(T1, ALICE, WAD / 2n)
    .buy(T2, BOB, WAD / 5n)
    .block(3)
    .sell(T1, ALICE, 10_000_000n * WAD)
    .transfer(T1, ALICE, CAROL, 1_000_000n * WAD)
    .block(4, 1_800_003_700) // another hour bucket
    .buy(T1, BOB, WAD)
    .block(5)
    .buy(T1, CAROL, EXACT_GRADUATION_GROSS) // graduates T1
    .block(6)
    .swap(T1, BOB, -3n * WAD, WAD / 20n, TERMINAL_SQRT_PRICE_X96_TOKEN0 + 10n ** 21n, true);
}

function branchA(): SyntheticChain {
  return commonPrefix()
    .fork(2)
    .block(7)
    .swap(T1, CAROL, 2n * WAD, WAD / 30n, TERMINAL_SQRT_PRICE_X96_TOKEN0 - 10n ** 21n, true)
    .buy(T2, CAROL, WAD / 3n)
    .block(8)
    .launch(BOB, T3, curveOf(T3), poolOf(T3))
    .buy(T3, BOB, WAD / 7n)
    .block(9)
    .sell(T2, BOB, 1_000n * WAD)
    .transfer(T1, CAROL, ALICE, 1n)
    .block(10, 1_800_090_000) // another day bucket
    .buy(T2, ALICE, WAD / 9n);
}

function branchB(): SyntheticChain {
  return (
    commonPrefix()
      .fork(3)
      .block(7)
      .buy(T2, ALICE, WAD / 4n)
      .block(8)
      .launch(CAROL, T4, curveOf(T4), poolOf(T4))
      .buy(T2, CAROL, WAD / 1000n)
      .block(9)
      .buy(T4, CAROL, WAD / 11n)
      // Positions: a sell beyond the bought quantity (tokens received by transfer), a sell with
      // nothing bought, a partial sell of a position opened in an earlier write.
      .transfer(T2, ALICE, CAROL, 5_000_000n * WAD)
      .sell(T2, CAROL, 3_000_000n * WAD)
      .transfer(T2, BOB, DAVE, 1_000n * WAD)
      .sell(T2, DAVE, 500n * WAD)
      .sell(T2, BOB, 1_000n * WAD)
      .swap(T1, ALICE, -WAD, WAD / 50n, TERMINAL_SQRT_PRICE_X96_TOKEN0 + 2n * 10n ** 21n, true)
  );
}

/** Indexes `ranges` of `chain` (see `indexRanges`). */
function index(
  pool: pg.Pool,
  chain: SyntheticChain,
  ranges: [number, number][],
  state: KnownState,
  headBlock: number,
  keepBlocks = 65,
): Promise<void> {
  return indexRanges(pool, chain, ranges, state, { chainId: CHAIN_ID, headBlock, keepBlocks });
}

describe("reorg journal", () => {
  let reorged: TestDatabase;
  let fresh: TestDatabase;
  let poolR: pg.Pool;
  let poolF: pg.Pool;

  beforeAll(async () => {
    [reorged, fresh] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    poolR = new pg.Pool({ connectionString: reorged.url, max: 2 });
    poolF = new pg.Pool({ connectionString: fresh.url, max: 2 });
  });

  afterAll(async () => {
    await Promise.all([poolR?.end(), poolF?.end()]);
    await Promise.all([reorged?.drop(), fresh?.drop()]);
  });

  test("default: index branch A, reorg to block 6 (a write straddles it), index branch B ≡ a fresh index of B", async () => {
    const a = branchA();
    const b = branchB();
    let state = await loadKnownState(poolR, ADDRESSES);
    await index(
      poolR,
      a,
      [
        [1, 3],
        [4, 8],
        [9, 10],
      ],
      state,
      10,
    );

    const client = await poolR.connect();
    let result: Awaited<ReturnType<typeof revertTo>>;
    try {
      await client.query("BEGIN");
      result = await revertTo(client, a.headers(6, 6)[0]!, { chainId: CHAIN_ID, oldTip: 10 });
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    // The write of blocks 4–8 touched orphaned blocks: undone whole, the read models are as of block 3.
    expect(result.revertedTo).toBe(3);
    expect(result.removedTokens).toBe(1); // T3
    const cp = await poolR.query("SELECT block_number::int AS n, block_hash FROM indexer_checkpoints");
    expect(cp.rows[0]).toEqual({ n: 3, block_hash: a.headers(3, 3)[0]!.hash });
    expect(
      (await poolR.query("SELECT count(*)::int AS n FROM reorg_journal WHERE to_block > 3")).rows[0].n,
    ).toBe(0);

    state = await loadKnownState(poolR, ADDRESSES);
    await index(
      poolR,
      b,
      [
        [4, 6],
        [7, 9],
      ],
      state,
      9,
    );

    const stateF = await loadKnownState(poolF, ADDRESSES);
    await index(
      poolF,
      b,
      [
        [1, 5],
        [6, 9],
      ],
      stateF,
      9,
    );

    const [dumpR, dumpF] = await Promise.all([dumpIndexedTables(reorged.url), dumpIndexedTables(fresh.url)]);
    expect(dumpR).toEqual(dumpF);
    expect(dumpF.tokens).toHaveLength(3);
    // Unique traders per candle (long intervals counted through token_traders) = recomputed from trades.
    const recomputed = await poolF.query(
      `WITH iv(name, size) AS (VALUES ('1m', 60), ('5m', 300), ('15m', 900), ('1h', 3600), ('4h', 14400), ('1d', 86400), ('1w', 604800))
       SELECT t.token_address, iv.name AS interval,
              (CASE WHEN iv.size = 604800 THEN ((t.block_timestamp - 345600) / 604800) * 604800 + 345600
                    ELSE (t.block_timestamp / iv.size) * iv.size END)::text AS bucket_start,
              count(DISTINCT t.trader)::int AS n, sum(t.curve_value)::text AS volume
       FROM trades t CROSS JOIN iv GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    const stored = await poolF.query(
      "SELECT token_address, interval, bucket_start::text, unique_trader_count AS n, volume::text FROM candles ORDER BY 1, 2, 3",
    );
    expect(stored.rows).toEqual(recomputed.rows);
    expect(dumpF.trades!.length).toBeGreaterThan(5);
    // Positions = the average-cost rule recomputed from the stored trades (after the reorg too).
    const trades = await poolR.query(
      `SELECT token_address, trader, side, block_number::text, transaction_index, log_index, transaction_hash,
              block_timestamp::text, token_amount::text, reserve_amount::text FROM trades`,
    );
    const expected = oraclePositions(
      trades.rows.map((r) => ({
        token: r.token_address,
        trader: r.trader,
        side: r.side,
        blockNumber: BigInt(r.block_number),
        transactionIndex: r.transaction_index,
        logIndex: r.log_index,
        transactionHash: r.transaction_hash,
        timestamp: BigInt(r.block_timestamp),
        tokenAmount: BigInt(r.token_amount),
        reserveAmount: BigInt(r.reserve_amount),
      })),
    );
    expect((await poolR.query(STORED_POSITIONS_SQL)).rows).toEqual(expected);
    const position = (token: string, trader: string) =>
      expected.find((p) => p.token_address === token && p.trader === trader)!;
    const carol = position(T2, CAROL);
    expect(BigInt(carol.sold_tokens)).toBeGreaterThan(BigInt(carol.bought_tokens));
    expect(carol).toMatchObject({ open_quantity: "0", cost_basis: "0" });
    expect(position(T2, DAVE)).toMatchObject({
      buy_count: 0,
      cost_basis: "0",
      realized_pnl: position(T2, DAVE).sold_reserve,
    });
    const bob = position(T2, BOB);
    expect(BigInt(bob.cost_basis)).toBeLessThan(BigInt(bob.bought_reserve));
    expect(BigInt(bob.open_quantity)).toBeGreaterThan(0n);
  });

  test("behavior: the header before the oldest journaled write survives pruning", async () => {
    const db = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      const a = branchA();
      // keepBlocks 3, head 10: [1,3] is outside the window, [4,8] and [9,10] are journaled.
      await index(
        pool,
        a,
        [
          [1, 3],
          [4, 8],
          [9, 10],
        ],
        await loadKnownState(pool, ADDRESSES),
        10,
        3,
      );
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await revertTo(client, a.headers(6, 6)[0]!, { chainId: CHAIN_ID, oldTip: 10 });
        await client.query("COMMIT");
        expect(result.revertedTo).toBe(3);
      } finally {
        client.release();
      }
      const cp = await pool.query("SELECT block_number::int AS n FROM indexer_checkpoints");
      expect(cp.rows[0].n).toBe(3);
    } finally {
      await pool.end();
      await db.drop();
    }
  });

  test("behavior: the undo writes rows back without their generated columns (tokens.address_tie)", async () => {
    // PostgreSQL refuses a value, even NULL, for a generated column: the undo leaves them out of
    // its INSERT (a deleted row) and UPDATE (an updated row) and PostgreSQL computes them again.
    const db = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await insertSyntheticTokens(pool, 2, CHAIN_ID);
      const rows = () =>
        pool.query("SELECT row_to_json(t)::text AS r FROM tokens t ORDER BY address").then((r) => r.rows);
      const before = await rows();
      expect(before.map((r) => JSON.parse(r.r).address_tie)).toEqual([
        `fx${"f".repeat(39)}e`,
        `fx${"f".repeat(39)}d`,
      ]);
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(
          "SELECT set_config('tmi.journal_block', '7', true), set_config('tmi.journal_to_block', '7', true)",
        );
        await client.query(
          "UPDATE tokens SET holder_count = 5 WHERE address = (SELECT min(address) FROM tokens)",
        );
        await client.query("DELETE FROM tokens WHERE address = (SELECT max(address) FROM tokens)");
        await client.query("COMMIT");
        // The two rows of `tokens` and the deleted token's search prefixes.
        await client.query("SELECT tmi_journal_undo(6)");
      } finally {
        client.release();
      }
      expect(await rows()).toEqual(before);
    } finally {
      await pool.end();
      await db.drop();
    }
  });

  test("behavior: writes outside the reorg window are not journaled", async () => {
    const state = await loadKnownState(poolF, ADDRESSES);
    const c = new SyntheticChain(PLATFORM, 4)
      .block(500)
      .launch(BOB, addr(0x7ff), curveOf(addr(0x7ff)), poolOf(addr(0x7ff)));
    await index(poolF, c, [[500, 500]], state, 10_000);
    expect(
      (await poolF.query("SELECT count(*)::int AS n FROM reorg_journal WHERE to_block = 500")).rows[0].n,
    ).toBe(0);
    expect(
      (await poolF.query("SELECT count(*)::int AS n FROM tokens WHERE address = $1", [addr(0x7ff)])).rows[0]
        .n,
    ).toBe(1);
  });
});
