// Every market rule of `@tmi/shared/market` that has a SQL form gives the same answer in
// TypeScript and in PostgreSQL on the same inputs (random ones from fast-check plus the edges),
// so the indexer (which applies the TypeScript form) and query-api (which reads through the SQL
// form) cannot drift apart. One `describe` per rule.
import {
  bucketStart,
  bucketStartSql,
  CANDLE_INTERVALS,
  CANDLE_INTERVALS_SQL,
  type CandleInterval,
  CHAIN_POSITION_COLUMNS,
  type ChainPosition,
  comparePositions,
  excludedHoldersSql,
  formatIndexedNotification,
  fullyDilutedValue,
  fullyDilutedValueSql,
  INDEXED_CHANNEL,
  type IndexedNotification,
  isExcludedHolder,
  type Lifecycle,
  PLATFORM_CONTRACT_COLUMNS,
  parseIndexedNotification,
  pricingSource,
  pricingSourceSql,
  progressBps,
  progressBpsSql,
  STATS_WINDOWS,
  type TokenPlatformContracts,
  type TradeSource,
  tradeVolume,
  valueAtPrice,
  valueAtPriceSql,
  volumeSql,
  windowStart,
  windowStartSql,
  ZERO_ADDRESS,
} from "@tmi/shared/market";
import { adminPool, testPostgresUrl } from "@tmi/testkit";
import fc from "fast-check";
import pg from "pg";
import { describe, expect, it } from "vitest";

const RUNS = { numRuns: 200, seed: 20 };
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

/** One row per input: `SELECT <expr> FROM unnest($1::<type>[]) WITH ORDINALITY` in input order. */
async function sqlMap<T>(
  type: string,
  inputs: readonly unknown[],
  expr: (v: string) => string,
): Promise<T[]> {
  const { rows } = await adminPool().query<{ out: T }>(
    `SELECT ${expr("u.v")} AS out FROM unnest($1::${type}[]) WITH ORDINALITY AS u(v, n) ORDER BY u.n`,
    [inputs],
  );
  return rows.map((r) => r.out);
}

describe("rule: candle buckets", () => {
  it("default: bucketStartSql = bucketStart for every interval", async () => {
    const timestamps = fc.sample(fc.integer({ min: 0, max: 2 ** 40 }), { numRuns: 300, seed: 20 });
    timestamps.push(0, 345_599, 345_600, 604_799, 1_795_608_000);
    const { rows } = await adminPool().query<{ ts: string; name: CandleInterval; start: string }>(
      `SELECT u.ts::text AS ts, iv.name, ${bucketStartSql("u.ts", "iv.size")}::text AS start
         FROM unnest($1::int8[]) AS u(ts) CROSS JOIN ${CANDLE_INTERVALS_SQL}`,
      [timestamps],
    );
    expect(rows).toHaveLength(timestamps.length * CANDLE_INTERVALS.length);
    for (const r of rows)
      expect(Number(r.start), `${r.name} ${r.ts}`).toBe(bucketStart(Number(r.ts), r.name));
  });
});

describe("rule: volume and its windows", () => {
  it("default: windowStartSql = windowStart for the stats windows and trending windows", async () => {
    const nows = fc.sample(fc.integer({ min: 0, max: 2 ** 34 }), { numRuns: 100, seed: 20 });
    nows.push(0, 86_399, 86_400, 1_795_608_000);
    const windows = [...STATS_WINDOWS.map((w) => w.seconds), 60, 1_000, 7_200, 43_200, 604_800];
    for (const seconds of windows) {
      const starts = await sqlMap<string>("int8", nows, (v) => `${windowStartSql(v, seconds)}::text`);
      expect(starts.map(Number)).toEqual(nows.map((now) => windowStart(now, seconds)));
    }
  });

  it("behavior: volumeSql sums what tradeVolume adds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(uint256, { maxLength: 20 }), async (values) => {
        const { rows } = await adminPool().query<{ v: string | null }>(
          `SELECT ${volumeSql("t")}::text AS v FROM unnest($1::numeric[]) AS t(curve_value)`,
          [values.map(String)],
        );
        const expected = values.reduce((sum, curveValue) => sum + tradeVolume({ curveValue }), 0n);
        expect(BigInt(rows[0]?.v ?? "0")).toBe(expected);
      }),
      { numRuns: 30, seed: 20 },
    );
  });
});

describe("rule: holder exclusion", () => {
  const address = fc.constantFrom("0x01", "0x02", "0x03", "0x04", "0x05", ZERO_ADDRESS);
  const contracts = fc.record<TokenPlatformContracts>({
    address: address,
    curve: address,
    pool: fc.option(address),
    feeManager: fc.option(address),
    graduationManager: fc.option(address),
    custodian: fc.option(address),
    escrow: fc.option(address),
    feeVault: fc.option(address),
    communityVault: fc.option(address),
    traderRewardsVault: fc.option(address),
  });

  it("default: holder <> ALL(excludedHoldersSql) = !isExcludedHolder", async () => {
    const columns = Object.entries(PLATFORM_CONTRACT_COLUMNS);
    const sql = `SELECT h.holder <> ALL(${excludedHoldersSql("t", "$1::text")}) AS holder
      FROM (SELECT ${columns.map(([, column], i) => `$${i + 2}::text AS ${column}`).join(", ")}) t,
           unnest($${columns.length + 2}::text[]) WITH ORDINALITY AS h(holder, n) ORDER BY h.n`;
    const holders = ["0x01", "0x02", "0x03", "0x04", "0x05", "0x06", ZERO_ADDRESS];
    await fc.assert(
      fc.asyncProperty(contracts, address, async (c, factory) => {
        const values = columns.map(([field]) => c[field as keyof TokenPlatformContracts]);
        const { rows } = await adminPool().query<{ holder: boolean }>(sql, [factory, ...values, holders]);
        expect(rows.map((r) => r.holder)).toEqual(holders.map((h) => !isExcludedHolder(h, c, factory)));
      }),
      { numRuns: 60, seed: 20 },
    );
  });
});

describe("rule: progress", () => {
  it("default: progressBpsSql = progressBps", async () => {
    const pairs = fc.sample(fc.tuple(uint256, fc.oneof(fc.constant(0n), uint256)), RUNS);
    pairs.push([0n, 0n], [800n, 800n], [900n, 800n], [799n, 800n], [400n * 10n ** 24n, 800n * 10n ** 24n]);
    const { rows } = await adminPool().query<{ bps: number }>(
      `SELECT ${progressBpsSql("u.s", "u.t")} AS bps
         FROM unnest($1::numeric[], $2::numeric[]) WITH ORDINALITY AS u(s, t, n) ORDER BY u.n`,
      [pairs.map((p) => String(p[0])), pairs.map((p) => String(p[1]))],
    );
    expect(rows.map((r) => r.bps)).toEqual(pairs.map(([s, t]) => progressBps(s, t)));
  });
});

describe("rule: pricing source", () => {
  it("default: pricingSourceSql = pricingSource for every lifecycle and latest trade source", async () => {
    const lifecycles: Lifecycle[] = ["active", "graduated"];
    const sources: (TradeSource | null)[] = ["curve", "uniswap_v3", null];
    const cases = lifecycles.flatMap((l) => sources.map((s) => [l, s] as const));
    const { rows } = await adminPool().query<{ source: string }>(
      `SELECT ${pricingSourceSql("u.l", "u.s")} AS source
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(l, s, n) ORDER BY u.n`,
      [cases.map((c) => c[0]), cases.map((c) => c[1])],
    );
    expect(rows.map((r) => r.source)).toEqual(cases.map(([l, s]) => pricingSource(l, s)));
  });
});

describe("rule: fully diluted value", () => {
  it("default: fullyDilutedValueSql = fullyDilutedValue", async () => {
    const pairs = fc.sample(fc.tuple(fc.option(uint256), uint256), RUNS);
    pairs.push([null, 10n ** 27n], [0n, 10n ** 27n], [1n, 10n ** 17n]);
    const { rows } = await adminPool().query<{ fdv: string | null }>(
      `SELECT ${fullyDilutedValueSql("u.p", "u.s")}::text AS fdv
         FROM unnest($1::numeric[], $2::numeric[]) WITH ORDINALITY AS u(p, s, n) ORDER BY u.n`,
      [pairs.map((p) => (p[0] === null ? null : String(p[0]))), pairs.map((p) => String(p[1]))],
    );
    expect(rows.map((r) => (r.fdv === null ? null : BigInt(r.fdv)))).toEqual(
      pairs.map(([p, s]) => fullyDilutedValue(p, s)),
    );
  });
});

describe("rule: value at price", () => {
  it("default: valueAtPriceSql = valueAtPrice (holdings' value, positions' unrealized pnl, fully diluted value)", async () => {
    const pairs = fc.sample(fc.tuple(uint256, uint256), RUNS);
    pairs.push([0n, 10n ** 27n], [10n ** 27n, 0n], [1n, 10n ** 17n], [10n ** 18n, 1n], [2n ** 256n - 1n, 1n]);
    const { rows } = await adminPool().query<{ value: string }>(
      `SELECT ${valueAtPriceSql("u.q", "u.p")}::text AS value
         FROM unnest($1::numeric[], $2::numeric[]) WITH ORDINALITY AS u(q, p, n) ORDER BY u.n`,
      [pairs.map((p) => String(p[0])), pairs.map((p) => String(p[1]))],
    );
    expect(rows.map((r) => BigInt(r.value))).toEqual(pairs.map(([q, p]) => valueAtPrice(q, p)));
    expect(pairs.map(([q, p]) => fullyDilutedValue(p, q))).toEqual(pairs.map(([q, p]) => valueAtPrice(q, p)));
  });
});

describe("rule: position order", () => {
  it("default: ORDER BY CHAIN_POSITION_COLUMNS = sort by comparePositions (both directions)", async () => {
    const position = fc.record<ChainPosition>({
      blockNumber: fc.integer({ min: 0, max: 3 }),
      transactionIndex: fc.integer({ min: 0, max: 3 }),
      logIndex: fc.integer({ min: 0, max: 3 }),
      transactionHash: fc.constantFrom("0x0a", "0x0b", "0xa0", "0x1f", "0xff"),
    });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(position, { minLength: 1, maxLength: 30 }), async (positions) => {
        for (const direction of ["asc", "desc"] as const) {
          const { rows } = await adminPool().query<{ n: string }>(
            `SELECT p.n::text AS n
               FROM unnest($1::int8[], $2::int4[], $3::int4[], $4::text[]) WITH ORDINALITY
                 AS p(block_number, transaction_index, log_index, transaction_hash, n)
              ORDER BY ${CHAIN_POSITION_COLUMNS.map((c) => `p.${c.column} ${direction}`).join(", ")}`,
            [
              positions.map((p) => p.blockNumber),
              positions.map((p) => p.transactionIndex),
              positions.map((p) => p.logIndex),
              positions.map((p) => p.transactionHash),
            ],
          );
          const sign = direction === "asc" ? 1 : -1;
          const expected = positions
            .map((p, i) => ({ p, n: i + 1 }))
            .sort((a, b) => sign * comparePositions(a.p, b.p))
            .map((x) => String(x.n));
          expect(rows.map((r) => r.n)).toEqual(expected);
        }
      }),
      { numRuns: 40, seed: 20 },
    );
  });
});

describe("rule: indexed notification", () => {
  it("default: what the indexer NOTIFYs is what the stream parses", async () => {
    const listener = new pg.Client({ connectionString: testPostgresUrl() });
    await listener.connect();
    try {
      const received: string[] = [];
      listener.on("notification", (m) => {
        if (m.channel === INDEXED_CHANNEL && m.payload !== undefined) received.push(m.payload);
      });
      await listener.query(`LISTEN ${INDEXED_CHANNEL}`);
      const sent: IndexedNotification[] = [
        { from_block: 1, to_block: 2 },
        { from_block: 5, to_block: 5, reorg: { from_block: 4, to_block: 9 } },
      ];
      for (const n of sent) {
        await adminPool().query("SELECT pg_notify($1, $2)", [INDEXED_CHANNEL, formatIndexedNotification(n)]);
      }
      await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(sent.length);
      const parsed = received.map(parseIndexedNotification);
      for (const n of sent) expect(parsed).toContainEqual(n);
    } finally {
      await listener.end();
    }
  });
});
