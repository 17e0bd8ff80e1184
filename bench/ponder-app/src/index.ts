import { ponder } from "ponder:registry";
import { candles1m, pools, tokens, trades } from "ponder:schema";

// The platform's curve constants and spot price (wei per whole token).
const WAD = 10n ** 18n;
const VTR = 1_066_666_666_666_666_666_666_666_667n;
const VER = WAD;
const spotPrice = (sold: bigint, reserve: bigint) => {
  const num = (VER + reserve) * WAD;
  const den = VTR - sold;
  return (num + den - 1n) / den;
};
const Q192 = 1n << 192n;
const bigMax = (a: bigint, b: bigint) => (a > b ? a : b);
const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);
const WETH = (process.env.PONDER_WETH ?? "").toLowerCase();

type Db = Parameters<Parameters<typeof ponder.on<"Factory:TokenLaunchedV3">>[1]>[0]["context"]["db"];

async function recordTrade(
  db: Db,
  t: {
    id: string;
    token: `0x${string}`;
    trader: `0x${string}`;
    side: "buy" | "sell";
    source: "curve" | "uniswap_v3";
    tokenAmount: bigint;
    reserveAmount: bigint;
    curveValue: bigint;
    price: bigint;
    blockNumber: bigint;
    logIndex: number;
    timestamp: bigint;
    transactionHash: `0x${string}`;
  },
) {
  await db.insert(trades).values(t);
  const bucket = t.timestamp - (t.timestamp % 60n);
  await db
    .insert(candles1m)
    .values({
      token: t.token,
      bucket,
      open: t.price,
      high: t.price,
      low: t.price,
      close: t.price,
      volume: t.curveValue,
      tradeCount: 1,
    })
    .onConflictDoUpdate((row) => ({
      high: bigMax(row.high, t.price),
      low: bigMin(row.low, t.price),
      close: t.price,
      volume: row.volume + t.curveValue,
      tradeCount: row.tradeCount + 1,
    }));
}

ponder.on("Factory:TokenLaunchedV3", async ({ event, context }) => {
  await context.db.insert(pools).values({ address: event.args.canonicalPool, token: event.args.token });
  await context.db.insert(tokens).values({
    address: event.args.token,
    creator: event.args.creator,
    curve: event.args.curve,
    pool: event.args.canonicalPool,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
    soldSupply: 0n,
    reserveCoordinate: 0n,
    graduated: false,
    currentPrice: spotPrice(0n, 0n),
    tradeCount: 0,
    volume: 0n,
  });
});

type CurveTradeEvent = {
  id: string;
  args: { token: `0x${string}` };
  block: { number: bigint; timestamp: bigint };
  log: { logIndex: number };
  transaction: { hash: `0x${string}` };
};

/**
 * One curve trade of `event.args.token` (`TokensBought` or `TokensSold`): the curve's sold supply
 * moves by `tokenAmount` and its reserve coordinate by `curveValue` (up on a buy, down on a sell),
 * its price is the curve's spot price after the trade, and the trade row and candle are written.
 * @param trader the buyer or seller
 * @param tokenAmount tokens bought (`tokensOut`) or sold (`tokensIn`)
 * @param reserveAmount wei the trader paid (`acceptedGross`) or received (`netSellerOutput`)
 * @param curveValue wei entering (`netCurveInput`) or leaving (`grossCurveOutput`) the curve
 */
async function applyCurveTrade(
  db: Db,
  event: CurveTradeEvent,
  side: "buy" | "sell",
  trader: `0x${string}`,
  tokenAmount: bigint,
  reserveAmount: bigint,
  curveValue: bigint,
) {
  const trade = { token: event.args.token, trader, side, tokenAmount, reserveAmount, curveValue };
  const sign = side === "buy" ? 1n : -1n;
  const token = await db.find(tokens, { address: trade.token });
  if (!token) return;
  const soldSupply = token.soldSupply + sign * tokenAmount;
  const reserveCoordinate = token.reserveCoordinate + sign * curveValue;
  const price = spotPrice(soldSupply, reserveCoordinate);
  await db.update(tokens, { address: token.address }).set({
    soldSupply,
    reserveCoordinate,
    currentPrice: price,
    tradeCount: token.tradeCount + 1,
    volume: token.volume + trade.curveValue,
    latestTradeAt: event.block.timestamp,
  });
  await recordTrade(db, {
    id: event.id,
    token: token.address,
    trader: trade.trader,
    side: trade.side,
    source: "curve",
    tokenAmount: trade.tokenAmount,
    reserveAmount: trade.reserveAmount,
    curveValue: trade.curveValue,
    price,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
}

ponder.on("Curve:TokensBought", async ({ event, context }) => {
  const { buyer, tokensOut, acceptedGross, netCurveInput } = event.args;
  await applyCurveTrade(context.db, event, "buy", buyer, tokensOut, acceptedGross, netCurveInput);
});

ponder.on("Curve:TokensSold", async ({ event, context }) => {
  const { seller, tokensIn, netSellerOutput, grossCurveOutput } = event.args;
  await applyCurveTrade(context.db, event, "sell", seller, tokensIn, netSellerOutput, grossCurveOutput);
});

ponder.on("Curve:Graduated", async ({ event, context }) => {
  await context.db.update(tokens, { address: event.args.token }).set({ graduated: true });
});

ponder.on("Pool:Swap", async ({ event, context }) => {
  const pool = await context.db.find(pools, { address: event.log.address });
  if (!pool) return;
  const tokenAddress = pool.token;
  const token = await context.db.find(tokens, { address: tokenAddress });
  if (!token?.graduated) return;
  const tokenIsToken0 = tokenAddress.toLowerCase() < WETH;
  const tokenDelta = tokenIsToken0 ? event.args.amount0 : event.args.amount1;
  const wethDelta = tokenIsToken0 ? event.args.amount1 : event.args.amount0;
  const side = tokenDelta < 0n ? "buy" : "sell";
  const abs = (v: bigint) => (v < 0n ? -v : v);
  const sq = event.args.sqrtPriceX96 * event.args.sqrtPriceX96;
  // Wei per whole token from the pool's marginal price, token order aware, floored.
  const price = tokenIsToken0 ? (sq * WAD) / Q192 : (Q192 * WAD) / sq;
  await context.db.update(tokens, { address: tokenAddress }).set({
    currentPrice: price,
    tradeCount: token.tradeCount + 1,
    volume: token.volume + abs(wethDelta),
    latestTradeAt: event.block.timestamp,
  });
  await recordTrade(context.db, {
    id: event.id,
    token: tokenAddress,
    trader: event.transaction.from,
    side,
    source: "uniswap_v3",
    tokenAmount: abs(tokenDelta),
    reserveAmount: abs(wethDelta),
    curveValue: abs(wethDelta),
    price,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
});
