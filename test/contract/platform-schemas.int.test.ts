// The contract schemas themselves (test/src/platform-schemas.ts): what they must refuse, so that a
// loosened schema cannot let a shape the platform's web client rejects pass the contract tests.
// No system is started (the file sits with the contract tests it guards).
import { describe, expect, it } from "vitest";
import {
  CURVE_ALLOCATION,
  errorEnvelopeSchema,
  ethUsdSchema,
  metadataDraftSchema,
  platformClientEthUsdSchema,
  tokenPageSchema,
  tokenSchema,
  tradeSchema,
  unexpectedNulls,
} from "../src/platform-schemas.js";

const A = `0x${"ab".repeat(20)}`;
const H = `0x${"cd".repeat(32)}`;
const at = { block_number: 7, transaction_hash: H, log_index: 3 };

/** A Token on its curve, every required key present, no optional key. */
function curveToken(): Record<string, unknown> {
  return {
    address: A,
    creator: A,
    name: "Example",
    symbol: "EXM",
    initial_supply: (10n ** 27n).toString(),
    created_at: at,
    metrics: {
      trade_count: 1,
      buy_count: 1,
      sell_count: 0,
      volume: "100",
      fees: "1",
      unique_trader_count: 1,
      current_price: "937500000",
      fully_diluted_value: "937500000000000000",
      holder_count: 1,
      latest_trade_timestamp: 1_700_000_000,
    },
    curve: {
      address: A,
      canonical_pool_address: A,
      supply: CURVE_ALLOCATION.toString(),
      sold_supply: (CURVE_ALLOCATION / 16n).toString(),
      reserve_balance: "1",
      virtual_token_reserve: "1",
      virtual_eth_reserve: "1",
      graduation_threshold: CURVE_ALLOCATION.toString(),
      progress_bps: 625,
      lifecycle: "active",
    },
  };
}

describe("contract schemas", () => {
  it("default: a curve token, a page of it and a graduated token parse", () => {
    expect(tokenSchema.safeParse(curveToken()).success).toBe(true);
    // A list page's Token carries the compact `risk` (issue 28); without it the page does not parse.
    const risk = {
      creator_share_bps: 120,
      creator_has_sold: false,
      top10_share_bps: 4100,
      sniper_share_bps: 0,
      insider_share_bps: 35,
    };
    expect(tokenPageSchema.safeParse({ items: [{ ...curveToken(), risk }] }).success).toBe(true);
    expect(tokenPageSchema.safeParse({ items: [curveToken()] }).success).toBe(false);
    const graduated = curveToken();
    graduated.curve = {
      ...(graduated.curve as object),
      lifecycle: "graduated",
      progress_bps: 10_000,
      sold_supply: CURVE_ALLOCATION.toString(),
    };
    graduated.graduation = { phase: "graduated", curve_terminal_at: at, settled_at: at };
    expect(tokenSchema.safeParse(graduated).success).toBe(true);
  });

  it("error: optional keys given as null are refused (graduation, metadata fields, next_cursor)", () => {
    expect(tokenSchema.safeParse({ ...curveToken(), graduation: null }).success).toBe(false);
    expect(tokenSchema.safeParse({ ...curveToken(), image_url: null }).success).toBe(false);
    expect(tokenPageSchema.safeParse({ items: [], next_cursor: null }).success).toBe(false);
    expect(unexpectedNulls({ items: [{ graduation: null, metrics: { current_price: null } }] })).toEqual([
      "items[0].graduation",
    ]);
  });

  it("error: nullable keys must be present, the graduation must match the lifecycle, progress must be the ratio", () => {
    const token = curveToken();
    const { latest_trade_timestamp: _, ...metrics } = token.metrics as Record<string, unknown>;
    expect(tokenSchema.safeParse({ ...token, metrics }).success).toBe(false);
    expect(tokenSchema.safeParse({ ...token, graduation: { phase: "graduated" } }).success).toBe(false);
    expect(
      tokenSchema.safeParse({ ...token, curve: { ...(token.curve as object), progress_bps: 10_000 } })
        .success,
    ).toBe(false);
  });

  it("error: the spec's neutral names, numbers for amounts and malformed addresses are refused", () => {
    const trade = {
      token_address: A,
      trader: A,
      side: "buy",
      token_amount: "1",
      reserve_amount: "1",
      curve_value: "1",
      protocol_fee: "0",
      creator_fee: "0",
      source: "curve",
      block_number: 1,
      transaction_index: 0,
      transaction_hash: H,
      log_index: 0,
    };
    expect(tradeSchema.safeParse(trade).success).toBe(true);
    expect(tradeSchema.safeParse({ ...trade, source: "uniswap_v3" }).success).toBe(true);
    expect(tradeSchema.safeParse({ ...trade, source: "dex_v3" }).success).toBe(false);
    expect(tradeSchema.safeParse({ ...trade, token_amount: 1 }).success).toBe(false);
    expect(tradeSchema.safeParse({ ...trade, trader: "0x1234" }).success).toBe(false);
  });

  it("error: an error body outside the envelope, and a draft whose description is null, are refused", () => {
    const error = { code: "not_found", message: "no such token", request_id: "r-1" };
    expect(errorEnvelopeSchema.safeParse({ error }).success).toBe(true);
    expect(errorEnvelopeSchema.safeParse(error).success).toBe(false);
    expect(errorEnvelopeSchema.safeParse({ error, ...error }).success).toBe(false);
    const draft = {
      draft_id: "d",
      name: "N",
      symbol: "S",
      initial_supply: "1",
      description: "",
      image_url: "/objects/images/x.png",
      metadata_url: "/objects/metadata/x.json",
    };
    expect(metadataDraftSchema.safeParse(draft).success).toBe(true);
    expect(metadataDraftSchema.safeParse({ ...draft, description: null }).success).toBe(false);
    expect(metadataDraftSchema.safeParse({ ...draft, image_url: "https://cdn.example/x.png" }).success).toBe(
      false,
    );
  });

  it("behavior: our ETH/USD answer parses with the platform client's schema; the spec's sample does not", () => {
    const answer = {
      price: "3123.45678901",
      price_decimals: 8,
      updated_at: "2023-11-14T22:13:20Z",
      feed: "0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70",
      source: "chainlink_eth_usd",
      max_age_seconds: 1800,
      decimals: 8,
      chain_id: 8453,
      updated_at_unix: 1_700_000_000,
    };
    expect(ethUsdSchema.safeParse(answer).success).toBe(true);
    expect(platformClientEthUsdSchema.safeParse(answer).success).toBe(true);
    expect(ethUsdSchema.safeParse({ ...answer, source: "oracle_eth_usd" }).success).toBe(false);
    expect(ethUsdSchema.safeParse({ ...answer, updated_at_unix: 1_700_000_001 }).success).toBe(false);
    expect(platformClientEthUsdSchema.safeParse({ ...answer, price: "3123.456789" }).success).toBe(false);
    expect(platformClientEthUsdSchema.safeParse({ ...answer, updated_at: 1_700_000_000 }).success).toBe(
      false,
    );
    // The spec's table (the platform docs' illustrative sample) is what the client drops.
    const specSample = {
      price: "3123.45678901",
      decimals: 8,
      updated_at: 1_700_000_000,
      source: "chainlink_eth_usd",
      chain_id: 8453,
    };
    expect(platformClientEthUsdSchema.safeParse(specSample).success).toBe(false);
  });
});
