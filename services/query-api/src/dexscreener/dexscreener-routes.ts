import { FEE_BPS } from "@tmi/shared/chain";
import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import type { z } from "zod";
import { DataRoutes, type RoutesPlugin } from "../common/route-helpers.js";
import type { RouteContext } from "../route-context.js";
import {
  curveTradesInRange,
  type DexTradeRow,
  latestIndexedBlock,
  tokenByAddress,
  tokenByCurve,
  wholeUnits,
} from "./dexscreener-queries.js";
import {
  assetResponseSchema,
  eventsQuery,
  eventsResponseSchema,
  idQuery,
  latestBlockResponseSchema,
  pairResponseSchema,
  type swapEventSchema,
} from "./dexscreener-schemas.js";

/** Base's WETH (the OP Stack predeploy; also the devnet's): `WETH_ADDRESS` default. */
export const BASE_WETH_ADDRESS = "0x4200000000000000000000000000000000000006";

/** Settings of the adapter (`DEXSCREENER_DEX_KEY`, `WETH_ADDRESS`, `DEXSCREENER_MAX_BLOCK_RANGE`). */
export interface DexScreenerSettings {
  /** The key DEX Screener gave the DEX (each pair's `dexKey`). */
  dexKey: string;
  /** The chain's WETH, lowercase: asset1 of every pair. */
  wethAddress: string;
  /** Most blocks one `events` call may span (`toBlock − fromBlock + 1`); more is 400 `invalid_request`. */
  maxBlockRange: number;
}

/** Defaults of {@link DexScreenerSettings}. */
export const DEFAULT_DEXSCREENER_SETTINGS: DexScreenerSettings = Object.freeze({
  dexKey: "zonkfun",
  wethAddress: BASE_WETH_ADDRESS,
  maxBlockRange: 10_000,
});

type SwapEvent = z.output<typeof swapEventSchema>;

/** A curve trade as a DEX Screener `swap` event (amounts in whole units). */
function swapEvent(row: DexTradeRow): SwapEvent {
  const tokens = wholeUnits(BigInt(row.token_amount));
  const eth = wholeUnits(BigInt(row.reserve_amount));
  // The curve's spot price after the trade (wei per whole token = WETH per token × 10^18); a row
  // without one (never for the curve) falls back to the trade's own ETH per token.
  const price =
    row.price !== null
      ? BigInt(row.price)
      : (BigInt(row.reserve_amount) * 10n ** 18n) / BigInt(row.token_amount || "1");
  return {
    block: { blockNumber: Number(row.block_number), blockTimestamp: Number(row.block_timestamp) },
    eventType: "swap",
    txnId: row.transaction_hash,
    txnIndex: row.transaction_index,
    eventIndex: row.log_index,
    maker: row.trader,
    pairId: row.curve_address,
    ...(row.side === "buy" ? { asset1In: eth, asset0Out: tokens } : { asset0In: tokens, asset1Out: eth }),
    priceNative: wholeUnits(price),
    ...(row.reserve_token !== null && row.reserve_eth !== null
      ? {
          reserves: {
            asset0: wholeUnits(BigInt(row.reserve_token)),
            asset1: wholeUnits(BigInt(row.reserve_eth)),
          },
        }
      : {}),
  };
}

/**
 * The DEX Screener adapter (docs/api.md "DEX Screener adapter"; their "DEX Screener Adapter Specs"
 * v1.1): `GET /dexscreener/latest-block` (the indexed checkpoint), `asset?id=` (a launched token),
 * `pair?id=` (a token's curve: asset0 the token, asset1 WETH), `events?fromBlock=&toBlock=` (the
 * curve trades of the range as `swap` events, chain order). Errors: 400 `invalid_request` (a
 * missing or malformed parameter, `fromBlock > toBlock`, a range over `maxBlockRange` blocks or
 * past the latest block), 400 `invalid_address`, 404 `not_found` (no such token or curve; no block
 * indexed yet). Source: `indexer_checkpoints`, `tokens`, `trades`.
 */
export const dexScreenerRoutes: RoutesPlugin<RouteContext> = (ctx) => {
  const settings = ctx.dexScreener ?? DEFAULT_DEXSCREENER_SETTINGS;
  return async (fastify) => {
    const routes = new DataRoutes(fastify, "dexscreener");

    const latest = async () => {
      const block = await latestIndexedBlock(ctx.db);
      if (!block) throw new AppError("not_found", "no block indexed yet");
      return block;
    };

    routes.get(
      "/dexscreener/latest-block",
      {
        summary: "DEX Screener adapter: latest block",
        description:
          "The last block whose events `events` serves (the indexer's committed checkpoint), never ahead of it.",
        ok: latestBlockResponseSchema,
      },
      async () => ({ block: await latest() }),
    );

    routes.get(
      "/dexscreener/asset",
      {
        summary: "DEX Screener adapter: asset",
        description: "A launched token: name, symbol and total supply in whole tokens (18 decimals).",
        query: idQuery,
        ok: assetResponseSchema,
      },
      async (query) => {
        const id = parseAddress(query.id, "id");
        const token = await tokenByAddress(ctx.db, id);
        if (!token) throw new AppError("not_found", `no launched token ${id}`);
        return {
          asset: {
            id: token.address,
            name: token.name,
            symbol: token.symbol,
            totalSupply: wholeUnits(BigInt(token.initial_supply)),
          },
        };
      },
    );

    routes.get(
      "/dexscreener/pair",
      {
        summary: "DEX Screener adapter: pair",
        description:
          "A token's bonding curve as a pair: `id` the curve's address, asset0 the token, asset1 WETH, `feeBps` the curve's fee.",
        query: idQuery,
        ok: pairResponseSchema,
      },
      async (query) => {
        const id = parseAddress(query.id, "id");
        const token = await tokenByCurve(ctx.db, id);
        if (!token) throw new AppError("not_found", `no curve ${id}`);
        return {
          pair: {
            id: token.curve_address,
            dexKey: settings.dexKey,
            asset0Id: token.address,
            asset1Id: settings.wethAddress,
            createdAtBlockNumber: Number(token.created_block_number),
            createdAtBlockTimestamp: Number(token.created_at),
            createdAtTxnId: token.created_transaction_hash,
            creator: token.creator,
            feeBps: Number(FEE_BPS),
          },
        };
      },
    );

    routes.get(
      "/dexscreener/events",
      {
        summary: "DEX Screener adapter: events",
        description: `The curve trades of blocks fromBlock..toBlock (inclusive) as \`swap\` events in chain order, each with the curve's price and real reserves after it. At most ${settings.maxBlockRange} blocks per call; toBlock must not be past latest-block. Trades in the Uniswap pool after graduation are not included.`,
        query: eventsQuery,
        ok: eventsResponseSchema,
      },
      async (query) => {
        const { fromBlock, toBlock } = query;
        const invalid = (field: string, reason: string) =>
          new AppError("invalid_request", `${field} ${reason}`, { details: [{ field, reason }] });
        if (fromBlock > toBlock) throw invalid("fromBlock", "must not be greater than toBlock");
        if (toBlock - fromBlock + 1 > settings.maxBlockRange)
          throw invalid("toBlock", `must be at most ${settings.maxBlockRange - 1} blocks after fromBlock`);
        const block = await latest();
        if (toBlock > block.blockNumber)
          throw invalid(
            "toBlock",
            `is past the latest block ${block.blockNumber} (GET /dexscreener/latest-block)`,
          );
        const rows = await curveTradesInRange(ctx.db, fromBlock, toBlock);
        return { events: rows.map(swapEvent) };
      },
    );
  };
};
