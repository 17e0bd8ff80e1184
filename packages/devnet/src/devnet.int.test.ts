// The devnet on a real anvil: boot + V3 deployment, chain id setting, resume from state, feeds, a
// trader's launch/buy/sell/graduation/swaps, the simulator and the history loader.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  devnetAggregatorAbi,
  quoterV2Abi,
  uniswapV3FactoryAbi,
  uniswapV3FactoryBytecode,
  uniswapV3PoolAbi,
  uniswapV3PoolBytecode,
  weth9Abi,
  weth9Bytecode,
} from "@tmi/contracts";
import {
  EXACT_GRADUATION_GROSS,
  feeManagerV3Abi,
  graduationManagerV3Abi,
  LP_ALLOCATION,
  TOTAL_SUPPLY,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import {
  encodeAbiParameters,
  encodeEventTopics,
  erc20Abi,
  getCreate2Address,
  keccak256,
  parseAbiParameters,
  parseEther,
  parseEventLogs,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID, devnetAccounts } from "./accounts.js";
import {
  BASE_UNISWAP_V3_FACTORY,
  BASE_WETH,
  relocateSelfImmutables,
  UNISWAP_V3_FEE_TIERS,
} from "./canonical.js";
import { localPublicClient, rpc } from "./clients.js";
import { BASE_QUOTER_V2, BASE_SWAP_ROUTER02 } from "./deploy.js";
import { type Devnet, startDevnet } from "./devnet.js";
import { setEthUsdRound, setSequencerStatus } from "./feeds.js";
import { loadHistory } from "./history-loader.js";
import { runSimulator, simulatorKeys } from "./simulator.js";
import { createTrader, POOL_FEE } from "./trader.js";

/** Uniswap V3 periphery's `PoolAddress.POOL_INIT_CODE_HASH` (keccak256 of the pool's creation code). */
const POOL_INIT_CODE_HASH = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";

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

const TOPICS = {
  launched: encodeEventTopics({ abi: zonkFactoryV3Abi, eventName: "TokenLaunchedV3" })[0],
  bought: encodeEventTopics({ abi: zonkCurveV3Abi, eventName: "TokensBought" })[0],
  sold: encodeEventTopics({ abi: zonkCurveV3Abi, eventName: "TokensSold" })[0],
  graduated: encodeEventTopics({ abi: zonkCurveV3Abi, eventName: "Graduated" })[0],
  graduatedV3: encodeEventTopics({ abi: graduationManagerV3Abi, eventName: "GraduatedV3" })[0],
  swap: encodeEventTopics({ abi: uniswapV3PoolAbi, eventName: "Swap" })[0],
};

async function countTopics(rpcUrl: string, fromBlock: number) {
  const logs = await rpc<{ topics: string[] }[]>(rpcUrl, "eth_getLogs", [
    { fromBlock: `0x${fromBlock.toString(16)}` },
  ]);
  const count = (t: string | undefined) => logs.filter((l) => l.topics[0] === t).length;
  return {
    launched: count(TOPICS.launched),
    bought: count(TOPICS.bought),
    sold: count(TOPICS.sold),
    graduated: count(TOPICS.graduated),
    graduatedV3: count(TOPICS.graduatedV3),
    swaps: count(TOPICS.swap),
  };
}

/** Resolves once `check` is true (polling every 100 ms); fails after `timeoutMs`. */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("devnet", () => {
  it("default", async () => {
    const deploymentFile = join(dir, "default.json");
    const devnet = await boot({ blockTime: "automine", deploymentFile });
    expect(devnet.port).toBeGreaterThan(0);
    expect(devnet.chainId).toBe(DEVNET_CHAIN_ID);
    expect(devnet.rpcUrl).toBe(`http://127.0.0.1:${devnet.port}`);
    const client = localPublicClient(devnet.rpcUrl);
    expect(await client.getChainId()).toBe(31337);
    // The deployment file's contract keys as documented for deployments/devnet.json.
    expect(Object.keys(devnet.deployment.contracts).sort()).toEqual(
      [
        "factory",
        "graduationManager",
        "feeManager",
        "lpFeeVault",
        "communityVault",
        "traderRewardsVault",
        "rewardsDistributor",
        "weth",
        "uniswapV3Factory",
        "nonfungiblePositionManager",
        "swapRouter",
        "swapRouter02",
        "quoterV2",
        "ethUsdFeed",
        "sequencerUptimeFeed",
      ].sort(),
    );
    for (const address of Object.values(devnet.deployment.contracts)) {
      expect(address).toMatch(/^0x[0-9a-f]{40}$/);
      expect((await client.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
    }
    expect(JSON.parse(readFileSync(deploymentFile, "utf8"))).toEqual(devnet.deployment);
    expect(devnet.deployment.startBlock).toBeGreaterThanOrEqual(0);
    const { factory, graduationManager } = devnet.deployment.contracts;
    expect(
      (
        await client.readContract({
          address: factory,
          abi: zonkFactoryV3Abi,
          functionName: "graduationManager",
        })
      ).toLowerCase(),
    ).toBe(graduationManager);
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

  it("behavior: the chain id is a setting (8453 looks like Base to clients); trades sign for it", async () => {
    const devnet = await boot({ blockTime: "automine", chainId: 8453 });
    expect(devnet.chainId).toBe(8453);
    expect(devnet.deployment.chainId).toBe(8453);
    const client = localPublicClient(devnet.rpcUrl, 8453);
    expect(await client.getChainId()).toBe(8453);
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 4 });
    // With a value, the creator's first buy follows the launch as a second transaction.
    const { token, hash, firstBuy } = await trader.createToken("Base Look", "BASE", {
      value: parseEther("0.01"),
    });
    expect((await client.getTransaction({ hash })).chainId).toBe(8453);
    const [first] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: firstBuy!.receipt.logs,
      eventName: "TokensBought",
    });
    expect(first!.args.acceptedGross).toBe(parseEther("0.01"));
    expect(await trader.balanceOf(token)).toBe(first!.args.tokensOut);
  });

  it("behavior: with chain id 8453, WETH, the Uniswap V3 factory, SwapRouter02 and QuoterV2 are at Base's addresses and a graduated token trades as the platform's swap panel does", async () => {
    const devnet = await boot({ blockTime: "automine", chainId: 8453 });
    const { weth, uniswapV3Factory, swapRouter02, quoterV2 } = devnet.deployment.contracts;
    // Base mainnet's addresses, as the platform's web app has them built in.
    expect(weth).toBe("0x4200000000000000000000000000000000000006");
    expect(uniswapV3Factory).toBe("0x33128a8fc17869897dce68ed026d694621f6fdfd");
    expect(swapRouter02).toBe("0x2626664c2603336e57b271c5c0b26f421741e481");
    expect(quoterV2).toBe("0x3d4e44eb1374240ce5f1b871ab261cd16335b76a");
    expect([weth, uniswapV3Factory, swapRouter02, quoterV2]).toEqual([
      BASE_WETH,
      BASE_UNISWAP_V3_FACTORY,
      BASE_SWAP_ROUTER02,
      BASE_QUOTER_V2,
    ]);
    const client = localPublicClient(devnet.rpcUrl, 8453);
    expect(await client.readContract({ address: weth, abi: weth9Abi, functionName: "symbol" })).toBe("WETH");
    expect(await client.readContract({ address: weth, abi: weth9Abi, functionName: "decimals" })).toBe(18);
    const factory = { address: uniswapV3Factory, abi: uniswapV3FactoryAbi } as const;
    expect((await client.readContract({ ...factory, functionName: "owner" })).toLowerCase()).toBe(
      devnetAccounts()[0]!.address,
    );
    for (const [fee, spacing] of UNISWAP_V3_FEE_TIERS)
      expect(
        await client.readContract({ ...factory, functionName: "feeAmountTickSpacing", args: [fee] }),
      ).toBe(spacing);
    // What the swap panel checks before it quotes: the periphery is bound to Base's factory and WETH.
    for (const address of [swapRouter02, quoterV2]) {
      expect(
        (await client.readContract({ address, abi: quoterV2Abi, functionName: "factory" })).toLowerCase(),
      ).toBe(uniswapV3Factory);
      expect(
        (await client.readContract({ address, abi: quoterV2Abi, functionName: "WETH9" })).toLowerCase(),
      ).toBe(weth);
    }
    const graduation = devnet.deployment.contracts.graduationManager;
    const bound = { address: graduation, abi: graduationManagerV3Abi } as const;
    expect((await client.readContract({ ...bound, functionName: "weth" })).toLowerCase()).toBe(weth);
    expect((await client.readContract({ ...bound, functionName: "uniswapV3Factory" })).toLowerCase()).toBe(
      uniswapV3Factory,
    );

    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 6 });
    const { token, pool: launchPool } = await trader.createToken("Swap Cat", "SWAP");
    const { pool } = await trader.graduate(token);
    expect(pool).toBe(launchPool);
    // The pool is the canonical factory's child at the address the periphery computes from the
    // factory, the pair, the fee and Uniswap's pool init code hash.
    const poolRead = { address: pool, abi: uniswapV3PoolAbi } as const;
    const fee = await client.readContract({ ...poolRead, functionName: "fee" });
    expect(fee).toBe(POOL_FEE);
    expect((await client.readContract({ ...poolRead, functionName: "factory" })).toLowerCase()).toBe(
      uniswapV3Factory,
    );
    const pair = [
      await client.readContract({ ...poolRead, functionName: "token0" }),
      await client.readContract({ ...poolRead, functionName: "token1" }),
    ].map((a) => a.toLowerCase());
    expect([...pair].sort()).toEqual([token.toLowerCase(), weth].sort());
    expect(keccak256(uniswapV3PoolBytecode)).toBe(POOL_INIT_CODE_HASH);
    const computed = getCreate2Address({
      from: uniswapV3Factory,
      salt: keccak256(
        encodeAbiParameters(parseAbiParameters("address, address, uint24"), [...pair, fee] as never),
      ),
      bytecodeHash: POOL_INIT_CODE_HASH,
    });
    expect(computed.toLowerCase()).toBe(pool.toLowerCase());
    expect(
      (
        await client.readContract({ ...factory, functionName: "getPool", args: [token, weth, fee] })
      ).toLowerCase(),
    ).toBe(pool.toLowerCase());

    // Buy 0.05 ETH: wrapETH into the router, then exactInputSingle of the router's whole WETH
    // (amountIn 0 = CONTRACT_BALANCE) to the trader.
    const amountIn = parseEther("0.05");
    const quotedOut = await trader.quotePoolSwap(token, "buy", amountIn);
    expect(quotedOut).toBeGreaterThan(0n);
    const before = await trader.balanceOf(token);
    const { receipt: bought } = await trader.buyWithSwapRouter02(token, amountIn, quotedOut);
    expect((await trader.balanceOf(token)) - before).toBe(quotedOut);

    // Sell half: approve the router, exactInputSingle to the router, unwrapWETH9 to the trader (ETH).
    const sellAmount = quotedOut / 2n;
    const quotedEth = await trader.quotePoolSwap(token, "sell", sellAmount);
    expect(quotedEth).toBeGreaterThan(0n);
    const ethBefore = await trader.ethBalance();
    const { receipt: sold, approval } = await trader.sellWithSwapRouter02(token, sellAmount, quotedEth);
    expect(approval?.receipt.status).toBe("success");
    const gas = [sold, approval!.receipt].reduce((sum, r) => sum + r.gasUsed * r.effectiveGasPrice, 0n);
    expect((await trader.ethBalance()) - ethBefore + gas).toBe(quotedEth);
    // Both are the canonical pool's Swap logs.
    const swaps = [bought, sold].map(
      (receipt) => parseEventLogs({ abi: uniswapV3PoolAbi, eventName: "Swap", logs: receipt.logs })[0]!,
    );
    for (const log of swaps) expect(log.address.toLowerCase()).toBe(pool.toLowerCase());
  });

  it("behavior: the default chain keeps freshly deployed WETH and Uniswap V3 factory addresses", async () => {
    const devnet = await boot({ blockTime: "automine" });
    expect(devnet.deployment.contracts.weth).not.toBe(BASE_WETH);
    expect(devnet.deployment.contracts.uniswapV3Factory).not.toBe(BASE_UNISWAP_V3_FACTORY);
    const client = localPublicClient(devnet.rpcUrl);
    for (const address of [BASE_WETH, BASE_UNISWAP_V3_FACTORY])
      expect((await client.getCode({ address })) ?? "0x").toBe("0x");
  });

  it("behavior: relocating a contract's self-address immutables rewrites only immutables", async () => {
    const devnet = await boot({ blockTime: "automine" });
    const client = localPublicClient(devnet.rpcUrl);
    const from = devnet.deployment.contracts.uniswapV3Factory;
    const runtime = (await client.getCode({ address: from }))!;
    const to = "0x00000000000000000000000000000000000000aa";
    const relocated = relocateSelfImmutables(runtime, uniswapV3FactoryBytecode, from, to);
    expect(relocated.length).toBe(runtime.length);
    expect(relocated.includes(from.slice(2))).toBe(false);
    expect(relocated.includes(to.slice(2))).toBe(true);
    // Not in the code, or in code that is not the creation code's runtime: refused.
    expect(() => relocateSelfImmutables(runtime, uniswapV3FactoryBytecode, to, from)).toThrow(
      /not in the runtime/,
    );
    expect(() => relocateSelfImmutables(runtime, weth9Bytecode, from, to)).toThrow(/not every occurrence/);
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
    await waitFor(async () => (await client.getBlockNumber()) > first + 1n);
    // A trader's transactions are mined by the interval miner.
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
    const { token, receipt } = await trader.createToken("Interval", "INT");
    expect(receipt.status).toBe("success");
    await trader.buy(token, parseEther("0.01"));
    expect(await trader.balanceOf(token)).toBeGreaterThan(0n);
  });

  it("behavior: the Base-like background puts its Transfer and Swap logs into every block", async () => {
    const devnet = await boot({ blockTime: 1, background: { transfersPerBlock: 300, swapsPerBlock: 30 } });
    const background = devnet.background!;
    await waitFor(async () => background.blocks >= 4, 60_000);
    const client = localPublicClient(devnet.rpcUrl);
    const transferTopic = encodeEventTopics({ abi: erc20Abi, eventName: "Transfer" })[0];
    const swapTopic = encodeEventTopics({ abi: uniswapV3PoolAbi, eventName: "Swap" })[0];
    // Some block after the first send carries one block's worth (interval mining: one send per block).
    const head = await client.getBlockNumber();
    const logs = await client.request({
      method: "eth_getLogs",
      params: [
        {
          address: background.emitter,
          fromBlock: `0x${(head - 3n).toString(16)}`,
          toBlock: `0x${head.toString(16)}`,
        },
      ],
    });
    const perBlock = new Map<string, { transfers: number; swaps: number }>();
    for (const l of logs) {
      const entry = perBlock.get(l.blockNumber!) ?? { transfers: 0, swaps: 0 };
      if (l.topics[0] === transferTopic) entry.transfers++;
      if (l.topics[0] === swapTopic) entry.swaps++;
      perBlock.set(l.blockNumber!, entry);
    }
    expect([...perBlock.values()]).toContainEqual({ transfers: 300, swaps: 30 });
    for (const v of perBlock.values()) expect(v.transfers * 30).toBe(v.swaps * 300);
  });

  it("behavior: a restart with the same state file resumes the same chain and deployment", async () => {
    const stateFile = join(dir, "state.json");
    const deploymentFile = join(dir, "resume.json");
    const first = await startDevnet({ blockTime: "automine", stateFile, deploymentFile });
    expect(first.resumed).toBe(false);
    const trader = createTrader({ rpcUrl: first.rpcUrl, deployment: first.deployment, account: 3 });
    const { token } = await trader.createToken("Persist", "PST");
    await trader.buy(token, parseEther("0.02"));
    const client1 = localPublicClient(first.rpcUrl);
    const head = await client1.getBlock();
    await first.stop();

    const second = await startDevnet({ blockTime: "automine", stateFile, deploymentFile });
    expect(second.resumed).toBe(true);
    expect(second.deployment.contracts).toEqual(first.deployment.contracts);
    expect(second.deployment.startBlock).toBe(first.deployment.startBlock);
    const client2 = localPublicClient(second.rpcUrl);
    const same = await client2.getBlock({ blockNumber: head.number });
    expect(same.hash).toBe(head.hash);
    const again = createTrader({ rpcUrl: second.rpcUrl, deployment: second.deployment, account: 3 });
    expect(await again.balanceOf(token)).toBeGreaterThan(0n);
    await second.stop();

    // Another chain id: the saved chain is set aside (never loaded under the new id), a new chain starts.
    const third = await boot({ blockTime: "automine", stateFile, deploymentFile, chainId: 8453 });
    expect(third.resumed).toBe(false);
    expect(third.setAsideState).toBe(`${stateFile}.chain-31337`);
    expect(existsSync(`${stateFile}.chain-31337`)).toBe(true);
    const client3 = localPublicClient(third.rpcUrl, 8453);
    expect(await client3.getChainId()).toBe(8453);
    expect((await client3.getBlock({ blockNumber: head.number }).catch(() => null))?.hash).not.toBe(
      head.hash,
    );
    expect(JSON.parse(readFileSync(deploymentFile, "utf8")).chainId).toBe(8453);
  });

  it("behavior: on 8453 a chain with Base's addresses resumes; one saved with the devnet's own WETH and factory is set aside", async () => {
    const stateFile = join(dir, "base-state.json");
    const deploymentFile = join(dir, "base-resume.json");
    // A chain saved before WETH and the factory moved to Base's addresses.
    const old = await startDevnet({
      blockTime: "automine",
      stateFile,
      deploymentFile,
      chainId: 8453,
      baseAddresses: false,
    });
    expect(old.deployment.contracts.weth).not.toBe(BASE_WETH);
    await old.stop();
    const fresh = await startDevnet({ blockTime: "automine", stateFile, deploymentFile, chainId: 8453 });
    expect(fresh.resumed).toBe(false);
    expect(fresh.setAsideState).toBe(`${stateFile}.devnet-addresses`);
    expect(existsSync(`${stateFile}.devnet-addresses`)).toBe(true);
    expect(fresh.deployment.contracts.uniswapV3Factory).toBe(BASE_UNISWAP_V3_FACTORY);
    await fresh.stop();
    const resumed = await boot({ blockTime: "automine", stateFile, deploymentFile, chainId: 8453 });
    expect(resumed.resumed).toBe(true);
    expect(resumed.setAsideState).toBeUndefined();
    expect(resumed.deployment.contracts).toEqual(fresh.deployment.contracts);
    const trader = createTrader({ rpcUrl: resumed.rpcUrl, deployment: resumed.deployment, account: 4 });
    const { token } = await trader.createToken("Resumed Base", "RBASE");
    await trader.graduate(token);
    const { receipt } = await trader.buyWithSwapRouter02(token, parseEther("0.01"));
    expect(receipt.status).toBe("success");
  });

  it("behavior: a trader launches, buys, sells, graduates (exact gross, refund) and swaps both ways", async () => {
    const devnet = await boot({ blockTime: "automine" });
    const client = localPublicClient(devnet.rpcUrl);
    const { factory, feeManager, graduationManager } = devnet.deployment.contracts;
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 5 });
    const launch = await trader.createToken("Full Cycle", "CYC");
    expect(await trader.curveOf(launch.token)).toBe(launch.curve);
    expect(
      (
        await client.readContract({
          address: factory,
          abi: zonkFactoryV3Abi,
          functionName: "curveOf",
          args: [launch.token],
        })
      ).toLowerCase(),
    ).toBe(launch.curve);
    // TokenLaunchedV3 is the launch's last log; the whole supply went to the curve.
    const lastLog = launch.receipt.logs.at(-1)!;
    expect(lastLog.address.toLowerCase()).toBe(factory);
    expect(lastLog.topics[0]).toBe(TOPICS.launched);
    expect(
      await client.readContract({
        address: launch.token,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [launch.curve],
      }),
    ).toBe(TOTAL_SUPPLY);
    expect(await client.readContract({ address: launch.token, abi: erc20Abi, functionName: "name" })).toBe(
      "Full Cycle",
    );

    const bought = await trader.buy(launch.token, parseEther("0.5"));
    const [buyEvent] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: bought.receipt.logs,
      eventName: "TokensBought",
    });
    expect(buyEvent!.args.acceptedGross).toBe(parseEther("0.5"));
    expect(buyEvent!.args.totalFee).toBe(parseEther("0.005"));
    expect(
      parseEventLogs({
        abi: feeManagerV3Abi,
        logs: bought.receipt.logs,
        eventName: "FeesDeposited",
      })[0]?.address.toLowerCase(),
    ).toBe(feeManager);
    const balance = await trader.balanceOf(launch.token);
    expect(balance).toBe(buyEvent!.args.tokensOut);

    const sold = await trader.sell(launch.token, balance / 4n);
    const [sellEvent] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: sold.receipt.logs,
      eventName: "TokensSold",
    });
    expect(sellEvent!.args.tokensIn).toBe(balance / 4n);
    expect(await trader.balanceOf(launch.token)).toBe(balance - balance / 4n);
    // The first sell approved the curve (a transaction of its own); later sells need none.
    expect(sold.approval?.receipt.status).toBe("success");
    expect((await trader.sell(launch.token, balance / 4n)).approval).toBeUndefined();

    // Graduation on a fresh curve: the exact gross is accepted, the overpayment refunded.
    const other = await trader.createToken("Straight Up", "UP");
    const graduation = await trader.graduate(other.token);
    expect(graduation.pool).toBe(other.pool);
    const [gradBuy] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: graduation.receipt.logs,
      eventName: "TokensBought",
    });
    expect(gradBuy!.args.acceptedGross).toBe(EXACT_GRADUATION_GROSS);
    expect(gradBuy!.args.refund).toBe(gradBuy!.args.submittedGross - EXACT_GRADUATION_GROSS);
    const [graduated] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: graduation.receipt.logs,
      eventName: "Graduated",
    });
    expect(graduated!.args.tokenAmount).toBe(LP_ALLOCATION);
    expect(graduated!.args.graduationManager.toLowerCase()).toBe(graduationManager);
    const [settled] = parseEventLogs({
      abi: graduationManagerV3Abi,
      logs: graduation.receipt.logs,
      eventName: "GraduatedV3",
    });
    expect(settled!.address.toLowerCase()).toBe(graduationManager);
    expect(settled!.args.liquidity).toBeGreaterThan(0n);
    // The curve is closed: another buy reverts.
    await expect(trader.buy(other.token, parseEther("0.01"))).rejects.toThrow();

    // Pool swaps in both directions on the canonical pool.
    const ethIn = await trader.swapExactEthForTokens(other.token, parseEther("0.2"));
    const tokenIn = await trader.swapExactTokensForEth(
      other.token,
      (await trader.balanceOf(other.token)) / 10n,
    );
    for (const result of [ethIn, tokenIn]) {
      const swaps = parseEventLogs({ abi: uniswapV3PoolAbi, logs: result.receipt.logs, eventName: "Swap" });
      expect(swaps).toHaveLength(1);
      expect(swaps[0]!.address.toLowerCase()).toBe(other.pool);
    }
  });

  it("behavior: the simulator launches, trades, graduates and swaps on pools", async () => {
    const devnet = await boot({ blockTime: "automine" });
    const stats = await runSimulator({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      seed: 7,
      tps: 40,
      traders: 6,
      tokens: 3,
      // An upper bound only: the run ends once every kind of action has been mined at least once.
      durationSeconds: 240,
      until: (s) =>
        s.launches > 0 && s.buys > 0 && s.sells > 0 && s.graduations > 0 && s.swaps > 0 && s.feedUpdates > 0,
      graduateEvery: 15,
      feedIntervalSeconds: 1,
    });
    // Concurrent wallets sometimes race a graduation (the trade then reverts): rare, never systematic.
    expect(stats.failed).toBeLessThan(Math.max(5, stats.transactions / 10));
    const seen = await countTopics(devnet.rpcUrl, devnet.deployment.startBlock);
    expect(seen.launched).toBeGreaterThan(0);
    expect(seen.bought).toBeGreaterThan(0);
    expect(seen.sold).toBeGreaterThan(0);
    expect(seen.graduated).toBeGreaterThan(0);
    expect(seen.graduatedV3).toBe(seen.graduated);
    expect(seen.swaps).toBeGreaterThan(0);
    expect(seen.launched).toBe(stats.launches);
    expect(seen.graduated).toBe(stats.graduations);
    expect(seen.swaps).toBe(stats.swaps);
    expect(stats.feedUpdates).toBeGreaterThan(0);
  });

  it("behavior: the simulator produces every risk cohort: dev buys, snipers, side wallets funded by creators, creator sells", async () => {
    // Blocks at an interval, as `pnpm start` mines them: the snipers' buys share the next block.
    const devnet = await boot({ blockTime: 1 });
    const seed = 11;
    const wallets = new Set(simulatorKeys(seed, 6).map((k) => privateKeyToAccount(k).address.toLowerCase()));
    await runSimulator({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      seed,
      tps: 6,
      traders: 6,
      tokens: 3,
      durationSeconds: 240,
      // Until every cohort the assertions read has been mined at least once (a loaded machine
      // can delay a snipe past two blocks, or let a sniper's buy precede the creator's).
      until: (s) =>
        s.launches >= 5 &&
        s.sells >= 8 &&
        s.snipes >= 1 &&
        s.devBuys >= 1 &&
        s.insiderTransfers >= 1 &&
        s.creatorSells >= 1,
      graduateEvery: 0,
      economyShare: 0,
      feedIntervalSeconds: 0,
    });
    // The cohorts as docs/api.md defines them, read from the raw logs.
    const logs = await rpc<never[]>(devnet.rpcUrl, "eth_getLogs", [
      { fromBlock: `0x${devnet.deployment.startBlock.toString(16)}` },
    ]);
    /** The parsed logs of three ABIs, read by event name. */
    type AnyLog = {
      eventName: string;
      address: string;
      blockNumber: bigint;
      // Each event carries its own: launch (creator, curve, token), trade (buyer | seller), Transfer (from, to).
      args: {
        creator: string;
        curve: string;
        token: string;
        buyer: string;
        seller: string;
        from: string;
        to: string;
      };
    };
    const events = parseEventLogs({
      abi: [...zonkFactoryV3Abi, ...zonkCurveV3Abi, ...erc20Abi],
      logs,
    }) as unknown as AnyLog[];
    const seen = { devBuy: 0, sniper: 0, insider: 0, creatorSell: 0 };
    for (const launch of events.filter((e) => e.eventName === "TokenLaunchedV3")) {
      const creator = launch.args.creator.toLowerCase();
      const curve = launch.args.curve.toLowerCase();
      const trades = events
        .filter(
          (e) =>
            e.address.toLowerCase() === curve &&
            (e.eventName === "TokensBought" || e.eventName === "TokensSold"),
        )
        .map((e) => ({
          trader: (e.eventName === "TokensBought" ? e.args.buyer : e.args.seller).toLowerCase(),
          buy: e.eventName === "TokensBought",
          block: BigInt(e.blockNumber),
        }));
      if (trades[0]?.trader === creator && trades[0].buy) seen.devBuy += 1;
      if (trades.some((t) => t.trader === creator && !t.buy)) seen.creatorSell += 1;
      const first = new Map<string, (typeof trades)[number]>();
      for (const t of trades) if (!first.has(t.trader)) first.set(t.trader, t);
      seen.sniper += [...first.values()].filter(
        (t) => t.trader !== creator && t.buy && t.block <= BigInt(launch.blockNumber) + 2n,
      ).length;
      seen.insider += events.filter(
        (e) =>
          e.eventName === "Transfer" &&
          e.address.toLowerCase() === launch.args.token.toLowerCase() &&
          e.args.from.toLowerCase() === creator &&
          wallets.has(e.args.to.toLowerCase()) &&
          e.args.to.toLowerCase() !== creator,
      ).length;
    }
    expect(seen.devBuy).toBeGreaterThan(0);
    expect(seen.sniper).toBeGreaterThan(0);
    expect(seen.insider).toBeGreaterThan(0);
    expect(seen.creatorSell).toBeGreaterThan(0);
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
    expect(seen.launched).toBe(4);
    expect(seen.graduated).toBe(1);
    expect(seen.graduatedV3).toBe(1);
    expect(seen.swaps).toBe(10);
    expect(seen.sold).toBeGreaterThan(500);
    expect(result.blocks).toBeLessThan(60);
    // Each curve trade also logs a Transfer and FeesDeposited.
    expect(result.events).toBeGreaterThan(9_000);
    expect(result.tokens).toHaveLength(4);
    // Automine is restored.
    expect(await rpc<boolean>(devnet.rpcUrl, "anvil_getAutomine")).toBe(true);
  });

  it("behavior: the history loader puts the background into every block it mines and counts it apart", async () => {
    const devnet = await boot({ blockTime: "automine" });
    const result = await loadHistory({
      rpcUrl: devnet.rpcUrl,
      deployment: devnet.deployment,
      trades: 300,
      tokens: 3,
      seed: 4,
      background: { transfersPerBlock: 100, swapsPerBlock: 10 },
    });
    expect(result.trades).toBe(300);
    expect(result.backgroundEmitter).toMatch(/^0x[0-9a-f]{40}$/);
    expect(result.backgroundLogs).toBe(result.blocks * 110);
    const seen = await countTopics(devnet.rpcUrl, result.fromBlock);
    expect(seen.swaps).toBe(result.blocks * 10); // only the background's: no graduation here
  });
});
