import {
  createTrader,
  type Devnet,
  deployBackgroundEmitter,
  sendBackgroundBlock,
  setEthUsdRound,
  startDevnet,
} from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  indexToHead,
  type RpcProxy,
  startRpcProxy,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The tables a strategy decides (trending snapshots depend on when the last refresh ran). */
async function indexedRows(url: string) {
  const { trending_latest: _, ...rest } = await dumpIndexedTables(url);
  return rest;
}

/** `"topicRanges":N` / `"emitterRanges":N` of the `caught_up` line. */
const rangesOf = (output: string, key: "topicRanges" | "emitterRanges") =>
  Number(new RegExp(`"${key}":(\\d+)`).exec(output)?.[1] ?? -1);

describe("log query strategies", () => {
  let devnet: Devnet;
  let proxy: RpcProxy;
  const dbs: TestDatabase[] = [];

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockTime: "automine" });
    proxy = await startRpcProxy({ target: devnet.rpcUrl, maxLogs: 10_000 });
  });
  afterAll(async () => {
    await proxy?.close();
    await devnet?.stop();
    for (const db of dbs) await db.drop();
  });

  it("default", async () => {
    // A platform history (launches, curve trades, transfers, a graduation and pool swaps, a feed
    // round) interleaved with blocks of 1,600 unrelated Transfer/Swap logs each.
    const { rpcUrl, deployment } = devnet;
    const emitter = await deployBackgroundEmitter(rpcUrl, deployment.chainId);
    let seed = 1n;
    const background = () => sendBackgroundBlock(rpcUrl, emitter, { transfers: 1_500, swaps: 100 }, seed++);
    const [t1, t2] = [1, 2].map((account) => createTrader({ rpcUrl, deployment, account })) as [
      ReturnType<typeof createTrader>,
      ReturnType<typeof createTrader>,
    ];
    const a = await t1.createToken("Strategy A", "STRA", { value: parseEther("0.1") });
    await background();
    await t2.buy(a.token, parseEther("0.2"));
    await background();
    const b = await t2.createToken("Strategy B", "STRB");
    await background();
    for (let i = 0; i < 8; i++) await background();
    await t1.buy(b.token, parseEther("0.3"));
    await t1.transfer(a.token, t2.address, 1_000n);
    await background();
    await t2.sell(a.token, (await t2.balanceOf(a.token)) / 3n);
    await background();
    await t2.graduate(b.token);
    await background();
    await t1.swapExactEthForTokens(b.token, parseEther("0.05"));
    await background();
    await t2.swapExactTokensForEth(b.token, (await t2.balanceOf(b.token)) / 4n);
    await setEthUsdRound(rpcUrl, deployment, {
      roundId: 7n,
      answer: 3_100_00000000n,
      startedAt: 1n,
      updatedAt: 1n,
      answeredInRound: 7n,
    });
    // Runs of background blocks: any topic query over 7 of them exceeds the provider's cap.
    for (let i = 0; i < 16; i++) await background();
    await t1.buy(a.token, parseEther("0.01"));
    const head = await chainHead(rpcUrl);

    const run = async (strategy: string, env: Record<string, string> = {}) => {
      const db = await createTestDatabase();
      dbs.push(db);
      const options = devnetIndexerOptions({ ...devnet, rpcUrl: proxy.url }, db.url, { ethUsdFeed: true });
      const indexer = await indexToHead({ ...options, env: { LOG_QUERY_STRATEGY: strategy, ...env } });
      await indexer.waitForBlock(head);
      await waitFor(() => indexer.output().includes('"action":"caught_up"'));
      await indexer.stop();
      return { rows: await indexedRows(db.url), output: indexer.output() };
    };
    const byEmitters = await run("emitters");
    // Topic queries whose target lies above the provider's cap: the cap errors must split them.
    proxy.reset();
    const byTopics = await run("topics", { TARGET_LOGS_PER_REQUEST: "50000" });
    expect(proxy.refused).toBeGreaterThan(0);
    // One address per chunk and short ranges: the emitter queries are many, short ranges probe the
    // chain's density by topic, and each range is priced both ways.
    const byAuto = await run("auto", {
      LOG_ADDRESS_CHUNK: "1",
      LOG_BATCH_BLOCKS: "1",
      MAX_LOG_BATCH_BLOCKS: "8",
    });

    expect(rangesOf(byEmitters.output, "topicRanges")).toBe(0);
    expect(rangesOf(byEmitters.output, "emitterRanges")).toBeGreaterThan(0);
    expect(rangesOf(byTopics.output, "emitterRanges")).toBe(0);
    expect(rangesOf(byTopics.output, "topicRanges")).toBeGreaterThan(0);
    expect(rangesOf(byAuto.output, "topicRanges")).toBeGreaterThan(0);
    expect(byEmitters.rows.trades).toHaveLength(8); // 5 curve buys (one graduating), a sell, 2 pool swaps
    expect(byEmitters.rows.eth_usd_answers).toHaveLength(2); // the deployment's round and ours
    expect(byTopics.rows).toEqual(byEmitters.rows);
    expect(byAuto.rows).toEqual(byEmitters.rows);
  });
});
