import {
  createTrader,
  type Devnet,
  deployFeedAggregator,
  deployFeedProxy,
  replaceFeedAggregator,
  rpc,
  setAggregatorRound,
  startDevnet,
} from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  type IndexerProcess,
  indexToHead,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A round of `answer` (8 decimals) as an aggregator stores it. */
const round = (roundId: bigint, answer: bigint) => {
  const now = BigInt(Math.floor(Date.now() / 1000));
  return { roundId, answer, startedAt: now, updatedAt: now, answeredInRound: roundId };
};

describe("ETH/USD feed behind a Chainlink proxy", () => {
  let devnet: Devnet;
  let db: TestDatabase;
  /** The reorg test's database and its from-scratch twin. */
  let reorged: TestDatabase;
  let fresh: TestDatabase;
  let sql: pg.Client;
  let indexer: IndexerProcess | null = null;
  /** The first test's feed proxy and start block. */
  let started: { proxy: `0x${string}`; startBlock: number } | null = null;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockTime: "automine" });
    db = await createTestDatabase();
    reorged = await createTestDatabase();
    fresh = await createTestDatabase();
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await indexer?.stop();
    await sql?.end();
    for (const d of [db, reorged, fresh]) await d?.drop();
    await devnet?.stop();
  });

  const answers = async () =>
    (
      await sql.query(
        "SELECT block_number::int AS block, log_index, round_id::text, answer::text FROM eth_usd_answers ORDER BY block_number, log_index",
      )
    ).rows;

  it("default: the answer in force at START_BLOCK, every phase's answers and a live replacement's are indexed; every trade has an answer", async () => {
    const { rpcUrl, chainId, deployment } = devnet;
    const first = await deployFeedAggregator(rpcUrl, chainId);
    const proxy = await deployFeedProxy(rpcUrl, chainId, first);
    await setAggregatorRound(rpcUrl, chainId, first, round(1n, 3_000_00000000n));
    // The indexed history starts after the feed's first answer.
    const startBlock = (await chainHead(rpcUrl)) + 1;
    started = { proxy, startBlock };
    const trader = createTrader({ rpcUrl, deployment, account: 1 });
    const { token } = await trader.createToken("Feed Cat", "FEED", { value: parseEther("0.1") });
    await setAggregatorRound(rpcUrl, chainId, first, round(2n, 3_050_00000000n));
    await trader.buy(token, parseEther("0.2"));
    // Chainlink replaces the aggregator during the indexed history (phase 2).
    const second = await deployFeedAggregator(rpcUrl, chainId);
    await replaceFeedAggregator(rpcUrl, chainId, proxy, second);
    await setAggregatorRound(rpcUrl, chainId, second, round(1n, 3_100_00000000n));
    await trader.buy(token, parseEther("0.3"));

    indexer = await indexToHead({
      ...devnetIndexerOptions(devnet, db.url),
      startBlock,
      ethUsdFeedAddress: proxy,
    });
    const phase1 = (1n << 64n) | 1n; // the proxy's round id: phase 1, aggregator round 1
    expect(await answers()).toEqual([
      { block: startBlock, log_index: -1, round_id: String(phase1), answer: "300000000000" },
      expect.objectContaining({ round_id: "2", answer: "305000000000" }),
      expect.objectContaining({ round_id: "1", answer: "310000000000" }),
    ]);

    // Replaced again while the indexer runs (phase 3, an aggregator it never saw at start).
    const third = await deployFeedAggregator(rpcUrl, chainId);
    await replaceFeedAggregator(rpcUrl, chainId, proxy, third);
    await setAggregatorRound(rpcUrl, chainId, third, round(1n, 3_200_00000000n));
    await trader.buy(token, parseEther("0.1"));
    await indexer.waitForBlock(await chainHead(rpcUrl));
    expect((await answers()).map((a) => a.answer)).toEqual([
      "300000000000",
      "305000000000",
      "310000000000",
      "320000000000",
    ]);
    const confirmations = await sql.query(
      "SELECT count(*)::int AS n FROM chain_events WHERE event_name = 'AggregatorConfirmed' AND contract_address = $1",
      [proxy],
    );
    expect(confirmations.rows[0].n).toBe(2);

    // Every trade (the first ones before the feed's first answer of the indexed range) has a USD
    // rate: an answer at or before its position.
    const trades = await sql.query(`SELECT count(*)::int AS n,
        count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM eth_usd_answers a
          WHERE (a.block_number, a.log_index) <= (t.block_number, t.log_index) AND a.answer > 0))::int AS without
      FROM trades t`);
    expect(trades.rows[0]).toEqual({ n: 4, without: 0 });
  });

  it("behavior: a database indexed past START_BLOCK without the start answer gets it at the next start", async () => {
    // As a database indexed before the start answer was stored.
    await indexer?.stop();
    indexer = null;
    await sql.query("DELETE FROM eth_usd_answers WHERE log_index = -1");
    expect(await answers()).toHaveLength(3);
    const { startBlock, proxy } = started!;
    indexer = await indexToHead({
      ...devnetIndexerOptions(devnet, db.url),
      startBlock,
      ethUsdFeedAddress: proxy,
    });
    await waitFor(() => indexer!.output().includes('"action":"feed_start_answer_stored"'));
    expect((await answers())[0]).toEqual({
      block: startBlock,
      log_index: -1,
      round_id: String((1n << 64n) | 1n),
      answer: "300000000000",
    });
  });

  it("behavior: a reorg of the range that stored the start answer rolls it back with the range, and it is stored again", async () => {
    await indexer?.stop();
    indexer = null;
    const { rpcUrl, chainId, deployment } = devnet;
    const aggregator = await deployFeedAggregator(rpcUrl, chainId);
    const proxy = await deployFeedProxy(rpcUrl, chainId, aggregator);
    await setAggregatorRound(rpcUrl, chainId, aggregator, round(1n, 2_900_00000000n));
    const startBlock = (await chainHead(rpcUrl)) + 1;
    const trader = createTrader({ rpcUrl, deployment, account: 2 });
    const { token } = await trader.createToken("Reorg Feed", "RFED", { value: parseEther("0.05") });
    await trader.buy(token, parseEther("0.1"));
    await trader.buy(token, parseEther("0.1"));
    const options = { ...devnetIndexerOptions(devnet, reorged.url), startBlock, ethUsdFeedAddress: proxy };
    indexer = await indexToHead(options);
    // The short history is indexed as one journaled range from START_BLOCK: replacing its last 2
    // blocks rolls back that range, start answer included, and indexes it again.
    await rpc(rpcUrl, "anvil_reorg", [2, []]);
    await trader.buy(token, parseEther("0.02"));
    await indexer.waitForBlock(await chainHead(rpcUrl));
    await indexer.stop();
    expect(indexer.output()).toContain("rolled back orphaned blocks");
    indexer = null;
    const scratch = await indexToHead({ ...options, databaseUrl: fresh.url });
    await scratch.stop();
    const { trending_latest: _a, ...afterReorg } = await dumpIndexedTables(reorged.url);
    const { trending_latest: _b, ...fromScratch } = await dumpIndexedTables(fresh.url);
    expect(afterReorg).toEqual(fromScratch);
    expect(afterReorg.eth_usd_answers).toHaveLength(1); // the start answer, once
  });
});
