// Every keyset page statement settles on PostgreSQL's generic plan (docs/operations.md "Prepared
// statements"): executed with the same shape and other values, a statement whose generic plan is
// estimated dearer than its custom ones (a bare `LIMIT $n` is planned as 10 % of its input) is
// planned again on every execution. Asserted from `pg_prepared_statements` (generic_plans,
// custom_plans), never a duration.
import { createCursorCodec } from "@tmi/shared/codec";
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type KeysetPosition, type KeysetSource, readKeysetPage } from "../src/common/keyset-page.js";
import { TOKEN_REWARD_DISTRIBUTIONS, WALLET_REWARDS } from "../src/rewards/reward-queries.js";
import { TOKEN_ACTIVITY } from "../src/tokens/activity/activity-queries.js";
import { holdersSource } from "../src/tokens/holders/holder-queries.js";
import { tokenTradersSource } from "../src/tokens/traders/trader-queries.js";
import {
  MARKET_TRADES,
  MARKET_TRADES_BY_SOURCE,
  TOKEN_TRADER_TRADES,
  TOKEN_TRADES,
  walletTradesSource,
} from "../src/trades/trade-queries.js";
import { planSession, recordingDb } from "./plans.js";
import { addr, insertSeriesPositions, insertSeriesTokens, txHash, wallet, walletSql } from "./seed.js";

/**
 * Tokens; every table below spreads its rows over them: thousands per token, so a bare `LIMIT $n`
 * (planned as 10 % of them) is planned for hundreds of rows where a page reads at most 101.
 */
const TOKENS = 20;
/** Rows of `trades`, `chain_events`, `token_balances`, `positions` (3,000 per token). */
const ROWS = 60_000;
/** Wallets trading and claiming (3,000 trades each); each token has its own 3,000 holders and traders. */
const WALLETS = 19;
/** Executions of each statement: PostgreSQL compares the generic plan with the first 5 custom ones. */
const RUNS = 8;
const codec = createCursorCodec("generic-plans-test-secret-0123456789abcdef");
const CREATOR = `0x${"99".repeat(20)}`;

/** The test token address of the SQL integer expression `i`. */
const tokenSql = (i: string) => `'0x' || lpad(to_hex(${i}), 40, '0')`;

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await insertSeriesTokens(admin, TOKENS, `'${CREATOR}'`);
    const t = tokenSql(`i % ${TOKENS} + 1`);
    const w = walletSql(`i % ${WALLETS}`);
    const holder = walletSql(`i / ${TOKENS}`);
    await admin.query(
      `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address,
                           trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
       SELECT 1000 + i, 0, 0, '0x' || lpad(to_hex(i), 64, '0'), 1763712000 + i, ${t}, ${w}, 'buy',
              CASE WHEN i % 3 = 0 THEN 'uniswap_v3' ELSE 'curve' END, 10^24, 10^17, 10^17, 0, 0, 10^11
       FROM generate_series(1, ${ROWS}) i`,
    );
    await admin.query(
      `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
                                 contract_address, event_name, token_address, decoded)
       SELECT 1000 + i, 0, '0xa' || lpad(to_hex(i), 63, '0'), 1763712000 + i, 0, '0x' || lpad(to_hex(i), 64, '0'),
              ${t}, 'Transfer', ${t}, '{}'::jsonb
       FROM generate_series(1, ${ROWS}) i`,
    );
    // Each token: 3,000 holders and traders of its own, one in ten a sniper, insider, launch buyer.
    await admin.query(
      `INSERT INTO token_balances (token_address, holder, balance)
       SELECT ${t}, ${holder}, 10^18 * (1 + i % 997) FROM generate_series(1, ${ROWS}) i`,
    );
    await admin.query(
      `INSERT INTO token_cohorts (token_address, wallet, sniper, launch_block_buyer, insider)
       SELECT ${t}, ${holder}, i % 7 = 1, i % 7 = 2, i % 7 = 3 FROM generate_series(1, ${ROWS}) i
       WHERE i % 7 BETWEEN 1 AND 3`,
    );
    await insertSeriesPositions(admin, ROWS, t, holder);
    // 200 distributions per token; wallet i % 19 claims and has a leaf in distribution i.
    const id = (i: string) => `'0xf' || lpad(to_hex(${i}), 63, '0')`;
    const d = TOKENS * 200;
    await admin.query(
      `INSERT INTO reward_distributions (distribution_id, token_address, epoch, asset, root, block_number,
         block_timestamp, transaction_hash, log_index)
       SELECT ${id("i")}, ${t}, i / ${TOKENS}, $1, ${id("i")}, 1000 + i, 1700000000 + i, ${id("i")}, 0
       FROM generate_series(1, ${d}) i`,
      [`0x${"00".repeat(20)}`],
    );
    await admin.query(
      `INSERT INTO reward_claims (distribution_id, claimant, token_address, epoch, asset, amount, block_number,
         block_timestamp, transaction_hash, log_index)
       SELECT ${id("i")}, ${w}, ${t}, i / ${TOKENS}, $1, 1, 2000 + i, 1800000000 + i, ${id("i")}, 0
       FROM generate_series(1, ${d}) i WHERE i % 2 = 0`,
      [`0x${"00".repeat(20)}`],
    );
    await admin.query(
      `INSERT INTO reward_trees (distribution_id, root, leaf_order, leaf_count)
       SELECT ${id("i")}, ${id("i")}, 'given', 1 FROM generate_series(1, ${d}) i`,
    );
    await admin.query(
      `INSERT INTO reward_tree_leaves (distribution_id, root, claimant, epoch, amount, leaf_hash, proof)
       SELECT ${id("i")}, ${id("i")}, ${w}, i / ${TOKENS}, 1, ${id("i")}, ARRAY[${id("i")}] FROM generate_series(1, ${d}) i`,
    );
    await admin.query("ANALYZE");
  } finally {
    await admin.end();
  }
}, 180_000);

afterAll(async () => {
  await database?.drop();
});

/** A chain position after which run `r`'s page starts (different per run). */
const chainAfter = (r: number): KeysetPosition => [
  BigInt(1000 + ROWS - 500 * r),
  0,
  0,
  txHash(ROWS - 500 * r),
];

/** One keyset source, its filters and a cursor position for run `r` (1..RUNS). */
interface Case {
  source: KeysetSource;
  filters: (r: number) => unknown[];
  after: (r: number) => KeysetPosition;
}

const CASES: [string, Case][] = [
  ["a token's trades", { source: TOKEN_TRADES, filters: (r) => [addr(r)], after: chainAfter }],
  [
    "a token's trades by a trader",
    { source: TOKEN_TRADER_TRADES, filters: (r) => [addr(r), wallet(r)], after: chainAfter },
  ],
  [
    "a wallet's trades",
    { source: walletTradesSource(false), filters: (r) => [wallet(r)], after: chainAfter },
  ],
  [
    "a wallet's trades of a source",
    {
      source: walletTradesSource(true),
      filters: (r) => [wallet(r), r % 2 ? "curve" : "uniswap_v3"],
      after: chainAfter,
    },
  ],
  ["the trades feed", { source: MARKET_TRADES, filters: () => [], after: chainAfter }],
  [
    "the trades feed of a source",
    { source: MARKET_TRADES_BY_SOURCE, filters: (r) => [r % 2 ? "curve" : "uniswap_v3"], after: chainAfter },
  ],
  ["a token's activity", { source: TOKEN_ACTIVITY, filters: (r) => [addr(r)], after: chainAfter }],
  ...([undefined, "creator", "sniper", "insider", "launch_block_buyer"] as const).map(
    (tag): [string, Case] => [
      `a token's holders (${tag ?? "all"})`,
      {
        source: holdersSource(tag),
        filters: (r) => [addr(r), [wallet(r + 1000)], CREATOR],
        after: (r) => [10n ** 18n * BigInt(900 - 50 * r), wallet(r)],
      },
    ],
  ),
  ...(["volume", "pnl", "realized_pnl", "bought", "sold"] as const).map((sort): [string, Case] => [
    `a token's traders (${sort})`,
    {
      source: tokenTradersSource(sort),
      filters: (r) => [addr(r)],
      after: (r) => [10n ** 15n + BigInt(ROWS - 1000 * r), wallet(r)],
    },
  ]),
  [
    "a token's reward distributions",
    {
      source: TOKEN_REWARD_DISTRIBUTIONS,
      filters: (r) => [addr(r)],
      after: (r) => [BigInt(1000 + 200 * TOKENS - 100 * r), 0],
    },
  ],
  [
    "a wallet's rewards",
    {
      source: WALLET_REWARDS,
      filters: (r) => [wallet(r)],
      after: (r) => [BigInt(200 - r), `0xf${(200 * TOKENS - r).toString(16).padStart(63, "0")}`],
    },
  ],
];

describe("keyset page statements", () => {
  test.each(CASES)(
    "behavior: %s: the first page and the page after a cursor settle on the generic plan",
    async (_, { source, filters, after }) => {
      const client = await planSession(database.url, "auto");
      try {
        const { db, statements } = recordingDb(client);
        for (let r = 1; r <= RUNS; r++) {
          for (const position of [undefined, after(r)]) {
            const route = `generic-plans:${source.name}`;
            await readKeysetPage(db, source, {
              filters: filters(r),
              order: "desc",
              limit: [20, 50, 100, 10][r % 4] as number,
              cursor: position === undefined ? undefined : codec.encode(route, position),
              cursors: codec,
              route,
            });
          }
        }
        const names = [...new Set(statements.map((s) => s.name))];
        expect(names).toEqual([`qapi_${source.name}_desc_first`, `qapi_${source.name}_desc_after`]);
        const { rows } = await client.query<{ name: string; generic_plans: string; custom_plans: string }>(
          "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name = ANY($1) ORDER BY name DESC",
          [names],
        );
        // 5 custom plans, then the generic one for every later execution.
        expect(rows.map((p) => [p.name, Number(p.custom_plans), Number(p.generic_plans)])).toEqual(
          names.map((name) => [name, 5, RUNS - 5]),
        );
      } finally {
        await client.end();
      }
    },
    60_000,
  );
});
