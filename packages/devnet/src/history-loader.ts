import { uniswapV3PoolAbi } from "@tmi/contracts";
import { INITIAL_CURVE_STATE, zonkCurveV3Abi, zonkFactoryV3Abi } from "@tmi/shared/chain";
import {
  type Address,
  encodeEventTopics,
  encodeFunctionData,
  getAddress,
  keccak256,
  slice,
  stringToHex,
} from "viem";
import { type BackgroundOptions, backgroundRates, deployBackgroundEmitter } from "./background.js";
import { localPublicClient, rpc } from "./clients.js";
import type { Deployment } from "./deploy.js";
import { BlockSender, checkedBatch, GAS_PRICE, hex } from "./history-sender.js";
import { type HistoryToken, HistoryTrades, minBigint, SWAPS_PER_GRADUATION } from "./history-trades.js";
import { Random, tokenName } from "./random.js";

/** Options of {@link loadHistory}. */
export interface LoadHistoryOptions {
  rpcUrl: string;
  deployment: Deployment;
  /** Trades to produce: curve buys and sells plus canonical-pool swaps after graduation (exact count). */
  trades: number;
  /**
   * Tokens to launch (default max(5, trades / 2000), at most 100,000). Trades favour a few tokens
   * (squared-uniform pick), so with many tokens most are never traded after their launch, as on a
   * real launchpad. A launch costs about 20 % of a block's gas: ≈ 5 launches per block.
   */
  tokens?: number;
  /**
   * Tokens pushed through graduation at the end (3 ETH net each), each followed by 10 pool swaps
   * in both directions (default 0; at most `tokens` − 1: one token keeps trading on its curve).
   */
  graduations?: number;
  /** PRNG seed (default 1): wallets, sizes and the order of trades. */
  seed?: number;
  /** Trader addresses (default 200), impersonated and funded with anvil_setBalance. */
  traders?: number;
  /** Transactions per mined block (default 250). */
  tradesPerBlock?: number;
  /**
   * Base-like background in every mined block: unrelated `Transfer`s and `Swap`s from a
   * `DevnetBackgroundEmitter` (not the platform's; deployed first). Omitted: none.
   */
  background?: BackgroundOptions;
  /** Progress output. */
  logger?: { info(message: string): void };
}

/** What {@link loadHistory} produced. */
export interface LoadHistoryResult {
  /** Trades mined (TokensBought + TokensSold + canonical-pool Swap events). */
  trades: number;
  /** Logs of the background (see {@link LoadHistoryOptions.background}); 0 without one. */
  backgroundLogs: number;
  /** The background's emitter, when there is one. */
  backgroundEmitter?: `0x${string}`;
  /**
   * All platform logs emitted in the loaded blocks (the background's not counted): trades, Transfer, FeesDeposited, launch events
   * (TokenRegistered, LaunchRegistered, TokenLaunchedV3, pool creation), graduation events, and the
   * Approval logs of sellers' approvals (not indexed by the indexer).
   */
  events: number;
  /** Blocks mined. */
  blocks: number;
  fromBlock: number;
  toBlock: number;
  seconds: number;
  tradesPerSecond: number;
  tokens: `0x${string}`[];
}

const WAD = 10n ** 18n;

/**
 * Fast history for benchmarks, on the zonk.fun V3 contracts: launches `tokens` tokens through the
 * factory and mines `trades` trades in large blocks (automine off, `tradesPerBlock` transactions
 * per `evm_mine`, JSON-RPC batches of `eth_sendTransaction` from impersonated wallets with locally
 * managed nonces and fixed gas, base fee pinned). Each curve is mirrored locally with the shared
 * curve math (`quoteBuy`/`quoteSell`) to keep it below graduation (at most 60 % of the 3 ETH net)
 * and to size sells within balances (at most half of what the seller is known to hold; a seller
 * approves the curve before its first sell of a token). Then graduates `graduations` tokens with
 * one buy each and swaps on their canonical pools through the SwapRouter (ETH→token, then the
 * graduating buyer sells token→WETH). Missing trades (reverted transactions) are topped up with
 * curve trades, so the count is exact. Restores automine if it was on. When the chain's clock is
 * more than two minutes behind (a devnet started with a past `timestamp`), the blocks are spread
 * evenly from there to now (realistic candles), and the chain's clock is set to now at the end.
 * Anvil only (anvil_* methods).
 * @throws Error when the chain refuses transactions repeatedly or no token could be launched.
 */
export async function loadHistory(options: LoadHistoryOptions): Promise<LoadHistoryResult> {
  const { rpcUrl, deployment } = options;
  const started = performance.now();
  const seed = options.seed ?? 1;
  const random = new Random(seed);
  const client = localPublicClient(rpcUrl, deployment.chainId);
  const { factory, swapRouter, weth } = deployment.contracts;
  const tokenCount = Math.min(
    100_000,
    Math.max(1, options.tokens ?? Math.max(5, Math.floor(options.trades / 2000))),
  );
  const graduations = Math.max(0, Math.min(tokenCount - 1, options.graduations ?? 0));
  const perBlock = Math.max(1, options.tradesPerBlock ?? 250);
  const traders = Array.from({ length: Math.max(2, options.traders ?? 200) }, (_, i) =>
    getAddress(slice(keccak256(stringToHex(`tmi-history:${seed}:${i}`)), 12)),
  );

  const wasAutomine = await rpc<boolean>(rpcUrl, "anvil_getAutomine");
  if (wasAutomine) await rpc(rpcUrl, "evm_setAutomine", [false]);
  const baseFee = (await client.getBlock({ blockTag: "latest" })).baseFeePerGas ?? 0n;
  const pinnedBaseFee = baseFee < GAS_PRICE / 2n ? baseFee : GAS_PRICE / 2n;
  const head = await client.getBlock({ blockTag: "latest" });
  const blockGasLimit = head.gasLimit;
  let fromBlock = Number(head.number) + 1;
  const background = options.background ? backgroundRates(options.background) : null;
  const backgroundEmitter = background
    ? await deployBackgroundEmitter(rpcUrl, deployment.chainId, async () => {
        await rpc(rpcUrl, "evm_mine");
      })
    : undefined;
  if (backgroundEmitter) fromBlock = Number(await client.getBlockNumber()) + 1;

  const setup = traders.flatMap((address) => [
    { method: "anvil_setBalance", params: [address, hex(1_000_000n * WAD)] },
    { method: "anvil_impersonateAccount", params: [address] },
  ]);
  await checkedBatch(rpcUrl, setup);
  const nonceResults = await checkedBatch(
    rpcUrl,
    traders.map((address) => ({ method: "eth_getTransactionCount", params: [address, "pending"] })),
  );
  const nonces = new Map<Address, bigint>(traders.map((a, i) => [a, BigInt(nonceResults[i] as string)]));

  // A launch deploys a token, a curve and a Uniswap V3 pool: measure its gas once.
  const launchCall = (i: number) => {
    const { name, symbol } = tokenName(random, i);
    return {
      from: traders[i % traders.length]!,
      to: factory,
      data: encodeFunctionData({
        abi: zonkFactoryV3Abi,
        functionName: "createToken",
        // Names repeat across launches; (sender, name, symbol) stays unique with the index in the name.
        args: [`${name} ${i + 1}`, symbol, keccak256(stringToHex(`tmi-history:${seed}:launch:${i}`))],
      }),
    };
  };
  const firstLaunch = launchCall(0);
  const launchGasEstimate = BigInt(
    await rpc<string>(rpcUrl, "eth_estimateGas", [
      { from: firstLaunch.from, to: firstLaunch.to, data: firstLaunch.data },
    ]),
  );
  const launchGas = minBigint((launchGasEstimate * 3n) / 2n, blockGasLimit);

  // A chain whose clock is in the past (anvil --timestamp, see startDevnet's `timestamp`): spread the
  // history's blocks evenly up to now, then set the chain's clock to now.
  const now = Math.floor(Date.now() / 1000);
  const spreadFrom = Number(head.timestamp);
  const spread = now - spreadFrom > 120;
  const launchesPerBlock = Number(blockGasLimit / launchGas) || 1;
  const expectedBlocks =
    Math.ceil(options.trades / perBlock) + Math.ceil(tokenCount / launchesPerBlock) + 2 * graduations + 4;
  const step = spread ? Math.max(1, Math.floor((now - 60 - spreadFrom) / expectedBlocks)) : 0;
  const sender = new BlockSender({
    rpcUrl,
    nonces,
    pinnedBaseFee,
    fromBlock,
    ...(backgroundEmitter && background
      ? { background: { emitter: backgroundEmitter, rates: background } }
      : {}),
    ...(spread ? { spread: { from: spreadFrom, step, until: now } } : {}),
  });

  // 1. Launches (each launch is the creator's: traders in turn).
  sender.push({ ...firstLaunch, gas: launchGas });
  for (let i = 1; i < tokenCount; i++) {
    sender.push({ ...launchCall(i), gas: launchGas });
    if (sender.queued >= 50) await sender.send();
  }
  await sender.send();
  const launchLogs = await client.getContractEvents({
    address: factory,
    abi: zonkFactoryV3Abi,
    eventName: "TokenLaunchedV3",
    fromBlock: BigInt(fromBlock),
    toBlock: "latest",
  });
  const tokens: HistoryToken[] = launchLogs.map((log) => ({
    address: log.args.token!.toLowerCase() as `0x${string}`,
    curve: log.args.curve!.toLowerCase() as `0x${string}`,
    state: { ...INITIAL_CURVE_STATE },
    holders: new Map<Address, bigint>(),
    graduated: false,
  }));
  if (tokens.length === 0) throw new Error("loadHistory: no token was launched");
  const trades = new HistoryTrades({
    rpcUrl,
    client,
    sender,
    random,
    traders,
    tokens,
    swapRouter,
    weth,
    blockGasLimit,
  });

  // 2. Curve trades (popular tokens get more trades: squared-uniform index).
  const curveTrades = Math.max(0, options.trades - graduations * (1 + SWAPS_PER_GRADUATION));
  let lastLog = performance.now();
  const pushTrades = async (count: number) => {
    for (let i = 0; i < count; i++) {
      trades.curveTrade();
      if (sender.queued >= perBlock) await sender.send();
      if (options.logger && performance.now() - lastLog > 5_000) {
        lastLog = performance.now();
        const seconds = (performance.now() - started) / 1000;
        options.logger.info(
          `history: ${i + 1}/${count} trades sent, ${sender.blocks} blocks, ${((i + 1) / seconds).toFixed(0)} trades/s`,
        );
      }
    }
    await sender.send();
  };
  await pushTrades(curveTrades);

  // 3. Graduations (one buy each, from the chain's reserve: exact), then swaps on the pools.
  await trades.graduate(tokens.slice(0, graduations));
  await sender.send();

  const tCount = performance.now();
  // 4. Count, top up what reverted, count again.
  let toBlock = Number(await client.getBlockNumber());
  let counted = await countLogs(rpcUrl, fromBlock, toBlock, backgroundEmitter);
  for (let attempt = 0; counted.trades < options.trades && attempt < 5; attempt++) {
    options.logger?.info(
      `history: ${options.trades - counted.trades} trades missing (reverted or not mined): topping up`,
    );
    await pushTrades(options.trades - counted.trades);
    toBlock = Number(await client.getBlockNumber());
    counted = await countLogs(rpcUrl, fromBlock, toBlock, backgroundEmitter);
  }
  options.logger?.info(
    `history: counted logs in ${((performance.now() - tCount) / 1000).toFixed(1)} s` +
      (sender.refused > 0
        ? `; the node refused ${sender.refused} sends (e.g. "${sender.refusedSample}")`
        : ""),
  );
  await checkedBatch(
    rpcUrl,
    traders.map((address) => ({ method: "anvil_stopImpersonatingAccount", params: [address] })),
  );
  if (spread) await rpc(rpcUrl, "evm_setTime", [Math.floor(Date.now() / 1000)]);
  if (wasAutomine) await rpc(rpcUrl, "evm_setAutomine", [true]);
  const seconds = (performance.now() - started) / 1000;
  const result: LoadHistoryResult = {
    trades: counted.trades,
    events: counted.events,
    backgroundLogs: counted.background,
    ...(backgroundEmitter ? { backgroundEmitter } : {}),
    blocks: sender.blocks,
    fromBlock,
    toBlock,
    seconds,
    tradesPerSecond: counted.trades / seconds,
    tokens: tokens.map((t) => t.address),
  };
  options.logger?.info(
    `history: ${result.trades} trades, ${result.events} events in ${result.blocks} blocks (${fromBlock}-${toBlock}) in ${seconds.toFixed(1)} s = ${result.tradesPerSecond.toFixed(0)} trades/s`,
  );
  return result;
}

const TRADE_TOPICS = new Set(
  [
    encodeEventTopics({ abi: zonkCurveV3Abi, eventName: "TokensBought" })[0],
    encodeEventTopics({ abi: zonkCurveV3Abi, eventName: "TokensSold" })[0],
    encodeEventTopics({ abi: uniswapV3PoolAbi, eventName: "Swap" })[0],
  ].map((t) => (t as string | undefined)?.toLowerCase()),
);

/**
 * Counts all logs and trade logs (TokensBought, TokensSold, Swap) in [fromBlock, toBlock] (4 ranges
 * in flight); the logs of `background` (an emitter) are counted apart.
 */
async function countLogs(
  rpcUrl: string,
  fromBlock: number,
  toBlock: number,
  background?: string,
): Promise<{ trades: number; events: number; background: number }> {
  let trades = 0;
  let events = 0;
  let backgroundLogs = 0;
  const ranges: [number, number][] = [];
  for (let start = fromBlock; start <= toBlock; start += 40)
    ranges.push([start, Math.min(toBlock, start + 39)]);
  const worker = async () => {
    for (let range = ranges.shift(); range; range = ranges.shift()) {
      const logs = await rpc<{ address: string; topics: string[] }[]>(rpcUrl, "eth_getLogs", [
        { fromBlock: hex(range[0]), toBlock: hex(range[1]) },
      ]);
      for (const log of logs) {
        if (log.address.toLowerCase() === background) {
          backgroundLogs += 1;
          continue;
        }
        events += 1;
        if (TRADE_TOPICS.has(log.topics[0]?.toLowerCase() ?? "")) trades += 1;
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return { trades, events, background: backgroundLogs };
}
