// Samples of the `pnpm bench api` data set (api-data-lib.ts) for the routes under load: tokens
// with trades, the hot token and deep cursors into it, creators, wallets, search terms, discovery
// cursors, batches, market-wide cursors and the chart's `to`. Shared by `api` and `api-plans`.
import pg from "pg";
import type { CursorCodec } from "../packages/shared/src/codec/index.js";
import { pnlSql } from "../services/query-api/src/common/position-sql.js";
import { type BenchDatabase, ensureBenchDatabase } from "./api-data-lib.js";
import type { BenchArgs } from "./bench-args-lib.js";

/** The PostgreSQL server the bench databases are made on. */
export const ADMIN_URL = process.env.TMI_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

/**
 * The bench data set of `--database=<name>` (`database` by default), `--tokens=<n>` (10,000),
 * `--trades=<n>` (1,000,000), built when missing or of an older builder (`--rebuild`: always);
 * one of this builder at another size is refused (an error naming its size), never replaced.
 */
export function openBenchData(
  args: BenchArgs,
  database: string,
  log: (line: string) => void,
): Promise<BenchDatabase> {
  return ensureBenchDatabase({
    adminUrl: ADMIN_URL,
    name: args.get("database") ?? database,
    tokens: args.num("tokens", 10_000),
    trades: args.num("trades", 1_000_000),
    rebuild: args.has("rebuild"),
    log,
  });
}

/**
 * The position `[holder_count, address]` in the middle of the holders sort's largest tie group
 * (most tokens share a holder count: 900,000 of the 1M set): a page deep inside a tie group
 * (docs/api.md "Discovery"), read with `pick` (a query returning rows).
 */
export async function holdersTieMiddle(
  pick: (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>,
): Promise<[number, string]> {
  const tie = (
    await pick("SELECT holder_count AS v FROM tokens GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
  )[0] as { v: number };
  // The first address of the group from 0x8 on: about its middle (addresses are uniform hashes),
  // read from the primary key (an OFFSET into 450,000 rows outlasts the read session's timeout).
  const middle = (
    await pick(
      "SELECT address FROM tokens WHERE holder_count = $1 AND address >= '0x8' ORDER BY address LIMIT 1",
      [tie.v],
    )
  )[0] as { address: string };
  return [tie.v, middle.address];
}

/** The samples the routes rotate over, read from the data set at `url`; cursors made with `codec`. */
export async function pickApiSamples(url: string, codec: CursorCodec) {
  const setup = new pg.Pool({ connectionString: url, max: 2 });
  const pick = async (sql: string, values: unknown[] = []) => (await setup.query(sql, values)).rows;
  /** The first row of `sql` (`OFFSET $1`) at each offset. */
  const rowsAt = (sql: string, offsets: number[]) =>
    Promise.all(offsets.map(async (offset) => (await pick(sql, [offset]))[0]));
  try {
    const tokens: string[] = (
      await pick("SELECT address FROM tokens WHERE trade_count > 0 ORDER BY md5(address) LIMIT 1000")
    ).map((r) => r.address);
    const hot: string = (await pick("SELECT address FROM tokens ORDER BY trade_count DESC LIMIT 1"))[0]
      .address;
    const hotCount: number = (await pick("SELECT trade_count FROM tokens WHERE address = $1", [hot]))[0]
      .trade_count;
    const creators: string[] = (
      await pick("SELECT address FROM creators ORDER BY md5(address) LIMIT 500")
    ).map((r) => r.address);
    const deepTrades: { cursor: string; position: [bigint, number, number, string] }[] = [];
    for (const offset of [
      Math.floor(hotCount * 0.5),
      Math.floor(hotCount * 0.75),
      Math.floor(hotCount * 0.9),
      hotCount - 30,
    ]) {
      const row = (
        await pick(
          `SELECT block_number, transaction_index, log_index, transaction_hash FROM trades WHERE token_address = $1
           ORDER BY block_number DESC, transaction_index DESC, log_index DESC, transaction_hash DESC OFFSET $2 LIMIT 1`,
          [hot, offset],
        )
      )[0];
      const position: [bigint, number, number, string] = [
        BigInt(row.block_number),
        row.transaction_index,
        row.log_index,
        row.transaction_hash,
      ];
      deepTrades.push({ cursor: codec.encode(`tokens.trades:${hot}:desc`, position), position });
    }
    const deepActivity = deepTrades.map((d) => ({
      cursor: codec.encode(`tokens.activity:${hot}:desc`, d.position),
      position: d.position,
    }));
    const deepNewest = (
      await rowsAt(
        "SELECT created_block_number, created_log_index FROM tokens ORDER BY created_block_number DESC, created_log_index DESC OFFSET $1 LIMIT 1",
        [2000, 5000, 8000],
      )
    ).map((row) => {
      const position: [bigint, number] = [BigInt(row.created_block_number), row.created_log_index];
      return { cursor: codec.encode("tokens?search=", position), position };
    });
    // Wallets with positions (random ones and the ones with the most positions), a deep traders cursor.
    const wallets: string[] = (
      await pick(
        "SELECT trader FROM (SELECT DISTINCT trader FROM positions) p ORDER BY md5(trader) LIMIT 500",
      )
    ).map((r) => r.trader);
    const busyWallets: string[] = (
      await pick("SELECT trader FROM positions GROUP BY trader ORDER BY count(*) DESC, trader LIMIT 20")
    ).map((r) => r.trader);
    const hotTraders: number = (
      await pick("SELECT count(*)::int AS n FROM positions WHERE token_address = $1", [hot])
    )[0].n;
    const deepTrader = (
      await pick(
        "SELECT volume, trader FROM positions WHERE token_address = $1 ORDER BY volume DESC, trader OFFSET $2 LIMIT 1",
        [hot, Math.floor(hotTraders * 0.9)],
      )
    )[0];
    const deepTradersCursor = codec.encode(`tokens.traders:${hot}:volume`, [
      BigInt(deepTrader.volume),
      deepTrader.trader,
    ]);
    // A cursor 90 % into the hot token's traders by pnl (the order of tokenTradersSource("pnl")).
    const deepPnl = (
      await pick(
        `SELECT ${pnlSql()}::text AS k, p.trader FROM positions p JOIN tokens t ON t.address = p.token_address
         WHERE p.token_address = $1 ORDER BY ${pnlSql()} DESC, p.trader OFFSET $2 LIMIT 1`,
        [hot, Math.floor(hotTraders * 0.9)],
      )
    )[0];
    const deepPnlCursor = codec.encode(`tokens.traders:${hot}:pnl`, [BigInt(deepPnl.k), deepPnl.trader]);
    const searches = ["pepe", "moon 1", "doge 52", "turbo 9", "giga", "cat 77", "0xab", "0x1f"];
    // A cursor 500 matches deep into the newest-first search of "pepe".
    const pepe = (
      await pick(
        `SELECT created_block_number, created_log_index FROM tokens WHERE search_name LIKE 'pepe%'
         ORDER BY created_block_number DESC, created_log_index DESC OFFSET 500 LIMIT 1`,
      )
    )[0];
    const searchDeep = {
      search: "pepe",
      cursor: codec.encode("tokens?search=pepe", [BigInt(pepe.created_block_number), pepe.created_log_index]),
    };
    const snapshotId = BigInt((await pick("SELECT max(id) AS id FROM trending_snapshots"))[0].id);
    const trendingCursor = codec.encode("tokens.trending", [snapshotId, 40]);
    // Discovery samples: deep market-cap cursors, the volume_24h tail, batches of 100, deep market-wide trades.
    const deepMarketCap = (
      await rowsAt(
        "SELECT coalesce(fully_diluted_value, -1)::text AS v, address FROM tokens ORDER BY coalesce(fully_diluted_value, -1) DESC, address LIMIT 1 OFFSET $1",
        [2000, 5000, 8000],
      )
    ).map((row) => codec.encode("tokens?sort=market_cap&phase=&search=", [BigInt(row.v), row.address]));
    const holdersTieDeep = codec.encode("tokens?sort=holders&phase=&search=", await holdersTieMiddle(pick));
    const middle = (await pick("SELECT address FROM tokens ORDER BY address LIMIT 1 OFFSET 5000"))[0].address;
    const volumeTailCursor = codec.encode("tokens?sort=volume_24h&phase=&search=", [snapshotId, middle]);
    const all: string[] = (await pick("SELECT address FROM tokens ORDER BY md5(address) LIMIT 1000")).map(
      (r) => r.address,
    );
    const batches = Array.from({ length: 10 }, (_, i) => all.slice(i * 100, i * 100 + 100));
    const deepMarket: string[] = [];
    for (const offset of [100_000, 500_000, 900_000]) {
      const row = (
        await pick(
          `SELECT block_number, transaction_index, log_index, transaction_hash FROM trades
           ORDER BY block_number DESC, transaction_index DESC, log_index DESC, transaction_hash DESC OFFSET $1 LIMIT 1`,
          [offset],
        )
      )[0];
      deepMarket.push(
        codec.encode("trades:all:desc", [
          BigInt(row.block_number),
          row.transaction_index,
          row.log_index,
          row.transaction_hash,
        ]),
      );
    }
    // `to` of the time-ranged charts: the latest indexed block's time (what a chart asks for on open).
    const chartTo = Number(
      (await pick("SELECT block_timestamp FROM indexer_checkpoints LIMIT 1"))[0].block_timestamp,
    );
    const sizes = (
      await pick(`SELECT (SELECT count(*) FROM tokens) AS tokens, (SELECT count(*) FROM trades) AS trades,
      (SELECT count(*) FROM chain_events) AS events, (SELECT count(*) FROM candles) AS candles`)
    )[0];
    return {
      tokens,
      hot,
      creators,
      deepTrades,
      deepActivity,
      deepNewest,
      wallets,
      busyWallets,
      deepTradersCursor,
      deepPnlCursor,
      searches,
      snapshotId,
      trendingCursor,
      deepMarketCap,
      holdersTieDeep,
      middle,
      volumeTailCursor,
      batches,
      deepMarket,
      chartTo,
      sizes,
      searchDeep,
    };
  } finally {
    await setup.end();
  }
}

/** What {@link pickApiSamples} reads. */
export type ApiSamples = Awaited<ReturnType<typeof pickApiSamples>>;
