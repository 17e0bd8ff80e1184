import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadPool } from "../../db.js";
import {
  positionKey,
  readEthUsdAt,
  readLatestEthUsd,
  tokenUsd,
  weiToUsd,
  withTokenUsd,
  withTradeUsd,
} from "./usd-queries.js";
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

describe("USD values from indexed ETH/USD answers", () => {
  it("default", async () => {
    expect(await readLatestEthUsd(reader)).toBeNull();
    await answer(10, 0, 3_000_00000000n, 1); // $3,000.00000000
    await answer(20, 5, 3_500_12345678n, 2);
    await answer(20, 9, -1n, 3); // never valid
    const latest = await readLatestEthUsd(reader);
    expect(latest).toMatchObject({ answer: 3_500_12345678n, roundId: 2n, blockNumber: 20n, logIndex: 5 });

    // Token values at the latest answer: price 1e9 wei per token, FDV 1e18 wei (1 ETH), volume 2.5 ETH.
    expect(
      tokenUsd(
        { currentPrice: 1_000_000_000n, fullyDilutedValue: 10n ** 18n, volume: 25n * 10n ** 17n },
        latest,
      ),
    ).toEqual({
      price: "0.00000350012345678",
      fully_diluted_value: "3500.12345678",
      volume: "8750.30864195",
    });
    expect(tokenUsd({ currentPrice: null, fullyDilutedValue: null, volume: 0n }, latest)).toEqual({
      price: null,
      fully_diluted_value: null,
      volume: "0",
    });
    expect(tokenUsd({ currentPrice: 1n, fullyDilutedValue: 1n, volume: 1n }, null)).toBeNull();
  });

  it("behavior: a trade's reserve_amount_usd uses the answer in force at its position", async () => {
    const at = await readEthUsdAt(reader, [
      { blockNumber: 5n, logIndex: 0 }, // before any answer
      { blockNumber: 10n, logIndex: 0 }, // same position as the first answer
      { blockNumber: 20n, logIndex: 4 }, // before the second answer in its block
      { blockNumber: 20n, logIndex: 6 },
      { blockNumber: 99n, logIndex: 0 }, // after the invalid answer: still the last valid one
    ]);
    expect(at.has(positionKey(5n, 0))).toBe(false);
    expect(at.get(positionKey(10n, 0))).toBe(3_000_00000000n);
    expect(at.get(positionKey(20n, 4))).toBe(3_000_00000000n);
    expect(at.get(positionKey(20n, 6))).toBe(3_500_12345678n);
    expect(at.get(positionKey(99n, 0))).toBe(3_500_12345678n);
    expect(weiToUsd(10n ** 17n, at.get(positionKey(10n, 0)))).toBe("300");
    expect(weiToUsd(1n, 1n)).toBe("0.00000000000000000000000001");
    expect(weiToUsd(0n, 5n)).toBe("0");
    expect(weiToUsd(null, 5n)).toBeNull();
  });

  it("behavior: wiring helpers add usd to wire tokens and reserve_amount_usd to wire trades", async () => {
    const latest = await readLatestEthUsd(reader);
    const [item] = withTokenUsd(
      [
        {
          address: "0x1",
          metrics: { current_price: "2000000000", fully_diluted_value: null, volume: "1000000000000000000" },
        },
      ],
      latest,
    );
    expect(item).toEqual({
      address: "0x1",
      metrics: { current_price: "2000000000", fully_diluted_value: null, volume: "1000000000000000000" },
      usd: { price: "0.00000700024691356", fully_diluted_value: null, volume: "3500.12345678" },
    });
    const trades = await withTradeUsd(reader, [
      { reserve_amount: "500000000000000000", block_number: 15, log_index: 0 },
      { reserve_amount: "500000000000000000", block_number: 3, log_index: 0 },
    ]);
    expect(trades.map((t) => t.reserve_amount_usd)).toEqual(["1500", null]);
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
    const answer = (await readLatestEthUsd(reader))!.answer;
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
    expect(token.rows[0]?.usd).toEqual(
      tokenUsd(
        { currentPrice: 35_000_000_000n, fullyDilutedValue: null, volume: 5_076_142_131_979_695_432n },
        { answer },
      ),
    );
    const trades = await reader.query<{ usd: string | null }>(
      `SELECT ${tradeReserveUsdSql("r")} AS usd FROM (VALUES (500000000000000000::numeric, 15::bigint, 0), (1::numeric, 3::bigint, 0))
         AS r(reserve_amount, block_number, log_index)`,
    );
    expect(trades.rows.map((row) => row.usd)).toEqual(["1500", null]);
  });
});
