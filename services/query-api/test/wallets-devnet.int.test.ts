// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Positions and holdings recomputed from the raw logs of a devnet, independently of the indexer:
// `TokensBought`/`TokensSold` of each curve, `Swap` of the canonical pool (trader = the
// transaction's sender) and every `Transfer` of the tokens, read with viem `getLogs`, folded by the
// average-cost rule of docs/api.md (`oraclePositions`, @tmi/testkit) and compared field by field
// with `GET /api/v1/tokens/{address}/traders`, `GET /api/v1/wallets/{address}/holdings` and the
// wallet summary, on a history with a graduation, pool swaps in both directions, transfers between
// wallets (a sell of tokens never bought) — then again after an `anvil_reorg` removed trades.
// The traders are compared in the volume and the pnl order (pages of 2 with cursors).

import { createTrader, type Devnet, localPublicClient, rpc, type Trader } from "@tmi/devnet";
import { erc20Abi, uniswapV3PoolAbi, zonkCurveV3Abi } from "@tmi/shared/chain";
import { type OracleTrade, oraclePositions, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type IndexedDevnetApp, jsonReader, type QueryApiApp, startIndexedDevnetApp } from "./harness.js";

const ETH = 10n ** 18n;
const WAD = 10n ** 18n;

let env: IndexedDevnetApp<QueryApiApp>;
let devnet: Devnet;
let app: QueryApiApp;
let wallets: [Trader, Trader, Trader, Trader];
const tokens: { token: `0x${string}`; curve: `0x${string}`; pool: `0x${string}` | null }[] = [];

const { get, all } = jsonReader(() => app);

/** Trades and balances recomputed from the chain's logs as they are now. */
async function recompute(): Promise<{ trades: OracleTrade[]; balances: Map<string, bigint> }> {
  const client = localPublicClient(devnet.rpcUrl, devnet.deployment.chainId);
  const trades: OracleTrade[] = [];
  const balances = new Map<string, bigint>();
  const times = new Map<bigint, bigint>();
  const timeOf = async (block: bigint) => {
    let t = times.get(block);
    if (t === undefined) {
      t = (await client.getBlock({ blockNumber: block })).timestamp;
      times.set(block, t);
    }
    return t;
  };
  const point = async (log: {
    blockNumber: bigint;
    transactionIndex: number;
    logIndex: number;
    transactionHash: string;
  }) => ({
    blockNumber: log.blockNumber,
    transactionIndex: log.transactionIndex,
    logIndex: log.logIndex,
    transactionHash: log.transactionHash,
    timestamp: await timeOf(log.blockNumber),
  });
  for (const { token, curve, pool: poolAddress } of tokens) {
    const curveLogs = await client.getLogs({
      address: curve,
      events: zonkCurveV3Abi.filter(
        (x) => x.type === "event" && (x.name === "TokensBought" || x.name === "TokensSold"),
      ),
      fromBlock: 0n,
    });
    for (const log of curveLogs as any[]) {
      const bought = log.eventName === "TokensBought";
      trades.push({
        token,
        trader: (bought ? log.args.buyer : log.args.seller).toLowerCase(),
        side: bought ? "buy" : "sell",
        ...(await point(log)),
        tokenAmount: bought ? log.args.tokensOut : log.args.tokensIn,
        reserveAmount: bought ? log.args.acceptedGross : log.args.netSellerOutput,
      });
    }
    if (poolAddress) {
      const token0 = (
        await client.readContract({ address: poolAddress, abi: uniswapV3PoolAbi, functionName: "token0" })
      ).toLowerCase();
      const swaps = await client.getLogs({
        address: poolAddress,
        event: uniswapV3PoolAbi.find((x) => x.type === "event" && x.name === "Swap")!,
        fromBlock: 0n,
      });
      for (const log of swaps as any[]) {
        const tokenDelta: bigint = token0 === token ? log.args.amount0 : log.args.amount1;
        const wethDelta: bigint = token0 === token ? log.args.amount1 : log.args.amount0;
        const tx = await client.getTransaction({ hash: log.transactionHash });
        trades.push({
          token,
          trader: tx.from.toLowerCase(),
          side: tokenDelta < 0n ? "buy" : "sell",
          ...(await point(log)),
          tokenAmount: tokenDelta < 0n ? -tokenDelta : tokenDelta,
          reserveAmount: wethDelta < 0n ? -wethDelta : wethDelta,
        });
      }
    }
    const transfers = await client.getLogs({
      address: token,
      event: erc20Abi.find((x) => x.type === "event" && x.name === "Transfer")!,
      fromBlock: 0n,
    });
    for (const log of transfers as any[]) {
      const from = `${token}|${log.args.from.toLowerCase()}`;
      const to = `${token}|${log.args.to.toLowerCase()}`;
      balances.set(from, (balances.get(from) ?? 0n) - log.args.value);
      balances.set(to, (balances.get(to) ?? 0n) + log.args.value);
    }
  }
  return { trades, balances };
}

/** The API's answers and the recomputation, in the same shape (each route's items, field by field). */
async function compare(): Promise<{ api: unknown; expected: unknown }> {
  const { trades, balances } = await recompute();
  const positions = oraclePositions(trades);
  const wire = (p: (typeof positions)[number], price: bigint) => {
    const unrealized = (BigInt(p.open_quantity) * price) / WAD - BigInt(p.cost_basis);
    return {
      bought_tokens: p.bought_tokens,
      bought_reserve: p.bought_reserve,
      sold_tokens: p.sold_tokens,
      sold_reserve: p.sold_reserve,
      buy_count: p.buy_count,
      sell_count: p.sell_count,
      first_trade: {
        block_number: Number(p.first_block_number),
        transaction_hash: p.first_transaction_hash,
        log_index: p.first_log_index,
        timestamp: Number(p.first_timestamp),
      },
      last_trade: {
        block_number: Number(p.last_block_number),
        transaction_hash: p.last_transaction_hash,
        log_index: p.last_log_index,
        timestamp: Number(p.last_timestamp),
      },
      open_quantity: p.open_quantity,
      cost_basis: p.cost_basis,
      realized_pnl: p.realized_pnl,
      unrealized_pnl: unrealized.toString(),
      pnl: (BigInt(p.realized_pnl) + unrealized).toString(),
    };
  };
  const api: Record<string, unknown> = {};
  const expected: Record<string, unknown> = {};
  const prices = new Map<string, bigint>();
  const supplies = new Map<string, bigint>();
  for (const { token } of tokens) {
    const detail = await get(`/api/v1/tokens/${token}`);
    prices.set(token, BigInt(detail.metrics.current_price ?? 0));
    supplies.set(token, BigInt(detail.initial_supply));
  }
  for (const { token } of tokens) {
    const price = prices.get(token)!;
    api[`traders ${token}`] = await all(`/api/v1/tokens/${token}/traders?sort=volume`);
    expected[`traders ${token}`] = positions
      .filter((p) => p.token_address === token)
      .map((p) => ({
        trader: p.trader,
        balance: (balances.get(`${token}|${p.trader}`) ?? 0n).toString(),
        ...wire(p, price),
      }))
      .sort((a, b) => {
        const d =
          BigInt(b.bought_reserve) +
          BigInt(b.sold_reserve) -
          BigInt(a.bought_reserve) -
          BigInt(a.sold_reserve);
        return d !== 0n ? (d > 0n ? 1 : -1) : a.trader < b.trader ? -1 : 1;
      });
    // By pnl at the token's current price (the per-process ranking of query-api, kept by this
    // app across the trades, the price changes and the reorg of the test).
    api[`traders pnl ${token}`] = await all(`/api/v1/tokens/${token}/traders?sort=pnl`);
    expected[`traders pnl ${token}`] = [
      ...(expected[`traders ${token}`] as { trader: string; pnl: string }[]),
    ].sort((a, b) => {
      const d = BigInt(b.pnl) - BigInt(a.pnl);
      return d !== 0n ? (d > 0n ? 1 : -1) : a.trader < b.trader ? -1 : 1;
    });
  }
  for (const w of wallets) {
    const held = tokens
      .map(({ token }) => ({ token, balance: balances.get(`${token}|${w.address}`) ?? 0n }))
      .filter((h) => h.balance > 0n)
      .map((h) => ({ ...h, value: (h.balance * prices.get(h.token)!) / WAD }))
      .sort((a, b) => (a.value !== b.value ? (b.value > a.value ? 1 : -1) : a.token < b.token ? -1 : 1));
    const closed = positions
      .filter((p) => p.trader === w.address && !held.some((h) => h.token === p.token_address))
      .map((p) => ({ token: p.token_address, balance: 0n, value: 0n }));
    const items = await all(`/api/v1/wallets/${w.address}/holdings?include_closed=true`);
    api[`holdings ${w.address}`] = items.map((h: any) => ({
      token: h.token.address,
      balance: h.balance,
      value: h.value,
      share_bps: h.share_bps,
      position: h.position,
    }));
    expected[`holdings ${w.address}`] = [...held, ...closed].map((h) => {
      const p = positions.find((x) => x.token_address === h.token && x.trader === w.address);
      return {
        token: h.token,
        balance: h.balance.toString(),
        value: h.value.toString(),
        share_bps: Number((h.balance * 10_000n) / supplies.get(h.token)!),
        position: p ? wire(p, prices.get(h.token)!) : undefined,
      };
    });
    const summary = await get(`/api/v1/wallets/${w.address}`);
    const mine = positions
      .filter((p) => p.trader === w.address)
      .map((p) => wire(p, prices.get(p.token_address)!));
    const sum = (f: (x: (typeof mine)[number]) => bigint) => mine.reduce((s, x) => s + f(x), 0n).toString();
    const { value_usd: _usd, created_token_count: _created, ...rest } = summary;
    api[`summary ${w.address}`] = rest;
    expected[`summary ${w.address}`] = {
      address: w.address,
      holding_count: held.length,
      value: held.reduce((s, h) => s + h.value, 0n).toString(),
      realized_pnl: sum((x) => BigInt(x.realized_pnl)),
      unrealized_pnl: sum((x) => BigInt(x.unrealized_pnl)),
      pnl: sum((x) => BigInt(x.pnl)),
      trade_count: mine.reduce((s, x) => s + x.buy_count + x.sell_count, 0),
      volume: sum((x) => BigInt(x.bought_reserve) + BigInt(x.sold_reserve)),
    };
  }
  return { api: JSON.parse(JSON.stringify(api)), expected: JSON.parse(JSON.stringify(expected)) };
}

/** Waits until the API agrees with the recomputation (the indexer catches up by itself), then asserts it. */
async function expectAgreement(): Promise<void> {
  let last: { api: unknown; expected: unknown } | undefined;
  await waitFor(
    async () => {
      last = await compare();
      return JSON.stringify(last.api) === JSON.stringify(last.expected);
    },
    { timeoutMs: 120_000, intervalMs: 500, message: "API positions and holdings = recomputation" },
  ).catch(() => {});
  expect(last!.api).toEqual(last!.expected);
}

beforeAll(async () => {
  env = await startIndexedDevnetApp({ ethUsdFeed: true });
  ({ devnet, app } = env);
  wallets = [1, 2, 3, 4].map((account) =>
    createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
  ) as [Trader, Trader, Trader, Trader];
}, 180_000);

afterAll(() => env?.stop());

describe("positions and holdings = a recomputation from the devnet's logs", () => {
  test("default: curve trades, a graduation, pool swaps both ways, transfers between wallets; then an anvil_reorg", async () => {
    const [creator, bob, carol, dave] = wallets;
    const alpha = await creator.createToken("Wallet Alpha", "WALA", { value: ETH / 50n });
    const beta = await creator.createToken("Wallet Beta", "WALB");
    tokens.push({ token: alpha.token, curve: await creator.curveOf(alpha.token), pool: null });
    tokens.push({ token: beta.token, curve: await creator.curveOf(beta.token), pool: null });
    await bob.buy(alpha.token, ETH / 2n);
    await carol.buy(alpha.token, (3n * ETH) / 10n);
    await bob.sell(alpha.token, (await bob.balanceOf(alpha.token)) / 3n);
    await bob.buy(alpha.token, ETH / 7n);
    // dave never bought alpha: his sell carries no cost; carol sells more than she bought.
    await bob.transfer(alpha.token, dave.address, (await bob.balanceOf(alpha.token)) / 5n);
    await dave.sell(alpha.token, (await dave.balanceOf(alpha.token)) / 2n);
    await bob.transfer(alpha.token, carol.address, (await bob.balanceOf(alpha.token)) / 4n);
    await carol.sell(alpha.token, await carol.balanceOf(alpha.token));
    await dave.buy(beta.token, ETH / 5n);
    await dave.sell(beta.token, (await dave.balanceOf(beta.token)) / 3n);
    const graduated = await bob.graduate(alpha.token);
    tokens[0]!.pool = graduated.pool;
    await carol.swapExactEthForTokens(alpha.token, ETH / 20n);
    await bob.swapExactTokensForEth(alpha.token, (await bob.balanceOf(alpha.token)) / 4n);
    await creator.transfer(alpha.token, dave.address, (await creator.balanceOf(alpha.token)) / 10n);
    await expectAgreement();

    const before = await get(`/api/v1/wallets/${carol.address}/holdings?include_closed=true`);
    expect(before.items.length).toBeGreaterThan(0);
    const { trades } = await recompute();
    expect(trades.some((t) => t.side === "sell" && t.trader === dave.address)).toBe(true);
    expect(
      trades.filter((t) => t.token === alpha.token && t.blockNumber > graduated.receipt.blockNumber),
    ).toHaveLength(2);

    // Trades in the last two blocks, indexed, then orphaned by an anvil_reorg (empty replacements).
    await dave.buy(beta.token, ETH / 9n);
    await carol.swapExactEthForTokens(alpha.token, ETH / 30n);
    await expectAgreement();
    const orphanBlocks = 2;
    const traderCount = (await get(`/api/v1/wallets/${dave.address}`)).trade_count;
    await rpc(devnet.rpcUrl, "anvil_reorg", [orphanBlocks, []]);
    await expectAgreement();
    expect((await get(`/api/v1/wallets/${dave.address}`)).trade_count).toBe(traderCount - 1);
  }, 600_000);
});
