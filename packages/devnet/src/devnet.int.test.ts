// The devnet on a real anvil: boot + deployment, resume from state, feeds, simulator, history loader.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devnetAggregatorAbi, launchpadAbi, uniswapV3PoolAbi } from "@tmi/contracts";
import { encodeEventTopics, parseEther } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID, devnetAccounts } from "./accounts.js";
import { localPublicClient, rpc } from "./clients.js";
import { type Devnet, startDevnet } from "./devnet.js";
import { setEthUsdRound, setSequencerStatus } from "./feeds.js";
import { loadHistory } from "./history-loader.js";
import { runSimulator } from "./simulator.js";
import { createTrader } from "./trader.js";

const dir = mkdtempSync(join(tmpdir(), "tmi-devnet-test-"));
const running: Devnet[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
  rmSync(dir, { recursive: true, force: true });
});
async function boot(options: Parameters<typeof startDevnet>[0]): Promise<Devnet> {
  const devnet = await startDevnet(options);
  running.push(devnet);
  return devnet;
}

const topic = (eventName: "TokenCreated" | "TokensBought" | "TokensSold" | "TokenGraduated") =>
  encodeEventTopics({ abi: launchpadAbi, eventName })[0];
const SWAP_TOPIC = encodeEventTopics({ abi: uniswapV3PoolAbi, eventName: "Swap" })[0];

async function countTopics(rpcUrl: string, fromBlock: number) {
  const logs = await rpc<{ topics: string[] }[]>(rpcUrl, "eth_getLogs", [
    { fromBlock: `0x${fromBlock.toString(16)}` },
  ]);
  const count = (t: string | undefined) => logs.filter((l) => l.topics[0] === t).length;
  return {
    created: count(topic("TokenCreated")),
    bought: count(topic("TokensBought")),
    sold: count(topic("TokensSold")),
    graduated: count(topic("TokenGraduated")),
    swaps: count(SWAP_TOPIC),
  };
}

describe("devnet", () => {
  it("default", async () => {
    const deploymentFile = join(dir, "default.json");
    const started = performance.now();
    const devnet = await boot({ blockTime: "automine", deploymentFile });
    const seconds = (performance.now() - started) / 1000;
    expect(seconds).toBeLessThan(20);
    expect(devnet.port).toBeGreaterThan(0);
    expect(devnet.chainId).toBe(DEVNET_CHAIN_ID);
    expect(devnet.rpcUrl).toBe(`http://127.0.0.1:${devnet.port}`);
    const client = localPublicClient(devnet.rpcUrl);
    expect(await client.getChainId()).toBe(31337);
    for (const address of Object.values(devnet.deployment.contracts)) {
      expect(address).toMatch(/^0x[0-9a-f]{40}$/);
      expect((await client.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
    }
    expect(JSON.parse(readFileSync(deploymentFile, "utf8"))).toEqual(devnet.deployment);
    expect(devnet.deployment.startBlock).toBeGreaterThanOrEqual(0);
    // Accounts are anvil's default ones, funded.
    const accounts = await rpc<string[]>(devnet.rpcUrl, "eth_accounts");
    expect(accounts.map((a) => a.toLowerCase())).toEqual(devnetAccounts().map((a) => a.address));
    expect(await client.getBalance({ address: devnetAccounts()[1]!.address })).toBeGreaterThan(
      parseEther("1000"),
    );
    // Feeds: ETH/USD at 3,000 with 8 decimals; sequencer up for a day.
    const feed = { address: devnet.deployment.contracts.ethUsdFeed, abi: devnetAggregatorAbi } as const;
    expect(await client.readContract({ ...feed, functionName: "decimals" })).toBe(8);
    const [roundId, answer] = await client.readContract({ ...feed, functionName: "latestRoundData" });
    expect(roundId).toBe(1n);
    expect(answer).toBe(300_000_000_000n);
    const [, status, statusStartedAt] = await client.readContract({
      address: devnet.deployment.contracts.sequencerUptimeFeed,
      abi: devnetAggregatorAbi,
      functionName: "latestRoundData",
    });
    expect(status).toBe(0n);
    const now = (await client.getBlock()).timestamp;
    expect(now - statusStartedAt).toBeGreaterThanOrEqual(86_400n);
  });

  it("behavior: feed setters store rounds and statuses", async () => {
    const devnet = await boot({ blockTime: "automine" });
    const client = localPublicClient(devnet.rpcUrl);
    const round = {
      roundId: 7n,
      answer: 312_345_000_000n,
      startedAt: 1_000n,
      updatedAt: 1_001n,
      answeredInRound: 6n,
    };
    const { receipt } = await setEthUsdRound(devnet.rpcUrl, devnet.deployment, round);
    expect(receipt.status).toBe("success");
    const latest = await client.readContract({
      address: devnet.deployment.contracts.ethUsdFeed,
      abi: devnetAggregatorAbi,
      functionName: "latestRoundData",
    });
    expect(latest).toEqual([7n, 312_345_000_000n, 1_000n, 1_001n, 6n]);
    await setSequencerStatus(devnet.rpcUrl, devnet.deployment, { answer: 1n, startedAt: 5_000n });
    const [, status, startedAt] = await client.readContract({
      address: devnet.deployment.contracts.sequencerUptimeFeed,
      abi: devnetAggregatorAbi,
      functionName: "latestRoundData",
    });
    expect([status, startedAt]).toEqual([1n, 5_000n]);
  });

  it("behavior: interval mining produces blocks without transactions", async () => {
    const devnet = await boot({ blockTime: 1 });
    const client = localPublicClient(devnet.rpcUrl);
    const first = await client.getBlockNumber();
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await client.getBlockNumber()).toBeGreaterThan(first);
    // A trader's transaction is mined by the interval miner.
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
    const { token, receipt } = await trader.createToken("Interval", "INT", { value: parseEther("0.01") });
    expect(receipt.status).toBe("success");
    expect(await trader.balanceOf(token)).toBeGreaterThan(0n);
  });

  it("behavior: a restart with the same state file resumes the same chain and deployment", async () => {
    const stateFile = join(dir, "state.json");
    const deploymentFile = join(dir, "resume.json");
    const first = await startDevnet({ blockTime: "automine", stateFile, deploymentFile });
    expect(first.resumed).toBe(false);
    const trader = createTrader({ rpcUrl: first.rpcUrl, deployment: first.deployment, account: 3 });
    const { token } = await trader.createToken("Persist", "PST", { value: parseEther("0.02") });
    const client1 = localPublicClient(first.rpcUrl);
    const head = await client1.getBlock();
    await first.stop();

    const second = await boot({ blockTime: "automine", stateFile, deploymentFile });
    expect(second.resumed).toBe(true);
    expect(second.deployment.contracts).toEqual(first.deployment.contracts);
    expect(second.deployment.startBlock).toBe(first.deployment.startBlock);
    const client2 = localPublicClient(second.rpcUrl);
    const same = await client2.getBlock({ blockNumber: head.number });
    expect(same.hash).toBe(head.hash);
    const again = createTrader({ rpcUrl: second.rpcUrl, deployment: second.deployment, account: 3 });
    expect(await again.balanceOf(token)).toBeGreaterThan(0n);
  });

  it("behavior: the simulator launches, trades, graduates and swaps on pools", async () => {
    const devnet = await boot({ blockTime: "automine", graduationThreshold: parseEther("0.5") });
    const stats = await runSimulator({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      seed: 7,
      tps: 40,
      traders: 6,
      tokens: 3,
      durationSeconds: 6,
      graduateEvery: 15,
      feedIntervalSeconds: 1,
    });
    // Concurrent wallets sometimes race a graduation (the trade then reverts): rare, never systematic.
    expect(stats.failed).toBeLessThan(Math.max(5, stats.transactions / 10));
    const seen = await countTopics(devnet.rpcUrl, devnet.deployment.startBlock);
    expect(seen.created).toBeGreaterThan(0);
    expect(seen.bought).toBeGreaterThan(0);
    expect(seen.sold).toBeGreaterThan(0);
    expect(seen.graduated).toBeGreaterThan(0);
    expect(seen.swaps).toBeGreaterThan(0);
    expect(seen.created).toBe(stats.launches);
    expect(seen.graduated).toBe(stats.graduations);
    expect(stats.feedUpdates).toBeGreaterThan(0);
  });

  it("behavior: the history loader mines exactly the requested trades in large blocks", async () => {
    const devnet = await boot({ blockTime: "automine" });
    const result = await loadHistory({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      trades: 3_000,
      tokens: 4,
      graduations: 1,
      seed: 3,
    });
    expect(result.trades).toBe(3_000);
    const seen = await countTopics(devnet.rpcUrl, result.fromBlock);
    expect(seen.bought + seen.sold + seen.swaps).toBe(3_000);
    expect(seen.created).toBe(4);
    expect(seen.graduated).toBe(1);
    expect(seen.sold).toBeGreaterThan(500);
    expect(result.blocks).toBeLessThan(60);
    expect(result.events).toBeGreaterThan(6_000);
    // Automine is restored.
    expect(await rpc<boolean>(devnet.rpcUrl, "anvil_getAutomine")).toBe(true);
  });
});
