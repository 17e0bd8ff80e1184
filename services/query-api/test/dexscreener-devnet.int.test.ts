// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// The DEX Screener adapter over the real pipeline: a devnet with launches, buys and sells in
// several blocks (two tokens, a block holding trades of both), indexed by the real indexer; the
// adapter's latest-block, asset, pair and events are checked against the indexed rows: events over
// the whole range and over split ranges equal the indexed curve trades, with reserves recomputed
// here from every earlier trade of the token (and the last reserves equal to the indexed curve
// state); each 4xx; every body against the OpenAPI document.

import { createTrader, type Devnet, rpc, startDevnet, type Trader } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import {
  createTestDatabase,
  devnetIndexerOptions,
  type IndexerProcess,
  indexToHead,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import { createReadPool } from "../src/db.js";
import { openApiValidator } from "./harness.js";

const ETH = 10n ** 18n;
const CURVE_ALLOCATION = 800_000_000n * ETH;

let devnet: Devnet;
let database: TestDatabase;
let indexer: IndexerProcess;
let pool: pg.Pool;
let app: Awaited<ReturnType<typeof buildApp>>;
let check: (path: string, status: number, body: unknown) => void;
const tokens: { token: `0x${string}`; curve: `0x${string}` }[] = [];

/** `value` base units as whole units (18 decimals), trailing zeros trimmed; computed independently. */
function units(value: bigint): string {
  const whole = value / ETH;
  const fraction = (value % ETH).toString().padStart(18, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

interface TradeRow {
  block_number: string;
  block_timestamp: string;
  transaction_hash: string;
  transaction_index: number;
  log_index: number;
  token_address: string;
  trader: string;
  side: "buy" | "sell";
  token_amount: string;
  reserve_amount: string;
  curve_value: string;
  price: string;
  curve_address: string;
}

/** The swap events the indexed curve trades stand for, in chain order, reserves summed from the first trade. */
async function expectedEvents(): Promise<any[]> {
  const { rows } = await pool.query<TradeRow>(
    `SELECT r.block_number::text, r.block_timestamp::text, r.transaction_hash, r.transaction_index, r.log_index,
            r.token_address, r.trader, r.side, r.token_amount::text, r.reserve_amount::text, r.curve_value::text,
            r.price::text, t.curve_address
       FROM trades r JOIN tokens t ON t.address = r.token_address
      WHERE r.source = 'curve' ORDER BY r.block_number, r.transaction_index, r.log_index`,
  );
  const state = new Map<string, { sold: bigint; eth: bigint }>();
  return rows.map((r) => {
    const s = state.get(r.token_address) ?? { sold: 0n, eth: 0n };
    const sign = r.side === "buy" ? 1n : -1n;
    s.sold += sign * BigInt(r.token_amount);
    s.eth += sign * BigInt(r.curve_value);
    state.set(r.token_address, s);
    const tokens = units(BigInt(r.token_amount));
    const eth = units(BigInt(r.reserve_amount));
    return {
      block: { blockNumber: Number(r.block_number), blockTimestamp: Number(r.block_timestamp) },
      eventType: "swap",
      txnId: r.transaction_hash,
      txnIndex: r.transaction_index,
      eventIndex: r.log_index,
      maker: r.trader,
      pairId: r.curve_address,
      ...(r.side === "buy" ? { asset1In: eth, asset0Out: tokens } : { asset0In: tokens, asset1Out: eth }),
      priceNative: units(BigInt(r.price)),
      reserves: { asset0: units(CURVE_ALLOCATION - s.sold), asset1: units(s.eth) },
    };
  });
}

async function get(url: string, status = 200): Promise<any> {
  const res = await app.inject({ url });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
  return res.json();
}

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine" });
  const [a, b] = [1, 2].map((account) =>
    createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
  ) as [Trader, Trader];
  const one = await a.createToken("Dex One", "DEX1", { value: ETH / 10n });
  const two = await b.createToken("Dex Two", "DEX2", { value: ETH / 20n });
  tokens.push({ token: one.token, curve: one.curve }, { token: two.token, curve: two.curve });
  await b.buy(one.token, ETH / 7n);
  await a.sell(one.token, 1_000_000n * ETH);
  // One block holding trades of both tokens: both sent while mining is off, mined together once
  // the pool holds both.
  await rpc(devnet.rpcUrl, "evm_setAutomine", [false]);
  const pending = [a.buy(two.token, ETH / 9n), b.buy(one.token, ETH / 11n)];
  await waitFor(async () => {
    const status = await rpc<{ pending: string }>(devnet.rpcUrl, "txpool_status");
    return Number(status.pending) >= 2;
  });
  await rpc(devnet.rpcUrl, "evm_mine", []);
  await Promise.all(pending);
  await rpc(devnet.rpcUrl, "evm_setAutomine", [true]);
  await b.sell(one.token, 500_000n * ETH);
  await b.sell(two.token, 123_456n * ETH + 789n);
  await a.buy(one.token, ETH / 3n);

  database = await createTestDatabase();
  indexer = await indexToHead({ ...devnetIndexerOptions(devnet, database.url), timeoutMs: 90_000 });
  pool = createReadPool({ url: database.url, max: 4 });
  app = await buildApp({
    pool,
    config: {
      cursorSecret: "dexscreener-test-cursor-secret-0123",
      corsOrigins: "*",
      dexScreener: { dexKey: "zonkfun", wethAddress: devnet.deployment.contracts.weth, maxBlockRange: 50 },
    },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });
  check = await openApiValidator(app);
}, 240_000);

afterAll(async () => {
  await app?.close();
  await pool?.end();
  await indexer?.stop();
  await database?.drop();
  await devnet?.stop();
});

describe("DEX Screener adapter", () => {
  test("latest-block is the indexed checkpoint", async () => {
    const body = await get("/dexscreener/latest-block");
    check("/dexscreener/latest-block", 200, body);
    const { rows } = await pool.query(
      "SELECT block_number::int AS n, block_timestamp::int AS t FROM indexer_checkpoints",
    );
    expect(body).toEqual({ block: { blockNumber: rows[0].n, blockTimestamp: rows[0].t } });
  });

  test("asset and pair: a token and its curve with WETH", async () => {
    const { rows } = await pool.query(
      "SELECT address, name, symbol, initial_supply::text AS supply, curve_address, creator, created_block_number::int AS block, created_at::int AS at, created_transaction_hash AS tx FROM tokens WHERE address = $1",
      [tokens[0]!.token.toLowerCase()],
    );
    const t = rows[0];
    const asset = await get(`/dexscreener/asset?id=${tokens[0]!.token}`);
    check("/dexscreener/asset", 200, asset);
    expect(asset).toEqual({
      asset: { id: t.address, name: "Dex One", symbol: "DEX1", totalSupply: units(BigInt(t.supply)) },
    });
    expect(asset.asset.totalSupply).toBe("1000000000");
    const pair = await get(`/dexscreener/pair?id=${tokens[0]!.curve.toUpperCase().replace("0X", "0x")}`);
    check("/dexscreener/pair", 200, pair);
    expect(pair).toEqual({
      pair: {
        id: tokens[0]!.curve.toLowerCase(),
        dexKey: "zonkfun",
        asset0Id: t.address,
        asset1Id: devnet.deployment.contracts.weth.toLowerCase(),
        createdAtBlockNumber: t.block,
        createdAtBlockTimestamp: t.at,
        createdAtTxnId: t.tx,
        creator: t.creator,
        feeBps: 100,
      },
    });
  });

  test("events over the whole range and over split ranges are the indexed curve trades", async () => {
    const expected = await expectedEvents();
    expect(expected.length).toBe(9);
    const latest = (await get("/dexscreener/latest-block")).block.blockNumber as number;
    const first = expected[0].block.blockNumber as number;
    const whole = await get(`/dexscreener/events?fromBlock=${first}&toBlock=${latest}`);
    check("/dexscreener/events", 200, whole);
    expect(whole.events).toEqual(expected);
    // Two trades in one block, of two tokens.
    const shared = expected.filter((e) => e.block.blockNumber === expected[5].block.blockNumber);
    expect(new Set(shared.map((e) => e.pairId)).size).toBe(2);
    // Every split of the range at each block boundary gives the same events.
    for (let cut = first; cut < latest; cut++) {
      const left = await get(`/dexscreener/events?fromBlock=${first}&toBlock=${cut}`);
      const right = await get(`/dexscreener/events?fromBlock=${cut + 1}&toBlock=${latest}`);
      expect([...left.events, ...right.events]).toEqual(expected);
    }
    // A range with no trade, and the last reserves equal to the indexed curve state.
    expect((await get(`/dexscreener/events?fromBlock=0&toBlock=${first - 1}`)).events).toEqual([]);
    const { rows } = await pool.query(
      "SELECT curve_address, (graduation_threshold - sold_supply)::text AS tokens, reserve_balance::text AS eth FROM tokens",
    );
    for (const row of rows) {
      const last = expected.filter((e) => e.pairId === row.curve_address).at(-1);
      expect(last.reserves).toEqual({ asset0: units(BigInt(row.tokens)), asset1: units(BigInt(row.eth)) });
    }
  });

  test("each 4xx answers the error envelope with its code", async () => {
    const latest = (await get("/dexscreener/latest-block")).block.blockNumber as number;
    const cases: [string, number, string][] = [
      ["/dexscreener/asset", 400, "invalid_request"],
      ["/dexscreener/asset?id=0x12", 400, "invalid_address"],
      [`/dexscreener/asset?id=0x${"1".repeat(40)}`, 404, "not_found"],
      ["/dexscreener/pair?id=nope", 400, "invalid_address"],
      [`/dexscreener/pair?id=${tokens[0]!.token}`, 404, "not_found"],
      ["/dexscreener/events?fromBlock=1", 400, "invalid_request"],
      ["/dexscreener/events?fromBlock=-1&toBlock=2", 400, "invalid_request"],
      ["/dexscreener/events?fromBlock=1e3&toBlock=2000", 400, "invalid_request"],
      ["/dexscreener/events?fromBlock=5&toBlock=4", 400, "invalid_request"],
      ["/dexscreener/events?fromBlock=0&toBlock=50", 400, "invalid_request"],
      [`/dexscreener/events?fromBlock=${latest}&toBlock=${latest + 1}`, 400, "invalid_request"],
    ];
    for (const [url, status, code] of cases) {
      const body = await get(url, status);
      expect(body.error.code, url).toBe(code);
      check(url.split("?")[0]!, status, body);
    }
  });
});
