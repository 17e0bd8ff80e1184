import { devnetAggregatorAbi } from "@tmi/contracts";
import { zonkCurveV3Abi, zonkFactoryV3Abi } from "@tmi/shared/chain";
import { type Address, keccak256, parseEventLogs, stringToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { localPublicClient, rpc } from "./clients.js";
import type { Deployment } from "./deploy.js";
import { setEthUsdRound } from "./feeds.js";
import { Random, tokenName } from "./random.js";
import { createTrader, type Trader, type TxResult } from "./trader.js";

/** Counters of a simulator run. */
export interface SimulatorStats {
  launches: number;
  buys: number;
  sells: number;
  graduations: number;
  /** Uniswap V3 pool swaps (both directions) after graduation. */
  swaps: number;
  transfers: number;
  feedUpdates: number;
  /** Actions whose transaction was refused or reverted (counted, not retried). */
  failed: number;
  /** The first few failure messages (debugging). */
  errorSamples: string[];
  /** Ticks skipped because every trader was busy. */
  skipped: number;
  /** Mined transactions sent by the simulator. */
  transactions: number;
  seconds: number;
}

/** Progress output of the simulator (pino-compatible `info`). */
export interface SimulatorLogger {
  info(message: string): void;
}

/** Options of {@link runSimulator}. */
export interface SimulatorOptions {
  rpcUrl: string;
  deployment: Deployment;
  /** PRNG seed: the same seed gives the same wallets and decisions (default 1). */
  seed?: number;
  /** Tokens trading on the curve at a time (default 6): graduated tokens are replaced by new launches. */
  tokens?: number;
  /** Stop launching after this many tokens (default: no limit). */
  maxLaunches?: number;
  /** Trader wallets (default 8), derived from the seed and funded with anvil_setBalance. */
  traders?: number;
  /** Average actions per second (Poisson arrivals, default 2). */
  tps?: number;
  /** Stop after this many seconds; 0 or absent = until `signal` aborts (or `until` holds). */
  durationSeconds?: number;
  signal?: AbortSignal;
  /**
   * Stop as soon as this holds for the counters (checked after every tick; in-flight actions are
   * awaited). With `durationSeconds` as an upper bound, a test waits for a condition, not a time.
   */
  until?: (stats: Readonly<SimulatorStats>) => boolean;
  logger?: SimulatorLogger;
  /**
   * Every n-th action pushes the most advanced curve token through graduation (one buy of the
   * remaining ~3 ETH net; default 100; 0 = never).
   */
  graduateEvery?: number;
  /** Seconds between ETH/USD feed updates (random walk around the last answer; default 30; 0 = never). */
  feedIntervalSeconds?: number;
}

interface SimToken {
  address: Address;
  curve: Address;
  graduated: boolean;
}

const WAD = 10n ** 18n;

/** Private keys of the simulator's wallets for `seed` (index `traders` is the feed keeper). */
export function simulatorKeys(seed: number, count: number): `0x${string}`[] {
  return Array.from({ length: count + 1 }, (_, i) => keccak256(stringToHex(`tmi-simulator:${seed}:${i}`)));
}

/**
 * Traffic simulator: funded wallets (derived from `seed`) launch tokens through the factory's
 * `createToken(name, symbol, userSalt)` (half of them followed by the creator's first buy), buy
 * and sell on each token's curve with log-normal sizes at Poisson-distributed times (`tps` actions
 * per second on average), transfer tokens, push tokens through graduation every `graduateEvery`
 * actions (3 ETH net, as on Base) and then swap on their canonical Uniswap V3 pools (SwapRouter
 * `exactInputSingle`, both directions), and refresh the ETH/USD feed. Sells never exceed the
 * seller's balance (read before selling; a wallet runs one action at a time). A trade that loses a
 * race with another wallet's graduation reverts (`TradingClosed`) and is counted in `failed`.
 * Resolves with the counters when the duration is over, `signal` aborts or `until` holds (in-flight
 * actions are awaited).
 */
export async function runSimulator(options: SimulatorOptions): Promise<SimulatorStats> {
  const { rpcUrl, deployment } = options;
  const random = new Random(options.seed ?? 1);
  const traderCount = Math.max(1, options.traders ?? 8);
  const targetTokens = Math.max(1, options.tokens ?? 6);
  const tps = Math.max(0.01, options.tps ?? 2);
  const graduateEvery = options.graduateEvery ?? 100;
  const feedInterval = options.feedIntervalSeconds ?? 30;
  const client = localPublicClient(rpcUrl, deployment.chainId);
  const started = Date.now();
  const stats: SimulatorStats = {
    launches: 0,
    buys: 0,
    sells: 0,
    graduations: 0,
    swaps: 0,
    transfers: 0,
    feedUpdates: 0,
    failed: 0,
    skipped: 0,
    errorSamples: [],
    transactions: 0,
    seconds: 0,
  };

  const keys = simulatorKeys(options.seed ?? 1, traderCount);
  const addresses = keys.map((k) => privateKeyToAccount(k).address);
  for (const address of addresses) {
    const balance = await client.getBalance({ address });
    if (balance < 100n * WAD)
      await rpc(rpcUrl, "anvil_setBalance", [address, `0x${(10_000n * WAD).toString(16)}`]);
  }
  const traders: Trader[] = keys
    .slice(0, traderCount)
    .map((account) => createTrader({ rpcUrl, deployment, account }));
  const feedKey = keys[traderCount]!;
  const busy = new Set<number>();
  const tokens: SimToken[] = [];
  const holdings = traders.map(() => new Set<Address>());
  const inFlight = new Set<Promise<void>>();
  let actions = 0;

  const fail = (error: unknown) => {
    stats.failed += 1;
    // Usually a race with a graduation by another wallet: refresh the graduation flags.
    void refreshGraduations().catch(() => undefined);
    if (stats.errorSamples.length < 5) {
      const e = error as { shortMessage?: string; message?: string };
      stats.errorSamples.push(String(e.shortMessage ?? e.message ?? error).slice(0, 300));
    }
  };
  const noteReceipt = (result: TxResult) => {
    stats.transactions += result.approval ? 2 : 1;
    for (const log of parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: result.receipt.logs,
      eventName: "Graduated",
    })) {
      const token = tokens.find((t) => t.address.toLowerCase() === log.args.token.toLowerCase());
      if (token) token.graduated = true;
      stats.graduations += 1;
    }
  };

  async function act(index: number): Promise<void> {
    const trader = traders[index]!;
    const curveTokens = tokens.filter((t) => !t.graduated);
    const poolTokens = tokens.filter((t) => t.graduated);
    const held = [...holdings[index]!];
    actions += 1;
    const canLaunch = options.maxLaunches === undefined || tokens.length < options.maxLaunches;
    if (canLaunch && curveTokens.length < targetTokens && (curveTokens.length < 2 || random.chance(0.12))) {
      const { name, symbol } = tokenName(random, tokens.length);
      const userSalt = keccak256(
        stringToHex(`tmi-simulator:${options.seed ?? 1}:${trader.address}:${tokens.length}`),
      );
      const value = random.chance(0.5) ? random.ethAmount(0.05, 0.8, 0.001, 0.5) : 0n;
      // With a value, the creator's first buy follows (a second transaction: createToken is not payable).
      const result = await trader.createToken(name, symbol, { userSalt, value });
      tokens.push({ address: result.token, curve: result.curve, graduated: false });
      stats.launches += 1;
      noteReceipt(result);
      if (result.firstBuy) {
        noteReceipt(result.firstBuy);
        holdings[index]!.add(result.token);
        stats.buys += 1;
      }
      return;
    }
    if (graduateEvery > 0 && actions % graduateEvery === 0 && curveTokens.length > 0) {
      let best = curveTokens[0]!;
      let bestReserve = -1n;
      for (const t of curveTokens) {
        const reserve = await client.readContract({
          address: t.curve,
          abi: zonkCurveV3Abi,
          functionName: "activeEthReserve",
        });
        if (reserve > bestReserve) {
          best = t;
          bestReserve = reserve;
        }
      }
      const result = await trader.graduate(best.address);
      holdings[index]!.add(best.address);
      stats.buys += 1;
      noteReceipt(result);
      return;
    }
    const roll = random.next();
    if (poolTokens.length > 0 && roll < 0.25) {
      const token = random.pick(poolTokens).address;
      const balance = holdings[index]!.has(token) ? await trader.balanceOf(token) : 0n;
      if (balance > 0n && random.chance(0.45)) {
        noteReceipt(await trader.swapExactTokensForEth(token, random.fraction(balance, 0.1, 1)));
      } else {
        noteReceipt(await trader.swapExactEthForTokens(token, random.ethAmount(0.05, 0.8, 0.001, 1)));
        holdings[index]!.add(token);
      }
      stats.swaps += 1;
      return;
    }
    const heldCurve = held.filter((a) => curveTokens.some((t) => t.address === a));
    if (heldCurve.length > 0 && roll < 0.55) {
      const token = random.pick(heldCurve);
      const balance = await trader.balanceOf(token);
      if (balance > 0n) {
        const amount = random.chance(0.2) ? balance : random.fraction(balance, 0.1, 0.9);
        if (amount > 0n) {
          noteReceipt(await trader.sell(token, amount));
          stats.sells += 1;
          if (amount === balance) holdings[index]!.delete(token);
          return;
        }
      }
    }
    if (held.length > 0 && roll > 0.96 && traders.length > 1) {
      const token = random.pick(held);
      const balance = await trader.balanceOf(token);
      const to = (index + 1 + random.int(traders.length - 1)) % traders.length;
      if (balance > 0n) {
        noteReceipt(await trader.transfer(token, traders[to]!.address, random.fraction(balance, 0.05, 0.5)));
        holdings[to]!.add(token);
        stats.transfers += 1;
        return;
      }
    }
    if (curveTokens.length === 0) return;
    // Newer tokens attract more buyers.
    const recent = curveTokens.slice(-4);
    const token = random.chance(0.7) ? random.pick(recent).address : random.pick(curveTokens).address;
    noteReceipt(await trader.buy(token, random.ethAmount(0.04, 1, 0.001, 1)));
    holdings[index]!.add(token);
    stats.buys += 1;
  }

  async function refreshGraduations(): Promise<void> {
    for (const token of tokens) {
      if (token.graduated) continue;
      const graduated = await client.readContract({
        address: token.curve,
        abi: zonkCurveV3Abi,
        functionName: "graduated",
      });
      if (graduated) token.graduated = true;
    }
  }

  /**
   * Picks up tokens launched earlier (a resumed chain, a loaded history): the latest 24
   * `TokenLaunchedV3` of the factory, and what the wallets hold of them.
   */
  async function discover(): Promise<void> {
    const launches = await client.getContractEvents({
      address: deployment.contracts.factory,
      abi: zonkFactoryV3Abi,
      eventName: "TokenLaunchedV3",
      fromBlock: BigInt(deployment.startBlock),
      toBlock: "latest",
    });
    for (const launch of launches.slice(-24)) {
      const address = launch.args.token!.toLowerCase() as Address;
      const curve = launch.args.curve!.toLowerCase() as Address;
      const graduated = await client.readContract({
        address: curve,
        abi: zonkCurveV3Abi,
        functionName: "graduated",
      });
      tokens.push({ address, curve, graduated });
      for (const [index, trader] of traders.entries()) {
        if ((await trader.balanceOf(address)) > 0n) holdings[index]!.add(address);
      }
    }
  }

  async function updateFeed(): Promise<void> {
    const [roundId, answer] = await client.readContract({
      address: deployment.contracts.ethUsdFeed,
      abi: devnetAggregatorAbi,
      functionName: "latestRoundData",
    });
    const block = await client.getBlock({ blockTag: "latest" });
    const wallClock = BigInt(Math.floor(Date.now() / 1000));
    const at = block.timestamp > wallClock ? block.timestamp : wallClock;
    const next =
      answer > 0n ? answer + (answer * BigInt(Math.round(random.normal() * 40))) / 10_000n : 300_000_000_000n;
    await setEthUsdRound(
      rpcUrl,
      deployment,
      {
        roundId: roundId + 1n,
        answer: next,
        startedAt: at,
        updatedAt: at,
        answeredInRound: roundId + 1n,
      },
      { account: feedKey },
    );
    stats.feedUpdates += 1;
    stats.transactions += 1;
  }

  await discover();

  const deadline =
    options.durationSeconds && options.durationSeconds > 0 ? started + options.durationSeconds * 1000 : 0;
  const aborted = () =>
    options.signal?.aborted === true ||
    (deadline > 0 && Date.now() >= deadline) ||
    options.until?.(stats) === true;
  // Fresh answer first (a resumed or history-loaded chain may carry a stale one).
  if (feedInterval > 0 && !aborted()) await updateFeed().catch(fail);
  let lastFeed = Date.now();
  let lastLog = Date.now();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      options.signal?.addEventListener("abort", done, { once: true });
    });

  const track = (promise: Promise<void>) => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
  };

  while (!aborted()) {
    let wait = random.exponential(1000 / tps);
    if (deadline > 0) wait = Math.min(wait, Math.max(0, deadline - Date.now()));
    await sleep(wait);
    if (aborted()) break;
    if (feedInterval > 0 && Date.now() - lastFeed >= feedInterval * 1000) {
      lastFeed = Date.now();
      track(updateFeed().catch(fail));
    }
    const idle = traders.map((_, i) => i).filter((i) => !busy.has(i));
    if (idle.length === 0) {
      stats.skipped += 1;
      continue;
    }
    const index = random.pick(idle);
    busy.add(index);
    track(
      act(index)
        .catch(fail)
        .finally(() => busy.delete(index)),
    );
    if (options.logger && Date.now() - lastLog >= 10_000) {
      lastLog = Date.now();
      options.logger.info(formatStats(stats, (Date.now() - started) / 1000));
    }
  }
  // In-flight actions finish within seconds; never wait forever for one.
  await Promise.race([
    Promise.allSettled([...inFlight]),
    new Promise((resolve) => setTimeout(resolve, 60_000).unref()),
  ]);
  stats.seconds = (Date.now() - started) / 1000;
  options.logger?.info(`done: ${formatStats(stats, stats.seconds)}`);
  return stats;
}

/** One-line summary of simulator counters. */
export function formatStats(stats: SimulatorStats, seconds: number): string {
  return (
    `simulator ${seconds.toFixed(0)} s: ${stats.transactions} txs (${(stats.transactions / Math.max(seconds, 0.001)).toFixed(1)} tx/s), ` +
    `launches ${stats.launches}, buys ${stats.buys}, sells ${stats.sells}, graduations ${stats.graduations}, ` +
    `swaps ${stats.swaps}, transfers ${stats.transfers}, feed ${stats.feedUpdates}, failed ${stats.failed}`
  );
}
