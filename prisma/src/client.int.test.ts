import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDb,
  createReadOnlyDb,
  type Db,
  decimalToBigInt,
  type ReadOnlyDb,
  toPrismaDecimal,
} from "./client.js";
import { createPgPool } from "./pool.js";

const MAX_UINT256 = 2n ** 256n - 1n;
let database: TestDatabase;
let db: Db;
let readOnly: ReadOnlyDb;

const token = (address: string) => ({
  address,
  chainId: 31337,
  creator: "0x00000000000000000000000000000000000000c1",
  name: "Test",
  symbol: "TST",
  searchName: "test",
  searchSymbol: "tst",
  initialSupply: toPrismaDecimal(10n ** 27n),
  createdBlockNumber: 12n,
  createdTransactionIndex: 0,
  createdTransactionHash: `0x${"ab".repeat(32)}`,
  createdLogIndex: 3,
  createdAt: 1_700_000_000n,
  curveAddress: `0x${"c".repeat(38)}${address.slice(-2)}`,
  reserveBalance: toPrismaDecimal(MAX_UINT256),
  virtualTokenReserve: toPrismaDecimal(1_066_666_666_666_666_666_666_666_667n),
  virtualEthReserve: toPrismaDecimal(10n ** 18n),
  graduationThreshold: toPrismaDecimal(800_000_000n * 10n ** 18n),
  updatedBlockNumber: 12n,
});

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb({ url: database.url, max: 2 });
  readOnly = createReadOnlyDb({ url: database.url, max: 2 });
});

afterAll(async () => {
  await db?.$disconnect();
  await readOnly?.$disconnect();
  await database?.drop();
});

describe("createDb", () => {
  it("default", async () => {
    await db.token.create({ data: token("0x00000000000000000000000000000000000000a1") });
    const row = await db.token.findUniqueOrThrow({
      where: { address: "0x00000000000000000000000000000000000000a1" },
    });
    expect(decimalToBigInt(row.reserveBalance)).toBe(MAX_UINT256);
    expect(row.reserveBalance.toFixed()).toBe(MAX_UINT256.toString());
    expect(row.createdBlockNumber).toBe(12n);
    expect(row.lifecycle).toBe("active");
    expect(decimalToBigInt(row.volume)).toBe(0n);
    expect(decimalToBigInt(row.currentPrice)).toBeNull();
  });

  it("behavior: trending entries are deleted with their snapshot", async () => {
    const snapshot = await db.trendingSnapshot.create({
      data: {
        windowSeconds: 86_400,
        asOfBlockNumber: 1n,
        asOfTimestamp: 1n,
        entries: {
          create: [
            {
              rank: 1,
              tokenAddress: "0x01",
              windowVolume: toPrismaDecimal(5n),
              windowTradeCount: 1,
              windowUniqueTraders: 1,
            },
          ],
        },
      },
    });
    await db.trendingSnapshot.delete({ where: { id: snapshot.id } });
    expect(await db.trendingEntry.count({ where: { snapshotId: snapshot.id } })).toBe(0);
  });

  it("error: a CHECK constraint rejects an unknown trade side", async () => {
    await expect(
      db.$executeRaw`INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp,
        token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee)
        VALUES (1, 0, 0, '0x', 1, '0x01', '0x02', 'hold', 'curve', 1, 1, 1, 0, 0)`,
    ).rejects.toThrow(/trades_side_check/);
  });
});

describe("createReadOnlyDb", () => {
  it("default", async () => {
    await db.token.create({ data: token("0x00000000000000000000000000000000000000a2") });
    const rows = await readOnly.token.findMany({ orderBy: { address: "asc" } });
    expect(rows.map((r) => r.address)).toContain("0x00000000000000000000000000000000000000a2");
    const [count] = await readOnly.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM tokens`;
    expect(count?.n).toBeGreaterThanOrEqual(2n);
    const total = await readOnly.$transaction(async (tx) => tx.token.count(), {
      isolationLevel: "RepeatableRead",
    });
    expect(total).toBeGreaterThanOrEqual(2);
  });

  it("error: writes are refused by the server", async () => {
    // The type has no write methods; a raw write is refused by PostgreSQL (read-only transaction).
    await expect(
      readOnly.$queryRaw`INSERT INTO excluded_addresses (address, kind, reason) VALUES ('0x1', 'token', 'x') RETURNING 1`,
    ).rejects.toThrow(/read-only/);
    // @ts-expect-error create is not part of ReadOnlyDb
    expect(readOnly.token.create).toBeTypeOf("function"); // present at runtime, hidden from the type
  });
});

describe("createPgPool", () => {
  it("default", async () => {
    const pool = createPgPool({ url: database.url, max: 2, applicationName: "tmi-db-test" });
    try {
      const { rows } = await pool.query(
        "SELECT 9007199254740993::int8 AS big, $1::numeric AS amount, 7::int4 AS small, ARRAY[1,2]::int8[] AS list, current_setting('application_name') AS app",
        [MAX_UINT256],
      );
      expect(rows[0]).toEqual({
        big: 9007199254740993n,
        amount: MAX_UINT256.toString(),
        small: 7,
        list: [1n, 2n],
        app: "tmi-db-test",
      });
    } finally {
      await pool.end();
    }
  });

  it("behavior: readOnly pools refuse writes", async () => {
    const pool = createPgPool({ url: database.url, max: 1, readOnly: true });
    try {
      await expect(pool.query("CREATE TABLE nope (x int)")).rejects.toMatchObject({ code: "25006" });
    } finally {
      await pool.end();
    }
  });
});
