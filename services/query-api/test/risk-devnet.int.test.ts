// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies and viem logs in tests
// Risk, all-time high and holder tags (docs/api.md "Risk and all-time high") recomputed from the raw
// logs of a devnet, independently of the indexer: `TokenLaunchedV3` (creator, launch block),
// `TokensBought`/`TokensSold` of the curve, `Swap` of the canonical pool (trader = the transaction's
// sender, price from sqrtPriceX96), every `Transfer` of the token, the platform contracts read from
// their getters and the ETH/USD feed's round at the all-time high's block — folded by the
// definitions and compared field by field with the token detail's `risk` and `ath`, the list
// item's compact `risk`, the holders' `tags` and every `?tag=` page (pages of 2 with cursors).
// History: a launch whose block also holds the creator's dev buy and a launch-block buyer (automine
// off, one mined block), buys in the two blocks after it, a wallet whose first trade is a sell in
// the window, a late buyer, transfers from the creator to side wallets (one sells), creator sells,
// ~40 insiders (concentration buckets beyond 30 holders), a graduation and pool swaps; then a
// second token sniped one block after its launch, and an `anvil_reorg` that orphans that buy.

import {
  createTrader,
  type Devnet,
  localPublicClient,
  localWalletClient,
  rpc,
  type Trader,
} from "@tmi/devnet";
import {
  aggregatorV3Abi,
  curveSpotPrice,
  erc20Abi,
  graduationCustodyV3Abi,
  graduationManagerV3Abi,
  poolPriceFromSqrtPriceX96,
  uniswapV3PoolAbi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type IndexedDevnetApp, jsonReader, type QueryApiApp, startIndexedDevnetApp } from "./harness.js";

const ETH = 10n ** 18n;
const WAD = 10n ** 18n;
const ZERO = "0x0000000000000000000000000000000000000000";
const DEADLINE = 2n ** 40n;
const TAGS = ["creator", "insider", "launch_block_buyer", "sniper"] as const;

let env: IndexedDevnetApp<QueryApiApp>;
let devnet: Devnet;
let app: QueryApiApp;
let wallets: Trader[];
const tokens: { token: `0x${string}`; curve: `0x${string}`; pool: `0x${string}` | null }[] = [];

const { get, all } = jsonReader(() => app);

const bps = (amount: bigint, supply: bigint) => Number((amount * 10_000n) / supply);

/** `wei` × `answer` / 10^26 as the API's exact decimal (trailing fractional zeros trimmed). */
function usd(wei: bigint, answer: bigint): string {
  const scaled = wei * answer;
  const whole = scaled / 10n ** 26n;
  const fraction = (scaled % 10n ** 26n).toString().padStart(26, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

interface ChainTrade {
  trader: string;
  buy: boolean;
  block: bigint;
  logIndex: number;
  timestamp: bigint;
  tokens: bigint;
  reserve: bigint;
  price: bigint | null;
}

/** The recomputation of one token from the chain as it is now: expected risk, ath, holders with tags. */
async function recompute(
  token: `0x${string}`,
): Promise<{ risk: any; ath: any; holders: any[]; history: (interval: number) => any[] }> {
  const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
  const { factory, graduationManager, feeManager, ethUsdFeed } = devnet.deployment.contracts;
  const [launch] = (await client.getLogs({
    address: factory,
    event: zonkFactoryV3Abi.find((x) => x.type === "event" && x.name === "TokenLaunchedV3")!,
    args: { token },
    fromBlock: 0n,
  })) as any[];
  const creator: string = launch.args.creator.toLowerCase();
  const launchBlock: bigint = launch.blockNumber;
  const supply: bigint = await client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: "totalSupply",
  });
  const curve = (
    await client.readContract({
      address: factory,
      abi: zonkFactoryV3Abi,
      functionName: "curveOf",
      args: [token],
    })
  ).toLowerCase() as `0x${string}`;
  const read = (functionName: "canonicalPoolOf" | "custodianOf" | "residualEscrowOf") =>
    client.readContract({
      address: graduationManager,
      abi: graduationManagerV3Abi,
      functionName,
      args: [token],
    });
  const pool = (await read("canonicalPoolOf")).toLowerCase() as `0x${string}`;
  const custodian = (await read("custodianOf")).toLowerCase() as `0x${string}`;
  const platform = new Set(
    [
      ZERO,
      token,
      factory,
      graduationManager,
      feeManager,
      curve,
      pool,
      custodian,
      await read("residualEscrowOf"),
    ].map((x) => x.toLowerCase()),
  );
  if (custodian !== ZERO) {
    const feeVault = await client.readContract({
      address: custodian,
      abi: graduationCustodyV3Abi,
      functionName: "feeVault",
    });
    platform.add(feeVault.toLowerCase());
    for (const functionName of ["communityVault", "traderRewardsVault"] as const)
      platform.add(
        (
          await client.readContract({ address: feeVault, abi: graduationCustodyV3Abi, functionName })
        ).toLowerCase(),
      );
  }
  const times = new Map<bigint, bigint>();
  const timeOf = async (block: bigint) => {
    let t = times.get(block);
    if (t === undefined) {
      t = (await client.getBlock({ blockNumber: block })).timestamp;
      times.set(block, t);
    }
    return t;
  };

  // Trades in chain order, each priced after it (curve: spotPrice of the replayed curve state).
  const trades: ChainTrade[] = [];
  const curveLogs = (await client.getLogs({
    address: curve,
    events: zonkCurveV3Abi.filter(
      (x) => x.type === "event" && (x.name === "TokensBought" || x.name === "TokensSold"),
    ),
    fromBlock: 0n,
  })) as any[];
  let sold = 0n;
  let reserve = 0n;
  for (const log of curveLogs) {
    const bought = log.eventName === "TokensBought";
    if (bought) {
      sold += log.args.tokensOut;
      reserve += log.args.netCurveInput;
    } else {
      sold -= log.args.tokensIn;
      reserve -= log.args.grossCurveOutput;
    }
    trades.push({
      trader: (bought ? log.args.buyer : log.args.seller).toLowerCase(),
      buy: bought,
      block: log.blockNumber,
      logIndex: log.logIndex,
      timestamp: await timeOf(log.blockNumber),
      tokens: bought ? log.args.tokensOut : log.args.tokensIn,
      reserve: bought ? log.args.acceptedGross : log.args.netSellerOutput,
      price: curveSpotPrice(sold, reserve),
    });
  }
  if (custodian !== ZERO) {
    const token0 = (
      await client.readContract({ address: pool, abi: uniswapV3PoolAbi, functionName: "token0" })
    ).toLowerCase();
    const swaps = (await client.getLogs({
      address: pool,
      event: uniswapV3PoolAbi.find((x) => x.type === "event" && x.name === "Swap")!,
      fromBlock: 0n,
    })) as any[];
    for (const log of swaps) {
      const tokenDelta: bigint = token0 === token ? log.args.amount0 : log.args.amount1;
      const wethDelta: bigint = token0 === token ? log.args.amount1 : log.args.amount0;
      const tx = await client.getTransaction({ hash: log.transactionHash });
      trades.push({
        trader: tx.from.toLowerCase(),
        buy: tokenDelta < 0n,
        block: log.blockNumber,
        logIndex: log.logIndex,
        timestamp: await timeOf(log.blockNumber),
        tokens: tokenDelta < 0n ? -tokenDelta : tokenDelta,
        reserve: wethDelta < 0n ? -wethDelta : wethDelta,
        price: poolPriceFromSqrtPriceX96(log.args.sqrtPriceX96, token0 === token),
      });
    }
  }
  trades.sort((a, b) => (a.block !== b.block ? (a.block < b.block ? -1 : 1) : a.logIndex - b.logIndex));

  // Balances and the creator's transfers out (to non-platform addresses other than itself).
  const balances = new Map<string, bigint>();
  const received = new Map<string, bigint>();
  let transferredOut = 0n;
  const transfers = (await client.getLogs({
    address: token,
    event: erc20Abi.find((x) => x.type === "event" && x.name === "Transfer")!,
    fromBlock: 0n,
  })) as any[];
  // Holders after each block with transfers (holder count over time).
  const counts: { timestamp: bigint; holders: number }[] = [];
  for (const log of transfers) {
    const from = log.args.from.toLowerCase();
    const to = log.args.to.toLowerCase();
    balances.set(from, (balances.get(from) ?? 0n) - log.args.value);
    balances.set(to, (balances.get(to) ?? 0n) + log.args.value);
    counts.push({
      timestamp: await timeOf(log.blockNumber),
      holders: [...balances].filter(([a, b]) => b > 0n && !platform.has(a)).length,
    });
    if (from === creator && to !== creator && !platform.has(to)) {
      transferredOut += log.args.value;
      received.set(to, (received.get(to) ?? 0n) + log.args.value);
    }
  }
  const balanceOf = (a: string) => {
    const b = balances.get(a) ?? 0n;
    return b > 0n ? b : 0n;
  };

  // Creator and dev buy.
  const mine = trades.filter((t) => t.trader === creator);
  const firstOther = trades.findIndex((t) => t.trader !== creator);
  const devBuys = (firstOther < 0 ? trades : trades.slice(0, firstOther)).filter((t) => t.buy);
  const soldTokens = mine.filter((t) => !t.buy).reduce((s, t) => s + t.tokens, 0n);

  // Cohorts.
  const firstTrade = new Map<string, ChainTrade>();
  for (const t of trades) if (!firstTrade.has(t.trader)) firstTrade.set(t.trader, t);
  const snipers = [...firstTrade.values()]
    .filter((t) => t.trader !== creator && t.buy && t.block <= launchBlock + 2n)
    .map((t) => t.trader);
  const launchBuyers = snipers.filter((w) => firstTrade.get(w)!.block === launchBlock);
  const insiders = [...received.keys()];
  const boughtBy = (w: string) =>
    trades.filter((t) => t.trader === w && t.buy).reduce((s, t) => s + t.tokens, 0n);
  const cohort = (members: string[]) => {
    const balance = members.reduce((s, w) => s + balanceOf(w), 0n);
    return {
      count: members.length,
      holding_count: members.filter((w) => balanceOf(w) > 0n).length,
      balance: balance.toString(),
      share_bps: bps(balance, supply),
    };
  };
  const holderList = [...balances.entries()]
    .filter(([a, b]) => b > 0n && !platform.has(a))
    .sort(([a, x], [b, y]) => (x !== y ? (y > x ? 1 : -1) : a < b ? -1 : 1));
  const sumOf = (rows: [string, bigint][]) => rows.reduce((s, [, b]) => s + b, 0n);
  const top10 = sumOf(holderList.slice(0, 10));
  const platformBalance = [...platform].filter((a) => a !== ZERO).reduce((s, a) => s + balanceOf(a), 0n);
  const risk = {
    creator: {
      address: creator,
      balance: balanceOf(creator).toString(),
      share_bps: bps(balanceOf(creator), supply),
      bought_tokens: mine
        .filter((t) => t.buy)
        .reduce((s, t) => s + t.tokens, 0n)
        .toString(),
      sold_tokens: soldTokens.toString(),
      transferred_out_tokens: transferredOut.toString(),
      has_sold: soldTokens > 0n,
    },
    dev_buy: {
      tokens: devBuys.reduce((s, t) => s + t.tokens, 0n).toString(),
      reserve: devBuys.reduce((s, t) => s + t.reserve, 0n).toString(),
      count: devBuys.length,
    },
    snipers: { ...cohort(snipers), bought_tokens: snipers.reduce((s, w) => s + boughtBy(w), 0n).toString() },
    launch_block_buyers: {
      ...cohort(launchBuyers),
      bought_tokens: launchBuyers.reduce((s, w) => s + boughtBy(w), 0n).toString(),
    },
    insiders: {
      ...cohort(insiders),
      received_tokens: insiders.reduce((s, w) => s + received.get(w)!, 0n).toString(),
    },
    top10_share_bps: bps(top10, supply),
    distribution_bps: {
      top_10: bps(top10, supply),
      top_11_30: bps(sumOf(holderList.slice(10, 30)), supply),
      top_31_50: bps(sumOf(holderList.slice(30, 50)), supply),
      rest: bps(sumOf(holderList.slice(50)), supply),
    },
    platform_share_bps: bps(platformBalance, supply),
    sniper_window_blocks: 2,
  };

  // All-time high: the first trade reaching the highest price.
  let ath: ChainTrade | null = null;
  for (const t of trades) if (t.price !== null && (ath === null || t.price > ath.price!)) ath = t;
  let athJson: any = null;
  if (ath) {
    const price = ath.price!;
    const current = [...trades].reverse().find((t) => t.price !== null)!.price!;
    const marketCap = (price * supply) / WAD;
    const [, answer, , updatedAt] = await client.readContract({
      address: ethUsdFeed,
      abi: aggregatorV3Abi,
      functionName: "latestRoundData",
      blockNumber: ath.block,
    });
    athJson = {
      price: price.toString(),
      market_cap: marketCap.toString(),
      block_number: Number(ath.block),
      timestamp: Number(ath.timestamp),
      drawdown_bps: Number(((price - current) * 10_000n) / price),
      market_cap_usd: answer > 0n && updatedAt <= ath.timestamp ? usd(marketCap, answer) : null,
    };
  }
  const tagsOf = (a: string) =>
    TAGS.filter(
      (tag) =>
        (tag === "creator" && a === creator) ||
        (tag === "insider" && insiders.includes(a)) ||
        (tag === "launch_block_buyer" && launchBuyers.includes(a)) ||
        (tag === "sniper" && snipers.includes(a)),
    );
  const holders = holderList.map(([address, balance]) => ({
    address,
    balance: balance.toString(),
    share_bps: bps(balance, supply),
    tags: tagsOf(address),
  }));
  // Every bucket from the launch's to the latest block's: the count after the last Transfer of a
  // block before the bucket's end (0 before any).
  const latest = (await client.getBlock()).timestamp;
  const history = (step: number) => {
    const items: { time: number; holder_count: number }[] = [];
    const launchTime = Number(counts[0]?.timestamp ?? latest);
    for (let b = launchTime - (launchTime % step); b <= Number(latest); b += step) {
      const before = counts.filter((c) => Number(c.timestamp) < b + step);
      items.push({ time: b, holder_count: before.length === 0 ? 0 : before[before.length - 1]!.holders });
    }
    return items;
  };
  return { risk, ath: athJson, holders, history };
}

/** The API's answers and the recomputation for every token, in the same shape. */
async function compare(): Promise<{ api: unknown; expected: unknown }> {
  const api: Record<string, unknown> = {};
  const expected: Record<string, unknown> = {};
  const list = await all("/api/v1/tokens");
  for (const { token } of tokens) {
    const want = await recompute(token);
    const detail = await get(`/api/v1/tokens/${token}`);
    api[`risk ${token}`] = detail.risk;
    expected[`risk ${token}`] = want.risk;
    api[`ath ${token}`] = detail.ath;
    expected[`ath ${token}`] = want.ath;
    api[`compact ${token}`] = list.find((t) => t.address === token)?.risk;
    expected[`compact ${token}`] = {
      creator_share_bps: want.risk.creator.share_bps,
      creator_has_sold: want.risk.creator.has_sold,
      top10_share_bps: want.risk.top10_share_bps,
      sniper_share_bps: want.risk.snipers.share_bps,
      insider_share_bps: want.risk.insiders.share_bps,
    };
    api[`holders ${token}`] = await all(`/api/v1/tokens/${token}/holders`);
    expected[`holders ${token}`] = want.holders;
    for (const [interval, step] of [
      ["1h", 3600],
      ["4h", 14_400],
      ["1d", 86_400],
    ] as const) {
      api[`holders history ${interval} ${token}`] = (
        await get(`/api/v1/tokens/${token}/holders/history?interval=${interval}&limit=1000`)
      ).items;
      expected[`holders history ${interval} ${token}`] = want.history(step);
    }
    for (const tag of TAGS) {
      api[`holders ${tag} ${token}`] = await all(`/api/v1/tokens/${token}/holders?tag=${tag}`);
      expected[`holders ${tag} ${token}`] = want.holders.filter((h) => h.tags.includes(tag));
    }
  }
  return { api, expected };
}

/** Waits until the API agrees with the recomputation (the indexer catches up by itself), then asserts it. */
async function expectAgreement(): Promise<{ api: any; expected: any }> {
  let last: { api: unknown; expected: unknown } | undefined;
  await waitFor(
    async () => {
      last = await compare();
      return JSON.stringify(last.api) === JSON.stringify(last.expected);
    },
    { timeoutMs: 120_000, intervalMs: 500, message: "API risk, ath and tags = recomputation" },
  ).catch(() => {});
  expect(last!.api).toEqual(last!.expected);
  return last as { api: any; expected: any };
}

/** Transactions sent while automine is off, mined together in one block by `evm_mine`. */
async function inOneBlock(send: () => Promise<unknown>[], count: number): Promise<void> {
  await rpc(devnet.rpcUrl, "evm_setAutomine", [false]);
  try {
    const sent = send();
    const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
    await waitFor(async () => (await client.getBlockTransactionCount({ blockTag: "pending" })) === count, {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: `${count} pending transactions`,
    });
    await rpc(devnet.rpcUrl, "evm_mine", []);
    await Promise.all(sent);
  } finally {
    await rpc(devnet.rpcUrl, "evm_setAutomine", [true]);
  }
}

beforeAll(async () => {
  env = await startIndexedDevnetApp({ ethUsdFeed: true });
  ({ devnet, app } = env);
  wallets = [1, 2, 3, 4, 5, 6, 7, 8].map((account) =>
    createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
  );
}, 180_000);

afterAll(() => env?.stop());

describe("risk, ath and holder tags = a recomputation from the devnet's logs", () => {
  test("default: dev buy and launch-block buyer in the launch block, snipers, insiders, creator sells, graduation, pool swaps; then an anvil_reorg orphans a sniper's buy", async () => {
    const [creator, s1, s2, s3, x, late, grad, side] = wallets as [
      Trader,
      Trader,
      Trader,
      Trader,
      Trader,
      Trader,
      Trader,
      Trader,
    ];
    const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
    const { factory } = devnet.deployment.contracts;
    const creatorWallet = localWalletClient(devnet.rpcUrl, 1, devnet.deployment.chainId);
    const s1Wallet = localWalletClient(devnet.rpcUrl, 2, devnet.deployment.chainId);

    // Launch block: createToken (highest tip: first in the block), the creator's dev buy (its next
    // nonce) and s1's buy, on the curve the simulation names.
    const salt = `0x${"11".repeat(32)}` as const;
    const { result } = await client.simulateContract({
      account: creatorWallet.account,
      address: factory,
      abi: zonkFactoryV3Abi,
      functionName: "createToken",
      args: ["Risk Alpha", "RSKA", salt],
    });
    const [alpha, alphaCurve] = result.map((a) => a.toLowerCase() as `0x${string}`) as [
      `0x${string}`,
      `0x${string}`,
    ];
    const nonce = await client.getTransactionCount({ address: creator.address });
    const hashes: `0x${string}`[] = [];
    await inOneBlock(
      () => [
        (async () => {
          hashes.push(
            await creatorWallet.writeContract({
              address: factory,
              abi: zonkFactoryV3Abi,
              functionName: "createToken",
              args: ["Risk Alpha", "RSKA", salt],
              gas: 12_000_000n,
              nonce,
              maxPriorityFeePerGas: 3_000_000_000n,
              maxFeePerGas: 100_000_000_000n,
            } as never),
          );
          hashes.push(
            await creatorWallet.writeContract({
              address: alphaCurve,
              abi: zonkCurveV3Abi,
              functionName: "buy",
              args: [0n, DEADLINE],
              value: ETH / 20n,
              gas: 600_000n,
              nonce: nonce + 1,
              maxPriorityFeePerGas: 2_000_000_000n,
              maxFeePerGas: 100_000_000_000n,
            } as never),
          );
          hashes.push(
            await s1Wallet.writeContract({
              address: alphaCurve,
              abi: zonkCurveV3Abi,
              functionName: "buy",
              args: [0n, DEADLINE],
              value: ETH / 10n,
              gas: 600_000n,
              maxPriorityFeePerGas: 1_000_000_000n,
              maxFeePerGas: 100_000_000_000n,
            } as never),
          );
        })(),
      ],
      3,
    );
    const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash })));
    expect(receipts.map((r) => r.status)).toEqual(["success", "success", "success"]);
    expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);
    tokens.push({ token: alpha, curve: alphaCurve, pool: null });

    // launch + 1: s2's first buy; s1 hands x some tokens (not an insider: not the creator) and x
    // approves the curve. launch + 2: s3's first buy; x's first trade is a sell (no sniper).
    const xWallet = localWalletClient(devnet.rpcUrl, 5, devnet.deployment.chainId);
    await inOneBlock(
      () => [
        s2.buy(alpha, ETH / 8n),
        s1.transfer(alpha, x.address, WAD * 1_000_000n),
        xWallet.writeContract({
          address: alpha,
          abi: erc20Abi,
          functionName: "approve",
          args: [alphaCurve, 2n ** 255n],
          gas: 100_000n,
        } as never),
      ],
      3,
    );
    await inOneBlock(() => [s3.buy(alpha, ETH / 9n), x.sell(alpha, WAD * 400_000n)], 2);
    // Hours later (holder history buckets): a late buyer, s1 buys again; the creator hands a side wallet tokens (it
    // sells part) and sells.
    await rpc(devnet.rpcUrl, "evm_increaseTime", [2 * 3600]);
    await late.buy(alpha, ETH / 4n);
    await s1.buy(alpha, ETH / 50n);
    await creator.transfer(alpha, side.address, (await creator.balanceOf(alpha)) / 5n);
    await side.sell(alpha, (await side.balanceOf(alpha)) / 2n);
    await creator.sell(alpha, (await creator.balanceOf(alpha)) / 4n);
    // 40 more insiders in one block, five hours later: concentration beyond 30 holders.
    await rpc(devnet.rpcUrl, "evm_increaseTime", [5 * 3600]);
    const per = (await creator.balanceOf(alpha)) / 100n;
    const next = await client.getTransactionCount({ address: creator.address });
    await inOneBlock(
      () =>
        Array.from({ length: 40 }, (_, i) =>
          creatorWallet.writeContract({
            address: alpha,
            abi: erc20Abi,
            functionName: "transfer",
            args: [`0x${(0xbeef00 + i).toString(16).padStart(40, "0")}`, per + BigInt(i) * WAD],
            gas: 100_000n,
            nonce: next + i,
          } as never),
        ),
      40,
    );
    await expectAgreement();

    // Graduation and pool swaps both ways (the price may pass the curve's last one).
    const graduated = await grad.graduate(alpha);
    tokens[0]!.pool = graduated.pool;
    await late.swapExactEthForTokens(alpha, ETH / 5n);
    await s2.swapExactTokensForEth(alpha, (await s2.balanceOf(alpha)) / 2n);
    await creator.swapExactTokensForEth(alpha, (await creator.balanceOf(alpha)) / 3n);
    const before = await expectAgreement();
    const alphaRisk = before.api[`risk ${alpha}`];
    // Every cohort is populated, so the comparison above covers each figure.
    expect(alphaRisk.dev_buy.count).toBe(1);
    expect(alphaRisk.launch_block_buyers.count).toBe(1);
    expect(alphaRisk.snipers.count).toBe(3);
    expect(alphaRisk.insiders.count).toBe(41);
    expect(alphaRisk.creator.has_sold).toBe(true);
    expect(alphaRisk.distribution_bps.top_31_50).toBeGreaterThan(0);
    expect(before.api[`ath ${alpha}`].market_cap_usd).not.toBeNull();

    // A day later, a second token sniped one block after its launch; the reorg orphans that buy.
    await rpc(devnet.rpcUrl, "evm_increaseTime", [26 * 3600]);
    const beta = await creator.createToken("Risk Beta", "RSKB");
    tokens.push({ token: beta.token, curve: beta.curve, pool: null });
    await s3.buy(beta.token, ETH / 7n);
    const sniped = await expectAgreement();
    expect(sniped.api[`risk ${beta.token}`].snipers.count).toBe(1);
    expect(sniped.api[`holders sniper ${beta.token}`]).toHaveLength(1);
    await rpc(devnet.rpcUrl, "anvil_reorg", [1, []]);
    const after = await expectAgreement();
    expect(after.api[`risk ${beta.token}`].snipers.count).toBe(0);
    expect(after.api[`ath ${beta.token}`]).toBeNull();
    // A buy in the new branch's window counts again.
    await s2.buy(beta.token, ETH / 11n);
    const rebuilt = await expectAgreement();
    expect(rebuilt.api[`risk ${beta.token}`].snipers.count).toBe(1);
  }, 600_000);
});
