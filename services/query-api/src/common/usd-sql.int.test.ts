import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { weiToUsd } from "../../test/usd-reference.js";
import { createReadPool } from "../db.js";
import { LATEST_ETH_USD_ANSWER_SQL, tokenUsdJsonSql, tradeReserveUsdSql, usdAmountSql } from "./usd-sql.js";

let db: TestDatabase;
let writer: pg.Pool;
let reader: pg.Pool;

async function answer(block: number, logIndex: number, value: bigint, round: number): Promise<void> {
  await writer.query(
    "INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at) VALUES ($1, $2, $3, $4, $5)",
    [block, logIndex, round, value.toString(), 1_700_000_000 + block],
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  writer = new pg.Pool({ connectionString: db.url, max: 2 });
  writer.on("error", () => {});
  reader = createReadPool({ url: db.url, max: 2 });
});

afterAll(async () => {
  await reader?.end();
  await writer?.end();
  await db?.drop();
});

/** The latest positive answer, as the statements read it. */
async function latestAnswer(): Promise<bigint | null> {
  const { rows } = await reader.query<{ answer: string | null }>(
    `SELECT ${LATEST_ETH_USD_ANSWER_SQL}::text AS answer`,
  );
  return rows[0]?.answer == null ? null : BigInt(rows[0].answer);
}

describe("USD values from indexed ETH/USD answers", () => {
  it("default", async () => {
    expect(await latestAnswer()).toBeNull();
    await answer(10, 0, 3_000_00000000n, 1); // $3,000.00000000
    await answer(20, 5, 3_500_12345678n, 2);
    await answer(20, 9, -1n, 3); // never valid
    expect(await latestAnswer()).toBe(3_500_12345678n);
    const token = await reader.query<{ usd: unknown }>(
      `SELECT ${tokenUsdJsonSql("t")} AS usd FROM (SELECT 1000000000::numeric AS current_price,
         1000000000000000000::numeric AS fully_diluted_value, 2500000000000000000::numeric AS volume) t`,
    );
    expect(token.rows[0]?.usd).toEqual({
      price: "0.00000350012345678",
      fully_diluted_value: "3500.12345678",
      volume: "8750.30864195",
    });
  });

  it("behavior: a trade's reserve_amount_usd uses the answer in force at its position", async () => {
    const { rows } = await reader.query<{ usd: string | null }>(
      `SELECT ${tradeReserveUsdSql("r")} AS usd FROM (VALUES
         (100000000000000000::numeric, 5::bigint, 0), (100000000000000000, 10, 0), (100000000000000000, 20, 4),
         (100000000000000000, 20, 6), (100000000000000000, 99, 0)) AS r(reserve_amount, block_number, log_index)`,
    );
    expect(rows.map((row) => row.usd)).toEqual([null, "300", "300", "350.012345678", "350.012345678"]);
  });

  it("behavior: the SQL fragments give exactly the values of the TypeScript helpers", async () => {
    const values = [
      0n,
      1n,
      12_345n,
      35_000_000_000n,
      10n ** 18n,
      5_076_142_131_979_695_432n,
      10n ** 27n,
      (1n << 255n) - 1n,
    ];
    const answer = (await latestAnswer())!;
    for (const wei of values) {
      const { rows } = await reader.query<{ usd: string }>(
        `SELECT ${usdAmountSql("$1::numeric", LATEST_ETH_USD_ANSWER_SQL)} AS usd`,
        [wei.toString()],
      );
      expect(rows[0]?.usd, String(wei)).toBe(weiToUsd(wei, answer));
    }
    const token = await reader.query<{ usd: unknown }>(
      `SELECT ${tokenUsdJsonSql("t")} AS usd FROM (SELECT 35000000000::numeric AS current_price,
         NULL::numeric AS fully_diluted_value, 5076142131979695432::numeric AS volume) t`,
    );
    expect(token.rows[0]?.usd).toEqual({
      price: weiToUsd(35_000_000_000n, answer),
      fully_diluted_value: null,
      volume: weiToUsd(5_076_142_131_979_695_432n, answer),
    });
    const trades = await reader.query<{ usd: string | null }>(
      `SELECT ${tradeReserveUsdSql("r")} AS usd FROM (VALUES (500000000000000000::numeric, 15::bigint, 0), (1::numeric, 3::bigint, 0))
         AS r(reserve_amount, block_number, log_index)`,
    );
    expect(trades.rows.map((row) => row.usd)).toEqual(["1500", null]);
  });
});
