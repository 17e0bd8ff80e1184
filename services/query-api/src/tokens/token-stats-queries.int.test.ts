import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertToken, insertTrade, testAddress, upsertCheckpoint } from "../../test/fixtures.js";
import type { SqlReader } from "../db.js";
import { createReadPool } from "../db.js";
import { CHECKPOINT_NOW_SQL, tokenStatsJsonSql } from "./token-stats-queries.js";
import type { TokenStats } from "./token-stats-schemas.js";

/** Every window of `token` in one query; `now` defaults to the checkpoint's block timestamp. */
async function readTokenStats(db: SqlReader, token: string, now?: number): Promise<TokenStats> {
  const { rows } = await db.query<{ stats: TokenStats }>(
    `SELECT ${tokenStatsJsonSql("$1::text", `COALESCE($2::int8, ${CHECKPOINT_NOW_SQL})`)} AS stats`,
    [token, now === undefined ? null : String(now)],
  );
  return rows[0]!.stats;
}

const NOW = 1_763_712_000; // a multiple of 900: bucket edges are easy to reason about
const token = testAddress(0x51);
const [alice, bob, carol] = [testAddress(1, "e"), testAddress(2, "e"), testAddress(3, "e")];

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;
let block = 100n;

/** A trade `ago` seconds before NOW at price `price` wei per token (reserve fixed at 0.1 ETH). */
async function trade(ago: number, trader: string, side: "buy" | "sell", price: bigint): Promise<void> {
  block += 1n;
  const reserve = 10n ** 17n;
  await insertTrade(writer, {
    token,
    trader,
    side,
    block,
    logIndex: 0,
    timestamp: BigInt(NOW - ago),
    reserve,
    tokens: (reserve * 10n ** 18n) / price,
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
  await insertToken(writer, { address: token, block: 100n, timestamp: BigInt(NOW - 200_000) });
  await trade(90_000, alice, "buy", 1_000n); // before every window (25 h ago)
  await trade(20_000, bob, "buy", 2_000n); // in 6h and 24h
  await trade(1_000, carol, "sell", 4_000n); // in 1h, 6h, 24h
  await trade(100, alice, "buy", 5_000n); // in all
  await trade(30, alice, "sell", 5_000n); // in all
  await upsertCheckpoint(writer, { block, timestamp: BigInt(NOW) });
});

afterAll(async () => {
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

describe("token window stats from the candle rollups", () => {
  it("default", async () => {
    const stats = await readTokenStats(reader, token);
    const r = (n: number) => (10n ** 17n * BigInt(n)).toString();
    expect(Object.keys(stats)).toEqual(["5m", "15m", "30m", "1h", "6h", "24h"]);
    const fiveMinutes = {
      volume: r(2),
      buy_volume: r(1),
      sell_volume: r(1),
      net_volume: "0",
      trade_count: 2,
      buy_count: 1,
      sell_count: 1,
      unique_buyers: 1,
      unique_sellers: 1,
      unique_traders: 1,
      price_change_bps: 2_500, // 4,000 → 5,000
    };
    expect(stats["5m"]).toEqual(fiveMinutes);
    // 15m and 30m (1m buckets) hold the same two trades (100 s and 30 s ago): the sell 1,000 s ago is older.
    expect(stats["15m"]).toEqual(fiveMinutes);
    expect(stats["30m"]).toEqual({
      volume: r(3),
      buy_volume: r(1),
      sell_volume: r(2),
      net_volume: `-${r(1)}`,
      trade_count: 3,
      buy_count: 1,
      sell_count: 2,
      unique_buyers: 1,
      unique_sellers: 2,
      unique_traders: 2,
      price_change_bps: 15_000, // 2,000 → 5,000
    });
    expect(stats["1h"]).toEqual(stats["30m"]);
    expect(stats["6h"]).toMatchObject({
      trade_count: 4,
      buy_volume: r(2),
      sell_volume: r(2),
      net_volume: "0",
      unique_buyers: 2,
      unique_sellers: 2,
      unique_traders: 3,
      price_change_bps: 40_000,
    });
    expect(stats["24h"]).toMatchObject({ trade_count: 4, volume: r(4), price_change_bps: 40_000 }); // 1,000 → 5,000
  });

  it("behavior: no price before the window gives a null change; empty windows are zeros", async () => {
    const fresh = testAddress(0x52);
    await insertToken(writer, { address: fresh, block: 150n, timestamp: BigInt(NOW - 50) });
    const stats = await readTokenStats(reader, fresh);
    expect(stats["24h"]).toEqual({
      volume: "0",
      buy_volume: "0",
      sell_volume: "0",
      net_volume: "0",
      trade_count: 0,
      buy_count: 0,
      sell_count: 0,
      unique_buyers: 0,
      unique_sellers: 0,
      unique_traders: 0,
      price_change_bps: null,
    });
    // An explicit "now" far later: every window is empty, the change is 0 (same price before and now).
    const later = await readTokenStats(reader, token, NOW + 200_000);
    expect(later["24h"]).toMatchObject({ trade_count: 0, price_change_bps: 0 });
  });
});
