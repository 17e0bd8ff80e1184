import { z } from "zod";

/**
 * Wire shapes of the DEX Screener adapter (docs/api.md "DEX Screener adapter"), field for field as
 * the "DEX Screener Adapter Specs" v1.1 (Dec 2023) name them (camelCase: their spec, not ours).
 * Amounts and prices are decimal strings in whole units (the assets' 18 decimals applied).
 */

/** A decimal string in whole units (decimals applied), e.g. `"0.0125"`. */
const unitsSchema = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?$/)
  .meta({ description: "decimal string in whole units (the asset's 18 decimals applied)" });

const idSchema = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/)
  .meta({ description: "0x-prefixed lowercase hex address" });

/** `Block`: a block number and its timestamp (Unix seconds). */
export const dexBlockSchema = z
  .object({
    blockNumber: z.number().int(),
    blockTimestamp: z.number().int().meta({ description: "Unix seconds" }),
  })
  .meta({ id: "DexScreenerBlock" });

/** `GET /dexscreener/latest-block` body. */
export const latestBlockResponseSchema = z
  .object({ block: dexBlockSchema })
  .meta({ id: "DexScreenerLatestBlockResponse" });

/** `GET /dexscreener/asset` body: a launched token. */
export const assetResponseSchema = z
  .object({
    asset: z.object({
      id: idSchema.meta({ description: "the token's address" }),
      name: z.string(),
      symbol: z.string(),
      totalSupply: unitsSchema.meta({ description: "initial supply in whole tokens" }),
    }),
  })
  .meta({ id: "DexScreenerAssetResponse" });

/** `GET /dexscreener/pair` body: a token's bonding curve. */
export const pairResponseSchema = z
  .object({
    pair: z.object({
      id: idSchema.meta({ description: "the curve's address" }),
      dexKey: z.string().meta({ description: "the DEX's key (DEXSCREENER_DEX_KEY)" }),
      asset0Id: idSchema.meta({ description: "the token" }),
      asset1Id: idSchema.meta({ description: "WETH" }),
      createdAtBlockNumber: z.number().int(),
      createdAtBlockTimestamp: z.number().int(),
      createdAtTxnId: z.string().meta({ description: "the launch transaction's hash" }),
      creator: idSchema.meta({ description: "the token's creator" }),
      feeBps: z.number().int().meta({ description: "the curve's fee on every trade (basis points)" }),
    }),
  })
  .meta({ id: "DexScreenerPairResponse" });

/** A curve trade as a `swap` event. */
export const swapEventSchema = z
  .object({
    block: dexBlockSchema,
    eventType: z.literal("swap"),
    txnId: z.string().meta({ description: "transaction hash" }),
    txnIndex: z.number().int(),
    eventIndex: z.number().int().meta({ description: "the log's index in its block" }),
    maker: idSchema.meta({ description: "the trader" }),
    pairId: idSchema.meta({ description: "the curve's address" }),
    asset0In: unitsSchema.optional().meta({ description: "sell: tokens sold" }),
    asset1Out: unitsSchema.optional().meta({ description: "sell: ETH the seller received (after fees)" }),
    asset1In: unitsSchema.optional().meta({ description: "buy: ETH the buyer paid (fees included)" }),
    asset0Out: unitsSchema.optional().meta({ description: "buy: tokens bought" }),
    priceNative: unitsSchema.meta({
      description: "the curve's spot price after the trade: WETH per whole token",
    }),
    reserves: z
      .object({
        asset0: unitsSchema.meta({ description: "tokens held by the curve after the trade" }),
        asset1: unitsSchema.meta({ description: "net ETH held by the curve after the trade" }),
      })
      .optional()
      .meta({
        description:
          "the curve's real reserves after the trade (not its virtual reserves), as the indexer stored them with the trade; omitted for a trade stored without them",
      }),
  })
  .meta({ id: "DexScreenerSwapEvent" });

/** `GET /dexscreener/events` body. */
export const eventsResponseSchema = z
  .object({ events: z.array(swapEventSchema) })
  .meta({ id: "DexScreenerEventsResponse" });

/** `?id=`: an address, checked in the handler (malformed → 400 `invalid_address`). */
export const idQuery = z.object({
  id: z.string().max(100).meta({ description: "0x-prefixed 20-byte hex address (any letter case)" }),
});

/** A block number query value: digits only (no sign, exponent or blanks), at most 15 of them. */
const blockParam = z
  .string()
  .regex(/^[0-9]{1,15}$/, "must be a block number (digits only)")
  .transform(Number);

/** `?fromBlock=&toBlock=` (both required, inclusive). */
export const eventsQuery = z.object({
  fromBlock: blockParam.meta({ description: "first block (inclusive)" }),
  toBlock: blockParam.meta({ description: "last block (inclusive)" }),
});
