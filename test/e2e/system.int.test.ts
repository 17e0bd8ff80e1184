// End to end through the gateway, on a devnet, with every service as a real process (test/src/system.ts):
// wallets launch tokens, buy, sell, graduate one and swap in its pool (viem, @tmi/devnet's createTrader);
// every route of the spec is then checked against what was sent. Also: a metadata draft finalized
// against its launch (not_indexed: no receipt, then not indexed; then 200), /objects, ETH/USD with its 503 paths, a
// chain reorganisation (anvil_reorg) and an unreachable upstream.
//
// The tests of this file share one system and run in order: each builds on the chain state left by
// the previous ones.

import { createTrader, setEthUsdRound, setSequencerStatus, type Trader, type TxResult } from "@tmi/devnet";
import {
  erc20Abi,
  graduationManagerV3Abi,
  uniswapV3PoolAbi as poolAbi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { waitFor } from "@tmi/testkit";
import {
  type Address,
  createPublicClient,
  http,
  type PublicClient,
  parseAbiItem,
  parseEventLogs,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonResponse, type System, startSystem } from "../src/system.js";

const ETH = 10n ** 18n;
const WAD = 10n ** 18n;
const INITIAL_SUPPLY = 10n ** 27n;
const ZERO = "0x0000000000000000000000000000000000000000";
// 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** A trade as the API must return it, from the receipts of what was sent. */
interface ExpectedTrade {
  token_address: string;
  trader: string;
  side: "buy" | "sell";
  token_amount: string;
  reserve_amount: string;
  curve_value: string;
  protocol_fee: string;
  creator_fee: string;
  source: "curve" | "uniswap_v3";
  block_number: number;
  transaction_index: number;
  transaction_hash: string;
  log_index: number;
}

interface LedgerEntry {
  trade: ExpectedTrade;
  timestamp: number;
  /** Curve spot price after a curve trade, market price after a swap (wei per whole token). */
  priceAfter: bigint;
}

let system: System;
let client: PublicClient;
let factory: string;
let weth: string;
/** token → its curve (from TokenLaunchedV3). */
const curves = new Map<string, string>();
/** Tokens whose `Graduated` was seen: their pool swaps are trades from then on. */
const graduated = new Set<string>();
/** token → LP custodian (from GraduatedV3). */
const custodians = new Map<string, string>();
let graduationManager: string;
const ledger: LedgerEntry[] = [];
const pools = new Map<string, string>();
const launches = new Map<string, { block: number; timestamp: number; hash: string; creator: string }>();
const traders: Record<string, Trader> = {};
let alpha: Address; // launched with the metadata draft, graduated, swapped
let beta: Address; // same creator, curve only
let draft: { draft_id: string; image_url: string; metadata_url: string };
let alphaLaunch: TxResult;

const lower = (a: string) => a.toLowerCase();
const position = (t: ExpectedTrade) => [t.block_number, t.transaction_index, t.log_index] as const;
const byPositionDesc = (a: ExpectedTrade, b: ExpectedTrade) => {
  const [x, y] = [position(a), position(b)];
  return y[0] - x[0] || y[1] - x[1] || y[2] - x[2] || (b.transaction_hash < a.transaction_hash ? -1 : 1);
};
const tradesOf = (token: string) =>
  ledger.filter((e) => e.trade.token_address === lower(token)).map((e) => e.trade);
const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);

/** Market price (wei per whole token) from a pool's sqrtPriceX96, token order aware. */
function marketPrice(token: string, sqrtPriceX96: bigint): bigint {
  const q192 = 1n << 192n;
  const squared = sqrtPriceX96 * sqrtPriceX96;
  return lower(token) < lower(weth) ? (squared * WAD) / q192 : (q192 * WAD) / squared;
}

/** The curve's `spotPrice()` at a block: the post-trade price of a curve trade mined in that block. */
async function spotPriceAt(token: string, blockNumber: bigint): Promise<bigint> {
  return client.readContract({
    address: curves.get(token) as Address,
    abi: zonkCurveV3Abi,
    functionName: "spotPrice",
    blockNumber,
  });
}

/**
 * Decodes the trades of a mined transaction into the ledger, with the platform's field mapping:
 * a curve buy is (reserve_amount = acceptedGross, curve_value = netCurveInput, token_amount =
 * tokensOut), a curve sell (netSellerOutput, grossCurveOutput, tokensIn); a swap of a graduated
 * token's canonical pool is a `uniswap_v3` trade of the transaction's sender.
 */
async function record(result: TxResult): Promise<TxResult> {
  const { receipt } = result;
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  const base = {
    block_number: Number(receipt.blockNumber),
    transaction_index: receipt.transactionIndex,
    transaction_hash: lower(receipt.transactionHash),
  };
  for (const log of receipt.logs) {
    const address = lower(log.address);
    if (address === factory) {
      const [event] = parseEventLogs({ abi: zonkFactoryV3Abi, logs: [log], eventName: "TokenLaunchedV3" });
      if (!event) continue;
      const token = lower(event.args.token);
      curves.set(token, lower(event.args.curve));
      pools.set(token, lower(event.args.canonicalPool));
      launches.set(token, {
        block: base.block_number,
        timestamp: Number(block.timestamp),
        hash: base.transaction_hash,
        creator: lower(event.args.creator),
      });
    } else if (address === graduationManager) {
      const [event] = parseEventLogs({ abi: graduationManagerV3Abi, logs: [log], eventName: "GraduatedV3" });
      if (event) custodians.set(lower(event.args.token), lower(event.args.custodian));
    } else if ([...curves.values()].includes(address)) {
      const [event] = parseEventLogs({ abi: zonkCurveV3Abi, logs: [log] });
      if (!event) continue;
      if (event.eventName === "Graduated") {
        graduated.add(lower(event.args.token));
        continue;
      }
      if (event.eventName !== "TokensBought" && event.eventName !== "TokensSold") continue;
      const token = lower(event.args.token);
      const trade =
        event.eventName === "TokensBought"
          ? {
              trader: lower(event.args.buyer),
              side: "buy" as const,
              token_amount: event.args.tokensOut.toString(),
              reserve_amount: event.args.acceptedGross.toString(),
              curve_value: event.args.netCurveInput.toString(),
              protocol_fee: event.args.protocolFee.toString(),
              creator_fee: event.args.creatorFee.toString(),
            }
          : {
              trader: lower(event.args.seller),
              side: "sell" as const,
              token_amount: event.args.tokensIn.toString(),
              reserve_amount: event.args.netSellerOutput.toString(),
              curve_value: event.args.grossCurveOutput.toString(),
              protocol_fee: event.args.protocolFee.toString(),
              creator_fee: event.args.creatorFee.toString(),
            };
      ledger.push({
        timestamp: Number(block.timestamp),
        priceAfter: await spotPriceAt(token, receipt.blockNumber),
        trade: { token_address: token, ...trade, source: "curve", ...base, log_index: log.logIndex },
      });
    } else {
      const token = [...pools].find(([, pool]) => pool === address)?.[0];
      if (!token || !graduated.has(token)) continue;
      const [swap] = parseEventLogs({ abi: poolAbi, logs: [log], eventName: "Swap" });
      if (!swap) continue;
      const tokenIs0 = token < lower(weth);
      const tokenDelta = tokenIs0 ? swap.args.amount0 : swap.args.amount1;
      const wethDelta = tokenIs0 ? swap.args.amount1 : swap.args.amount0;
      const abs = (v: bigint) => (v < 0n ? -v : v);
      ledger.push({
        timestamp: Number(block.timestamp),
        priceAfter: marketPrice(token, swap.args.sqrtPriceX96),
        trade: {
          token_address: token,
          trader: lower(receipt.from),
          side: tokenDelta < 0n ? "buy" : "sell",
          token_amount: abs(tokenDelta).toString(),
          reserve_amount: abs(wethDelta).toString(),
          curve_value: abs(wethDelta).toString(),
          protocol_fee: "0",
          creator_fee: "0",
          source: "uniswap_v3",
          ...base,
          log_index: log.logIndex,
        },
      });
    }
  }
  return result;
}

async function get(path: string): Promise<JsonResponse> {
  return system.request(path);
}

/** Every item of a paged route, following next_cursor (`limit` per page). */
// biome-ignore lint/suspicious/noExplicitAny: API items
async function allPages(path: string, limit = 100): Promise<any[]> {
  // biome-ignore lint/suspicious/noExplicitAny: API items
  const items: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const separator = path.includes("?") ? "&" : "?";
    const response = await get(
      `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    items.push(...response.body.items);
    cursor = response.body.next_cursor;
    if (!cursor) return items;
  }
  throw new Error(`more than 100 pages at ${path}`);
}

/** Addresses holding a positive balance of `token` (from its Transfer logs and balanceOf). */
async function holdersOf(token: Address): Promise<string[]> {
  const logs = await client.getLogs({
    address: token,
    event: parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
    fromBlock: 0n,
  });
  // The platform's own contracts never count (zero address, the token, its curve and pool, the
  // graduation manager, the LP custodian); the residual escrow and any other contract are excluded by
  // having code (every wallet of this test is an account without code).
  const t = lower(token);
  const excluded = new Set([ZERO, t, curves.get(t), pools.get(t), graduationManager, custodians.get(t)]);
  const candidates = [...new Set(logs.map((l) => lower(l.args.to!)))].filter((a) => !excluded.has(a));
  const holders: string[] = [];
  for (const address of candidates) {
    if (await client.getCode({ address: address as Address })) continue;
    const balance = await client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [address as Address],
    });
    if (balance > 0n) holders.push(address);
  }
  return holders.sort();
}

/** The metrics a token must show from the ledger and the chain. */
async function expectedMetrics(token: Address) {
  const trades = tradesOf(token);
  const last = ledger.filter((e) => e.trade.token_address === lower(token)).at(-1);
  return {
    trade_count: trades.length,
    buy_count: trades.filter((t) => t.side === "buy").length,
    sell_count: trades.filter((t) => t.side === "sell").length,
    volume: sum(trades.map((t) => BigInt(t.curve_value))).toString(),
    fees: sum(trades.map((t) => BigInt(t.protocol_fee) + BigInt(t.creator_fee))).toString(),
    unique_trader_count: new Set(trades.map((t) => t.trader)).size,
    holder_count: (await holdersOf(token)).length,
    priceAfter: last?.priceAfter ?? null,
  };
}

function expectPriceNear(actual: string | null, expected: bigint) {
  expect(actual).not.toBeNull();
  const diff = BigInt(actual!) - expected;
  expect(diff >= -1n && diff <= 1n, `price ${actual} vs ${expected}`).toBe(true);
}

/** Waits until the indexer has committed the head, then until `check` holds through the gateway. */
async function indexed<T>(
  check?: () => Promise<T | false | undefined>,
  message = "indexed",
): Promise<T | undefined> {
  await system.indexToHead(60_000);
  if (!check) return undefined;
  return waitFor(check, { timeoutMs: 20_000, intervalMs: 200, message });
}

async function latestTimestamp(): Promise<bigint> {
  return (await client.getBlock({ blockTag: "latest" })).timestamp;
}

describe("end to end through the gateway", () => {
  beforeAll(async () => {
    system = await startSystem({ echo: process.env.E2E_ECHO === "1" });
    const { deployment } = system.devnet;
    factory = lower(deployment.contracts.factory);
    graduationManager = lower(deployment.contracts.graduationManager);
    weth = lower(deployment.contracts.weth);
    client = createPublicClient({ transport: http(system.devnet.rpcUrl), cacheTime: 0 }) as PublicClient;
    for (const [name, account] of [
      ["creator", 1],
      ["bob", 2],
      ["carol", 3],
      ["dave", 4],
      ["erin", 5],
    ] as const) {
      traders[name] = createTrader({ rpcUrl: system.devnet.rpcUrl, deployment, account });
    }
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  }, 60_000);

  it("default: the gateway answers /health itself and /readyz from query-api, with request ids", async () => {
    const health = await system.request("/health", { headers: { "x-request-id": "e2e-health.1" } });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: "ok", service: "gateway", request_id: "e2e-health.1" });
    expect(health.headers.get("x-request-id")).toBe("e2e-health.1");
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: "ready", service: "query-api" });
    expect(ready.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    // An invalid incoming id is replaced, on proxied routes too.
    const list = await system.request("/api/v1/tokens", {
      headers: { "x-request-id": "bad id with spaces" },
    });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [] });
    expect(list.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });

  it("behavior: a metadata draft, its launch, then finalize answers not_indexed (no receipt, not indexed) before indexing", async () => {
    const form = new FormData();
    form.set("name", "Alpha Launch");
    form.set("symbol", "ALPHA");
    form.set("initial_supply", INITIAL_SUPPLY.toString());
    form.set("description", "The first token of the end-to-end test.");
    form.set("website_url", "https://alpha.example.com/home");
    form.set("x_url", "https://x.com/alpha");
    form.set("image", new Blob([PNG], { type: "application/octet-stream" }), "alpha.bin");
    const created = await system.request("/api/v1/token-metadata", { method: "POST", body: form });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: "Alpha Launch",
      symbol: "ALPHA",
      initial_supply: INITIAL_SUPPLY.toString(),
      description: "The first token of the end-to-end test.",
      website_url: "https://alpha.example.com/home",
      x_url: "https://x.com/alpha",
    });
    expect(created.body.image_url).toMatch(/^\/objects\/images\/[0-9a-f]{64}\.png$/);
    expect(created.body.metadata_url).toMatch(/^\/objects\/metadata\/[0-9a-f]{64}\.json$/);
    draft = created.body;

    const launched = await traders.creator!.createToken("Alpha Launch", "ALPHA", { value: ETH / 10n });
    alphaLaunch = await record(launched);
    if (launched.firstBuy) await record(launched.firstBuy);
    alpha = launched.token;

    const finalize = (transaction_hash: string) =>
      system.request(`/api/v1/token-metadata/${draft.draft_id}/finalize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token_address: alpha, transaction_hash }),
      });
    const unknownTx = await finalize(`0x${"ab".repeat(32)}`);
    expect(unknownTx.status, JSON.stringify(unknownTx.body)).toBe(409);
    expect(unknownTx.body.error.code).toBe("not_indexed");
    expect(unknownTx.body.error.details).toEqual([
      { field: "transaction_hash", reason: "receipt not yet visible" },
    ]);
    // The receipt exists but the indexer is not running yet.
    const notIndexed = await finalize(alphaLaunch.hash);
    expect(notIndexed.status, JSON.stringify(notIndexed.body)).toBe(409);
    expect(notIndexed.body.error.code).toBe("not_indexed");
    expect(notIndexed.body.error.request_id).toBeTypeOf("string");
    // Unknown draft.
    const unknownDraft = await system.request(
      `/api/v1/token-metadata/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}/finalize`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token_address: alpha, transaction_hash: alphaLaunch.hash }),
      },
    );
    expect(unknownDraft.status).toBe(404);
    expect(unknownDraft.body.error.code).toBe("not_found");
    // Nothing indexed yet: the token is unknown to the API.
    expect((await get(`/api/v1/tokens/${alpha}`)).status).toBe(404);
  });

  it("behavior: launches, buys, sells, a graduation and pool swaps are indexed; pricing switches from curve to market", async () => {
    system.startIndexer();
    const { creator, bob, carol, dave, erin } = traders as Required<typeof traders>;
    const betaLaunch = await creator!.createToken("Beta Coin", "BETA");
    await record(betaLaunch);
    beta = betaLaunch.token;
    await record(await bob!.buy(alpha, ETH / 2n));
    await record(await carol!.buy(alpha, (3n * ETH) / 10n));
    await record(await bob!.sell(alpha, (await bob!.balanceOf(alpha)) / 2n));
    await record(await dave!.buy(beta, ETH / 5n));
    await record(await dave!.sell(beta, (await dave!.balanceOf(beta)) / 3n));

    const curvePricing = await indexed(async () => {
      const r = await get(`/api/v1/tokens/${alpha}/pricing`);
      return r.status === 200 && r.body;
    });
    const beforeGraduation = await expectedMetrics(alpha);
    expect(curvePricing.source).toBe("indexed_v3_curve");
    expect(curvePricing.token_address).toBe(alpha);
    expect(curvePricing.current_price).toBe(beforeGraduation.priceAfter!.toString());
    expect(curvePricing.fully_diluted_value).toBe(
      ((beforeGraduation.priceAfter! * INITIAL_SUPPLY) / WAD).toString(),
    );
    const curveDetail = await get(`/api/v1/tokens/${alpha}`);
    expect(curveDetail.body.curve.lifecycle).toBe("active");
    expect(curveDetail.body).not.toHaveProperty("graduation");

    // Graduation: one capped buy crosses the threshold; the pool is created.
    await record(await bob!.graduate(alpha));
    expect(pools.get(alpha)).toMatch(/^0x[0-9a-f]{40}$/);
    const graduatedPricing = await indexed(async () => {
      const r = await get(`/api/v1/tokens/${alpha}`);
      return (
        r.status === 200 &&
        r.body.curve?.lifecycle === "graduated" &&
        (await get(`/api/v1/tokens/${alpha}/pricing`)).body
      );
    }, "graduation indexed");
    // The latest indexed trade is still a curve trade.
    expect(graduatedPricing.source).toBe("indexed_v3_curve");

    // Pool swaps: the first one switches the pricing source to the market.
    await record(await carol!.swapExactEthForTokens(alpha, ETH / 20n));
    await record(await bob!.swapExactTokensForEth(alpha, (await bob!.balanceOf(alpha)) / 4n));
    // A plain transfer makes a holder who never traded.
    await creator!.transfer(alpha, erin!.address, (await creator!.balanceOf(alpha)) / 10n);
    const marketPricing = await indexed(async () => {
      const r = await get(`/api/v1/tokens/${alpha}/pricing`);
      return r.status === 200 && r.body.source === "indexed_v3_market" && r.body;
    }, "market pricing");
    const afterSwaps = await expectedMetrics(alpha);
    expectPriceNear(marketPricing.current_price, afterSwaps.priceAfter!);
    expect(marketPricing.fully_diluted_value).toBe(
      ((BigInt(marketPricing.current_price) * INITIAL_SUPPLY) / WAD).toString(),
    );
  });

  it("behavior: finalize binds the draft once indexed; token detail shows the metadata; /objects serves the stored objects", async () => {
    const finalized = await waitFor(
      async () => {
        const r = await system.request(`/api/v1/token-metadata/${draft.draft_id}/finalize`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token_address: alpha, transaction_hash: alphaLaunch.hash }),
        });
        return r.status === 200
          ? r
          : r.body.error.code === "not_indexed"
            ? false
            : Promise.reject(new Error(JSON.stringify(r.body)));
      },
      { timeoutMs: 30_000, intervalMs: 250, message: "finalize" },
    );
    // The Token object of the bound token, metadata at the top level.
    expect(finalized.body).toMatchObject({
      address: alpha,
      name: "Alpha Launch",
      created_at: { transaction_hash: lower(alphaLaunch.hash) },
      description: "The first token of the end-to-end test.",
      image_url: draft.image_url,
      metadata_url: draft.metadata_url,
      metadata_verified: false,
    });
    // An identical repeat answers 200 again.
    const repeat = await system.request(`/api/v1/token-metadata/${draft.draft_id}/finalize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token_address: alpha, transaction_hash: alphaLaunch.hash }),
    });
    expect(repeat.status).toBe(200);

    const detail = await waitFor(
      async () => {
        const r = await get(`/api/v1/tokens/${alpha}`);
        return r.body?.description ? r.body : false;
      },
      { timeoutMs: 10_000, message: "metadata in token detail" },
    );
    expect(detail).toMatchObject({
      description: "The first token of the end-to-end test.",
      image_url: draft.image_url,
      metadata_url: draft.metadata_url,
      website_url: "https://alpha.example.com/home",
      x_url: "https://x.com/alpha",
      metadata_verified: false,
    });
    // Unset metadata fields are absent, never null.
    expect(detail).not.toHaveProperty("telegram_url");
    expect(detail).not.toHaveProperty("discord_url");

    const image = await fetch(`${system.baseUrl}${draft.image_url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("cache-control")).toContain("immutable");
    expect(image.headers.get("x-request-id")).toBeTruthy();
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    const metadata = await fetch(`${system.baseUrl}${draft.metadata_url}`);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await metadata.json()).toMatchObject({ name: "Alpha Launch", symbol: "ALPHA" });
    const missing = await fetch(`${system.baseUrl}/objects/images/${"0".repeat(64)}.png`);
    expect(missing.status).toBe(404);
  });

  it("behavior: token list, newest and search return the launches, newest first, with exact metrics", async () => {
    const list = await get("/api/v1/tokens");
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: { address: string }) => t.address)).toEqual([beta, alpha]);
    expect(list.body.next_cursor).toBeUndefined();
    expect((await get("/api/v1/tokens/newest")).body).toEqual(list.body);
    for (const token of [alpha, beta]) {
      const item = list.body.items.find((t: { address: string }) => t.address === token);
      const launch = launches.get(token)!;
      const expected = await expectedMetrics(token);
      expect(item).toMatchObject({
        address: token,
        creator: traders.creator!.address,
        initial_supply: INITIAL_SUPPLY.toString(),
        created_at: { block_number: launch.block, transaction_hash: launch.hash },
      });
      const { priceAfter, ...counts } = expected;
      expect(item.metrics).toMatchObject(counts);
      expect(item.metrics.current_price).not.toBeNull();
      if (token === beta) expect(item.metrics.current_price).toBe(priceAfter!.toString());
      expect(item.metrics.fully_diluted_value).toBe(
        ((BigInt(item.metrics.current_price) * INITIAL_SUPPLY) / WAD).toString(),
      );
    }
    expect(list.body.items[1].name).toBe("Alpha Launch");
    expect(list.body.items[1].symbol).toBe("ALPHA");

    // Pages of one.
    const first = await get("/api/v1/tokens?limit=1");
    expect(first.body.items.map((t: { address: string }) => t.address)).toEqual([beta]);
    const second = await get(`/api/v1/tokens?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((t: { address: string }) => t.address)).toEqual([alpha]);
    expect(second.body.next_cursor).toBeUndefined();

    // Search: name, symbol and address prefixes.
    const names = async (q: string) =>
      (await get(`/api/v1/tokens?search=${encodeURIComponent(q)}`)).body.items.map(
        (t: { address: string }) => t.address,
      );
    expect(await names("alpha")).toEqual([alpha]);
    expect(await names("Beta C")).toEqual([beta]);
    expect(await names("BETA")).toEqual([beta]);
    expect(await names(alpha.slice(0, 12))).toEqual([alpha]);
    expect(await names("zzz-nothing")).toEqual([]);
  });

  it("behavior: trending and its alias rank the tokens by window volume", async () => {
    const trending = await waitFor(
      async () => {
        const r = await get("/api/v1/tokens/trending");
        return r.status === 200 && r.body.items.length === 2 && r.body;
      },
      { timeoutMs: 15_000, message: "trending snapshot" },
    );
    const volume = (t: string) => sum(tradesOf(t).map((x) => BigInt(x.curve_value)));
    const expectedOrder = [alpha, beta].sort((a, b) => (volume(b) > volume(a) ? 1 : -1));
    expect(trending.items.map((t: { address: string }) => t.address)).toEqual(expectedOrder);
    expect((await get("/api/v1/trending")).body.items.map((t: { address: string }) => t.address)).toEqual(
      expectedOrder,
    );
    const paged = await allPages("/api/v1/trending", 1);
    expect(paged.map((t) => t.address)).toEqual(expectedOrder);
  });

  it("behavior: token detail has the curve, the graduation and the metrics", async () => {
    const detail = (await get(`/api/v1/tokens/${alpha}`)).body;
    expect(detail.curve).toMatchObject({
      address: curves.get(alpha),
      canonical_pool_address: pools.get(alpha),
      lifecycle: "graduated",
      sold_supply: "800000000000000000000000000",
      graduation_threshold: "800000000000000000000000000",
      progress_bps: 10_000,
    });
    for (const field of ["supply", "reserve_balance", "virtual_token_reserve", "virtual_eth_reserve"]) {
      expect(detail.curve[field], field).toMatch(/^\d+$/);
    }
    expect(detail.graduation).toMatchObject({
      phase: "graduated",
      canonical_pool_address: pools.get(alpha),
      graduation_manager_address: graduationManager,
      lp_custodian_address: custodians.get(alpha),
      sold_supply: "800000000000000000000000000",
      curve_terminal_at: { block_number: expect.any(Number), log_index: expect.any(Number) },
      settled_at: { block_number: expect.any(Number), log_index: expect.any(Number) },
    });
    for (const field of ["position_token_id", "liquidity", "token_amount", "eth_amount"]) {
      expect(detail.graduation[field], field).toMatch(/^\d+$/);
    }
    const betaDetail = (await get(`/api/v1/tokens/${beta}`)).body;
    expect(betaDetail.curve).toMatchObject({ address: curves.get(beta), lifecycle: "active" });
    expect(betaDetail).not.toHaveProperty("graduation");
    for (const key of ["description", "image_url", "metadata_url", "website_url", "x_url"]) {
      expect(betaDetail, key).not.toHaveProperty(key);
    }
    expect(betaDetail.curve.progress_bps).toBeGreaterThan(0);
    expect(betaDetail.curve.progress_bps).toBeLessThan(10_000);
    const { priceAfter: _p, ...counts } = await expectedMetrics(beta);
    expect(betaDetail.metrics).toMatchObject(counts);
  });

  it("behavior: trades pages list exactly the trades sent, newest first, and ascending with order=asc", async () => {
    for (const token of [alpha, beta]) {
      const expected = tradesOf(token).sort(byPositionDesc);
      // The spec's fields, exactly (extensions such as USD values may come on top).
      const specFields = (t: Record<string, unknown>) =>
        Object.fromEntries(Object.keys(expected[0]!).map((key) => [key, t[key]]));
      const all = await allPages(`/api/v1/tokens/${token}/trades`, 2);
      expect(all.map(specFields)).toEqual(expected);
      const asc = await allPages(`/api/v1/tokens/${token}/trades?order=asc`, 3);
      expect(asc.map(specFields)).toEqual([...expected].reverse());
    }
    const sources = tradesOf(alpha).map((t) => t.source);
    expect(sources).toContain("uniswap_v3");
    expect(sources).toContain("curve");
  });

  it("behavior: chart candles aggregate the trades per UTC bucket, gap-filled", async () => {
    for (const token of [alpha, beta]) {
      const response = await get(`/api/v1/tokens/${token}/chart?interval=1m&limit=1000`);
      expect(response.status).toBe(200);
      expect(response.body.interval).toBe("1m");
      expect(response.body.supported_intervals).toEqual(["1m", "5m", "15m", "1h", "4h", "1d", "1w"]);
      const candles = response.body.candles;
      const launchBucket = Math.floor(launches.get(token)!.timestamp / 60) * 60;
      expect(candles[0].bucket_start).toBe(launchBucket);
      for (let i = 1; i < candles.length; i++)
        expect(candles[i].bucket_start - candles[i - 1].bucket_start).toBe(60);
      const entries = ledger.filter((e) => e.trade.token_address === token);
      for (const candle of candles) {
        const inBucket = entries
          .filter((e) => Math.floor(e.timestamp / 60) * 60 === candle.bucket_start)
          .map((e) => e.trade);
        // Candle prices are post-trade prices (the curve's spotPrice after it, the pool price after a swap).
        const prices = entries
          .filter((e) => Math.floor(e.timestamp / 60) * 60 === candle.bucket_start)
          .map((e) => e.priceAfter);
        const sorted = [...prices].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const expectedCandle = {
          bucket_start: candle.bucket_start,
          trade_count: inBucket.length,
          buy_count: inBucket.filter((t) => t.side === "buy").length,
          sell_count: inBucket.filter((t) => t.side === "sell").length,
          volume: sum(inBucket.map((t) => BigInt(t.curve_value))).toString(),
          unique_trader_count: new Set(inBucket.map((t) => t.trader)).size,
          open_price: prices.length ? prices[0]!.toString() : null,
          high_price: prices.length ? sorted.at(-1)!.toString() : null,
          low_price: prices.length ? sorted[0]!.toString() : null,
          close_price: prices.length ? prices.at(-1)!.toString() : null,
        };
        // The spec's fields, exactly (extensions may come on top).
        const actual = Object.fromEntries(Object.keys(expectedCandle).map((key) => [key, candle[key]]));
        expect(actual).toEqual(expectedCandle);
      }
      expect(sum(candles.map((c: { trade_count: number }) => BigInt(c.trade_count)))).toBe(
        BigInt(entries.length),
      );
      // Defaults: 1h interval; a limit keeps the most recent buckets.
      const hourly = await get(`/api/v1/tokens/${token}/chart`);
      expect(hourly.body.interval).toBe("1h");
      const lastOne = await get(`/api/v1/tokens/${token}/chart?interval=1m&limit=1`);
      expect(lastOne.body.candles).toEqual([candles.at(-1)]);
    }
  });

  it("behavior: activity lists the token's decoded events newest first", async () => {
    for (const token of [alpha, beta]) {
      const items = await allPages(`/api/v1/tokens/${token}/activity`, 50);
      const names = items.map((i) => i.event_name);
      // The oldest events are the launch transaction's (the mint Transfer precedes TokenLaunchedV3).
      expect(items.at(-1).transaction_hash).toBe(launches.get(token)!.hash);
      expect(names.filter((n) => n === "TokenLaunchedV3")).toHaveLength(1);
      expect(names.filter((n) => n === "TokensBought").length).toBe(
        tradesOf(token).filter((t) => t.source === "curve" && t.side === "buy").length,
      );
      expect(names.filter((n) => n === "TokensSold").length).toBe(
        tradesOf(token).filter((t) => t.source === "curve" && t.side === "sell").length,
      );
      expect(names.filter((n) => n === "Swap").length).toBe(
        tradesOf(token).filter((t) => t.source === "uniswap_v3").length,
      );
      expect(names).toContain("Transfer");
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [items[i - 1], items[i]];
        expect(
          a.block_number > b.block_number || (a.block_number === b.block_number && a.log_index > b.log_index),
        ).toBe(true);
      }
      const bought = items.find((i) => i.event_name === "TokensBought");
      expect(lower(bought.decoded.token)).toBe(token);
      expect(bought).toMatchObject({
        block_number: expect.any(Number),
        transaction_index: expect.any(Number),
        transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        log_index: expect.any(Number),
      });
      if (token === alpha) {
        for (const name of ["Graduated", "GraduatedV3", "GraduationReserveForwarded"])
          expect(names).toContain(name);
      }
    }
  });

  it("behavior: the creator profile aggregates the creator's tokens", async () => {
    const creator = traders.creator!.address;
    const profile = await get(`/api/v1/creators/${creator}`);
    expect(profile.status).toBe(200);
    const volume = sum([alpha, beta].flatMap((t) => tradesOf(t).map((x) => BigInt(x.curve_value))));
    expect(profile.body).toMatchObject({ address: creator, token_count: 2, volume: volume.toString() });
    expect(profile.body.tokens.map((t: { address: string }) => t.address)).toEqual([beta, alpha]);
    const tokens = await allPages(`/api/v1/creators/${creator}/tokens`, 1);
    expect(tokens.map((t) => t.address)).toEqual([beta, alpha]);
    // Someone who never launched anything.
    const nobody = await get(`/api/v1/creators/${traders.dave!.address}`);
    if (nobody.status === 200) expect(nobody.body).toMatchObject({ token_count: 0, volume: "0", tokens: [] });
    else expect(nobody.body.error.code).toBe("not_found");
  });

  it("error: invalid requests answer with the error body", async () => {
    const cases: [string, number, string][] = [
      ["/api/v1/tokens/0x1234", 400, "invalid_address"],
      ["/api/v1/tokens/not-an-address/trades", 400, "invalid_address"],
      ["/api/v1/creators/0xzz/tokens", 400, "invalid_address"],
      [`/api/v1/tokens/0x${"12".repeat(20)}`, 404, "not_found"],
      [`/api/v1/tokens/${alpha}/chart?interval=2m`, 400, "invalid_interval"],
      [`/api/v1/tokens/${alpha}/chart?limit=1001`, 400, "invalid_request"],
      ["/api/v1/tokens?limit=0", 400, "invalid_request"],
      ["/api/v1/tokens?limit=101", 400, "invalid_request"],
      ["/api/v1/tokens?cursor=not-a-cursor", 400, "invalid_request"],
      [`/api/v1/tokens?search=${encodeURIComponent("$$$")}`, 400, "invalid_request"],
      [`/api/v1/tokens?search=${"a".repeat(65)}`, 400, "invalid_request"],
      [`/api/v1/tokens/${alpha}/trades?limit=abc`, 400, "invalid_request"],
      ["/api/v1/no-such-route", 404, "not_found"],
    ];
    for (const [path, status, code] of cases) {
      const response = await get(path);
      expect(response.status, path).toBe(status);
      expect(response.body, path).toMatchObject({
        error: {
          code,
          message: expect.any(String),
          request_id: expect.any(String),
        },
      });
      expect(response.headers.get("x-request-id"), path).toBe(response.body.error.request_id);
    }
    // A cursor of one route is refused by another.
    const page = await get(`/api/v1/tokens/${alpha}/trades?limit=1`);
    const foreign = await get(`/api/v1/tokens?cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe("invalid_request");
    const wrongMethod = await system.request("/api/v1/tokens", { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe("method_not_allowed");
  });

  it("behavior: ETH/USD answers from the feed and 503 oracle_unavailable on stale, invalid or sequencer-down data", async () => {
    const { rpcUrl, deployment } = system.devnet;
    const ok = await get("/api/v1/prices/eth-usd");
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({
      price: "3000.00000000",
      price_decimals: 8,
      feed: deployment.contracts.ethUsdFeed.toLowerCase(),
      source: "chainlink_eth_usd",
      max_age_seconds: 3600,
      decimals: 8,
      chain_id: 31337,
    });
    expect(ok.body.updated_at).toBe(
      new Date(ok.body.updated_at_unix * 1000).toISOString().replace(".000Z", "Z"),
    );
    expect(ok.headers.get("cache-control")).toBe("no-store");

    let round = 10n;
    const now = await latestTimestamp();
    const setRound = (answer: bigint, updatedAt: bigint, answeredInRound?: bigint) => {
      round += 1n;
      return setEthUsdRound(rpcUrl, deployment, {
        roundId: round,
        answer,
        startedAt: updatedAt,
        updatedAt,
        answeredInRound: answeredInRound ?? round,
      });
    };
    const expectUnavailable = async (why: string) => {
      const r = await get("/api/v1/prices/eth-usd");
      expect(r.status, why).toBe(503);
      expect(r.body.error.code, why).toBe("oracle_unavailable");
      expect(r.headers.get("x-request-id"), why).toBeTruthy();
    };
    await setRound(310_000_000_000n, now - 7_200n);
    await expectUnavailable("stale round (older than ORACLE_ETH_USD_MAX_AGE=3600)");
    await setRound(0n, await latestTimestamp());
    await expectUnavailable("zero answer");
    await setRound(-5n, await latestTimestamp());
    await expectUnavailable("negative answer");
    await setRound(310_000_000_000n, 0n);
    await expectUnavailable("incomplete round (updatedAt 0)");
    await setRound(320_000_000_000n, await latestTimestamp());
    const fresh = await get("/api/v1/prices/eth-usd");
    expect(fresh.status).toBe(200);
    expect(fresh.body.price).toBe("3200.00000000");

    await setSequencerStatus(rpcUrl, deployment, { answer: 1n, startedAt: await latestTimestamp() });
    await expectUnavailable("sequencer down");
    await setSequencerStatus(rpcUrl, deployment, { answer: 0n, startedAt: await latestTimestamp() });
    await expectUnavailable("sequencer back within the grace period (600 s)");
    await setSequencerStatus(rpcUrl, deployment, {
      answer: 0n,
      startedAt: (await latestTimestamp()) - 3_600n,
    });
    expect((await get("/api/v1/prices/eth-usd")).status).toBe(200);
  });

  it("behavior: after a reorg (anvil_reorg) the API no longer shows the orphaned trades", async () => {
    const { bob, dave } = traders as Required<typeof traders>;
    const before = (await get(`/api/v1/tokens/${beta}`)).body.metrics;
    const first = await bob!.buy(beta, ETH / 10n);
    const second = await dave!.buy(beta, ETH / 10n);
    const orphaned = [lower(first.hash), lower(second.hash)];
    const depth = Number((await client.getBlockNumber()) - first.receipt.blockNumber) + 1;
    await indexed(async () => {
      const trades = (await get(`/api/v1/tokens/${beta}/trades?limit=100`)).body.items;
      return orphaned.every((h) => trades.some((t: ExpectedTrade) => t.transaction_hash === h));
    }, "trades to be orphaned are indexed");
    expect((await get(`/api/v1/tokens/${beta}`)).body.metrics.trade_count).toBe(before.trade_count + 2);

    // Replace the last `depth` blocks with empty ones, then mine one more block on the new branch.
    await client.request({ method: "anvil_reorg" as never, params: [depth, []] as never });
    await client.request({ method: "evm_mine" as never, params: [] as never });
    expect(await client.getTransactionReceipt({ hash: first.hash }).catch(() => null)).toBeNull();

    await indexed(async () => {
      const trades = (await get(`/api/v1/tokens/${beta}/trades?limit=100`)).body.items;
      return trades.every((t: ExpectedTrade) => !orphaned.includes(t.transaction_hash));
    }, "orphaned trades removed");
    const after = (await get(`/api/v1/tokens/${beta}`)).body.metrics;
    expect(after).toEqual(before);
    const activity = await allPages(`/api/v1/tokens/${beta}/activity`);
    expect(activity.some((i) => orphaned.includes(i.transaction_hash))).toBe(false);
    const chartTrades = (await get(`/api/v1/tokens/${beta}/chart?interval=1d`)).body.candles.reduce(
      (n: number, c: { trade_count: number }) => n + c.trade_count,
      0,
    );
    expect(chartTrades).toBe(before.trade_count);
    const { priceAfter: _p, ...counts } = await expectedMetrics(beta);
    expect(after).toMatchObject(counts);
  });

  it("error: oracle-price on the wrong chain or without settings answers 503 oracle_unavailable", async () => {
    await system.restartService("oracle-price", { ORACLE_CHAIN_ID: "8453" });
    const wrongChain = await get("/api/v1/prices/eth-usd");
    expect(wrongChain.status).toBe(503);
    expect(wrongChain.body.error.code).toBe("oracle_unavailable");
    await system.restartService("oracle-price", { ORACLE_ETH_USD_ADDRESS: "" });
    const unconfigured = await get("/api/v1/prices/eth-usd");
    expect(unconfigured.status).toBe(503);
    expect(unconfigured.body.error.code).toBe("oracle_unavailable");
  });

  it("error: an unreachable upstream gives 503 with the error body, not a hang", async () => {
    await system.processes.get("oracle-price")!.stop();
    const response = await get("/api/v1/prices/eth-usd");
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      error: {
        code: expect.any(String),
        message: expect.any(String),
        request_id: expect.any(String),
      },
    });
    expect(response.headers.get("x-request-id")).toBe(response.body.error.request_id);
    // The other routes are unaffected.
    expect((await get("/api/v1/tokens?limit=1")).status).toBe(200);
    // Without query-api, the gateway's /readyz and the read routes answer 503; /health stays 200.
    await system.processes.get("query-api")!.stop();
    const ready = await get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.error.request_id).toBe(ready.headers.get("x-request-id"));
    expect((await get("/api/v1/tokens")).status).toBe(503);
    expect((await get("/health")).status).toBe(200);
  });
});
