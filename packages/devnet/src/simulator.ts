import { devnetAggregatorAbi } from "@tmi/contracts";
import {
  feeManagerV3Abi,
  permanentLPFeeVaultV3Abi,
  tokenCommunityVaultV3Abi,
  traderRewardsDistributorV3Abi,
  traderRewardsVaultV3Abi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { type Address, keccak256, parseEventLogs, stringToHex, zeroAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetAccounts } from "./accounts.js";
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
  /**
   * Sniping buys mined within two blocks of their token's launch (the sniper cohort of docs/api.md
   * "Risk and all-time high"); a snipe that a busy wallet or a slow machine delays past that is a
   * plain buy.
   */
  snipes: number;
  /**
   * Launches whose first curve trade is the creator's own buy (the dev-buy cohort); snipers racing
   * the creator's buy into the same block can take the first place.
   */
  devBuys: number;
  /** Creator-to-side-wallet transfers of the creator's own token (the insider cohort). */
  insiderTransfers: number;
  /** Sells by a token's creator of its own token on the curve. */
  creatorSells: number;
  feedUpdates: number;
  /**
   * Fee-economy transactions: creator fee claims, payout hand-overs, curve pot funding, LP fee
   * collections / forwards / claims, community forwards, reward publications and claims.
   */
  economy: number;
  /** Trader-reward distributions published (`publishRoot`). */
  distributions: number;
  /** Trader rewards claimed (`claim`). */
  rewardClaims: number;
  /** Distribution trees uploaded to `apiUrl` and stored (201 or 200). */
  treesUploaded: number;
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
  /**
   * Share of actions that exercise the fee economy (default 0.06; 0 = never): see
   * {@link runSimulator}.
   */
  economyShare?: number;
  /**
   * The API's base URL (the gateway): each published distribution's leaves are uploaded there
   * (`POST /api/v1/rewards/distributions/{id}/tree`) once it is indexed, so the wallets' rewards
   * show proofs. Absent: no upload.
   */
  apiUrl?: string;
}

interface SimToken {
  address: Address;
  curve: Address;
  graduated: boolean;
  /** The simulator wallet that launched it (-1: launched before this run). */
  creator: number;
}

const WAD = 10n ** 18n;

/** Private keys of the simulator's wallets for `seed` (index `traders` is the feed keeper). */
export function simulatorKeys(seed: number, count: number): `0x${string}`[] {
  return Array.from({ length: count + 1 }, (_, i) => keccak256(stringToHex(`tmi-simulator:${seed}:${i}`)));
}

/**
 * Traffic simulator: funded wallets (derived from `seed`) launch tokens through the factory's
 * `createToken(name, symbol, userSalt)` (half of them followed by the creator's first buy, raced
 * by sniping bots that buy at once; a creator sometimes hands part of its buy to side wallets), buy
 * and sell on each token's curve with log-normal sizes at Poisson-distributed times (`tps` actions
 * per second on average), transfer tokens, push tokens through graduation every `graduateEvery`
 * actions (3 ETH net, as on Base) and then swap on their canonical Uniswap V3 pools (SwapRouter
 * `exactInputSingle`, both directions), and refresh the ETH/USD feed. Sells never exceed the
 * seller's balance (read before selling; a wallet runs one action at a time). A trade that loses a
 * race with another wallet's graduation reverts (`TradingClosed`) and is counted in `failed`.
 * A share of actions (`economyShare`) exercises the fee economy: a creator claims its curve fees
 * (now and then first handing its payout address over to another wallet, which accepts), anyone
 * forwards a token's curve community / trader-rewards shares to the two vaults, a graduated
 * token's LP fees are collected into the LP fee vault, its community and trader-rewards shares
 * forwarded and the wallets' creator LP shares claimed, the community vault's funds forwarded to
 * the treasury, and — when the distributor's owner is a devnet account — a trader-rewards
 * distribution of an epoch is published over a few wallets (a real Merkle root, shared
 * `buildRewardTree`) and all its leaves but the last are claimed.
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
  const economyShare = options.economyShare ?? 0.06;
  const client = localPublicClient(rpcUrl, deployment.chainId);
  const started = Date.now();
  const stats: SimulatorStats = {
    launches: 0,
    buys: 0,
    sells: 0,
    graduations: 0,
    swaps: 0,
    transfers: 0,
    snipes: 0,
    devBuys: 0,
    insiderTransfers: 0,
    creatorSells: 0,
    feedUpdates: 0,
    economy: 0,
    distributions: 0,
    rewardClaims: 0,
    treesUploaded: 0,
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
      const result = await trader.createToken(name, symbol, { userSalt });
      tokens.push({ address: result.token, curve: result.curve, graduated: false, creator: index });
      stats.launches += 1;
      noteReceipt(result);
      // With a value, the creator's first buy (a second transaction: createToken is not payable),
      // sent together with the buys of sniping bots, which race it into the next block.
      const devBuy = value > 0n ? trader.buy(result.token, value) : undefined;
      if (random.chance(0.6)) snipe(result.token, index, result.receipt.blockNumber);
      if (devBuy) {
        const bought = await devBuy;
        noteReceipt(bought);
        holdings[index]!.add(result.token);
        stats.buys += 1;
        if (await firstTradeOf(result.curve, result.receipt.blockNumber, bought)) stats.devBuys += 1;
        // A creator that funds side wallets: part of its buy handed to one or two other wallets.
        if (traders.length > 1 && random.chance(0.4)) {
          const balance = await trader.balanceOf(result.token);
          for (let n = 1 + random.int(2); n > 0 && balance > 0n; n--) {
            const to = (index + 1 + random.int(traders.length - 1)) % traders.length;
            noteReceipt(
              await trader.transfer(result.token, traders[to]!.address, random.fraction(balance, 0.05, 0.2)),
            );
            holdings[to]!.add(result.token);
            stats.transfers += 1;
            stats.insiderTransfers += 1;
          }
        }
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
    if (economyShare > 0 && tokens.length > 0 && random.chance(economyShare)) {
      await economy(index);
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
    // A creator that dumps: now and then sells part of its own token.
    const own = curveTokens.filter((t) => t.creator === index && holdings[index]!.has(t.address));
    if (own.length > 0 && random.chance(0.15)) {
      const token = random.pick(own).address;
      const amount = random.fraction(await trader.balanceOf(token), 0.1, 0.5);
      if (amount > 0n) {
        noteReceipt(await trader.sell(token, amount));
        stats.sells += 1;
        stats.creatorSells += 1;
        return;
      }
    }
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

  /**
   * Whether `trade` is the first `TokensBought` of `curve` since its launch block (read from the
   * node's logs: snipers sent at the same time can be mined before it).
   */
  async function firstTradeOf(curve: Address, launchBlock: bigint, trade: TxResult): Promise<boolean> {
    const bought = await client.getContractEvents({
      address: curve,
      abi: zonkCurveV3Abi,
      eventName: "TokensBought",
      fromBlock: launchBlock,
      toBlock: trade.receipt.blockNumber,
    });
    return bought[0]?.transactionHash === trade.hash;
  }

  /**
   * Sniping bots: one or two wallets other than the creator buy a token just launched at once
   * (with blocks mined at an interval, their first trade lands within two blocks of the launch:
   * snipers, docs/api.md "Risk and all-time high"). Busy or not: a wallet's transactions are
   * serialized, and a buy never makes a concurrent sell of the same wallet exceed its balance.
   */
  function snipe(token: Address, creator: number, launchBlock: bigint): void {
    const others = traders.map((_, i) => i).filter((i) => i !== creator);
    for (let n = 1 + random.int(2); n > 0 && others.length > 0; n--) {
      const i = others.splice(random.int(others.length), 1)[0]!;
      track(
        traders[i]!.buy(token, random.ethAmount(0.05, 0.5, 0.001, 0.5))
          .then((result) => {
            noteReceipt(result);
            holdings[i]!.add(token);
            stats.buys += 1;
            if (result.receipt.blockNumber <= launchBlock + 2n) stats.snipes += 1;
          })
          .catch(fail),
      );
    }
  }

  const { feeManager, lpFeeVault, traderRewardsVault, rewardsDistributor, weth } = deployment.contracts;
  const traderOf = (address: string) =>
    traders.findIndex((t) => t.address.toLowerCase() === address.toLowerCase());
  // The distributor's owner publishes roots: a devnet account's key, when it is one.
  let publisher: Trader | null | undefined;
  let epoch = BigInt(Math.floor(Date.now() / 1000));
  const economyTx = (result: TxResult) => {
    noteReceipt(result);
    stats.economy += 1;
  };

  /** Published distributions whose trees are not uploaded yet (`apiUrl`): id and leaves. */
  const pendingTrees: { id: string; leaves: { claimant: string; amount: string }[] }[] = [];

  /**
   * Uploads the pending trees to `apiUrl`: a stored one (201, 200) is done, one not indexed yet
   * (404) or an API not answering yet stays for the next step, any other answer is logged and dropped.
   */
  async function uploadTrees(): Promise<void> {
    if (!options.apiUrl) return;
    for (const tree of [...pendingTrees]) {
      let status: number;
      try {
        const response = await fetch(`${options.apiUrl}/api/v1/rewards/distributions/${tree.id}/tree`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ leaves: tree.leaves }),
          signal: AbortSignal.timeout(10_000),
        });
        status = response.status;
        await response.body?.cancel();
      } catch {
        return;
      }
      if (status === 404 || status >= 500) continue;
      pendingTrees.splice(pendingTrees.indexOf(tree), 1);
      if (status === 200 || status === 201) stats.treesUploaded += 1;
      else options.logger?.info(`tree of distribution ${tree.id} refused: HTTP ${status}`);
    }
  }

  /** One fee-economy step of wallet `index` (see {@link runSimulator}). */
  async function economy(index: number): Promise<void> {
    await uploadTrees();
    const trader = traders[index]!;
    const token = random.pick(tokens);
    const roll = random.next();
    if (roll < 0.3) {
      // Creator side: claim curve fees; now and then hand the payout address over first.
      const payout = await client.readContract({
        address: feeManager,
        abi: feeManagerV3Abi,
        functionName: "creatorPayoutOf",
        args: [token.address],
      });
      // Only the launching creator proposes; the proposed wallet accepts.
      const owner = traderOf(payout);
      if (token.creator >= 0 && owner >= 0 && traders.length > 1 && random.chance(0.15)) {
        const next = (owner + 1 + random.int(traders.length - 1)) % traders.length;
        economyTx(await traders[token.creator]!.proposeCreatorPayout(token.address, traders[next]!.address));
        economyTx(await traders[next]!.acceptCreatorPayout(token.address));
      }
      const accrued = await client.readContract({
        address: feeManager,
        abi: feeManagerV3Abi,
        functionName: "creatorFeesAccrued",
        args: [token.address],
      });
      if (accrued > 0n) economyTx(await trader.claimCreatorFees(token.address));
      return;
    }
    if (roll < 0.5) {
      for (const result of (await trader.fundCurvePots(token.address)).results) economyTx(result);
      return;
    }
    if (roll < 0.75 && token.graduated) {
      const collected = await trader.collectLPFees(token.address);
      economyTx(collected);
      for (const asset of [token.address, weth]) {
        const share = await client.readContract({
          address: lpFeeVault,
          abi: permanentLPFeeVaultV3Abi,
          functionName: "communityLPFeesAccrued",
          args: [token.address, asset],
        });
        if (share === 0n) continue;
        await trader.forwardLPFees(token.address, asset);
        stats.economy += 2;
        stats.transactions += 2;
      }
      for (const [i, t] of traders.entries()) {
        for (const asset of [token.address, weth]) {
          const mine = await client.readContract({
            address: lpFeeVault,
            abi: permanentLPFeeVaultV3Abi,
            functionName: "creatorLPFeesAccrued",
            args: [t.address, asset],
          });
          if (mine > 0n && (i === index || random.chance(0.5))) economyTx(await t.claimLPFees(asset));
        }
      }
      return;
    }
    if (roll < 0.85) {
      const pot = await client.readContract({
        address: deployment.contracts.communityVault,
        abi: tokenCommunityVaultV3Abi,
        functionName: "accrued",
        args: [token.address, zeroAddress],
      });
      if (pot > 0n) economyTx(await trader.forwardCommunityFunds(token.address, zeroAddress));
      return;
    }
    await distribute(token);
  }

  /**
   * Publishes one epoch's distribution of half the token's ETH trader-rewards pot over up to three
   * wallets, then claims every leaf but the last (left for a later claim).
   */
  async function distribute(token: SimToken): Promise<void> {
    if (publisher === undefined) {
      const owner = await client.readContract({
        address: rewardsDistributor,
        abi: traderRewardsDistributorV3Abi,
        functionName: "owner",
      });
      const key = devnetAccounts().find((a) => a.address.toLowerCase() === owner.toLowerCase())?.privateKey;
      publisher = key ? createTrader({ rpcUrl, deployment, account: key }) : null;
    }
    if (!publisher) return;
    const pot = await client.readContract({
      address: traderRewardsVault,
      abi: traderRewardsVaultV3Abi,
      functionName: "accrued",
      args: [token.address, zeroAddress],
    });
    const count = Math.min(traders.length, 3);
    if (pot / 2n < BigInt(count)) return;
    const first = random.int(traders.length);
    const leaves = Array.from({ length: count }, (_, i) => ({
      claimant: traders[(first + i) % traders.length]!.address,
      amount: pot / 2n / BigInt(count) - BigInt(i),
    }));
    epoch += 1n;
    const published = await publisher.publishRewards(epoch, token.address, zeroAddress, leaves);
    economyTx(published);
    stats.distributions += 1;
    pendingTrees.push({
      id: published.distributionId,
      leaves: published.tree.leaves.map((l) => ({ claimant: l.claimant, amount: l.amount.toString() })),
    });
    for (const leaf of published.tree.leaves.slice(0, -1)) {
      const claimant = traders[traderOf(leaf.claimant)]!;
      economyTx(await claimant.claimReward(epoch, token.address, zeroAddress, leaf.amount, leaf.proof));
      stats.rewardClaims += 1;
    }
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
      tokens.push({ address, curve, graduated, creator: -1 });
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
    `swaps ${stats.swaps}, transfers ${stats.transfers} (insider ${stats.insiderTransfers}), snipes ${stats.snipes}, ` +
    `dev buys ${stats.devBuys}, creator sells ${stats.creatorSells}, feed ${stats.feedUpdates}, ` +
    `economy ${stats.economy} (distributions ${stats.distributions}, trees uploaded ${stats.treesUploaded}, reward claims ${stats.rewardClaims}), failed ${stats.failed}`
  );
}
