import type { Db } from "@tmi/db";
import type { DraftRow } from "../drafts/draft-queries.js";
import { objectPath } from "../routes/draft-view.js";

/** `{block_number, transaction_hash, log_index}` of a chain event. */
export interface ChainPosition {
  block_number: number;
  transaction_hash: string;
  log_index: number;
}

/**
 * The Token object of a bound token as the finalize response carries it: the token record,
 * `metrics`, `curve`, `graduation` (absent before graduation), and the bound draft's metadata
 * fields at the top level (absent when unset) with `metadata_verified`. Amounts are decimal
 * strings; optional keys are absent, never null.
 */
export type BoundTokenView = Record<string, unknown> & {
  address: string;
  creator: string;
  name: string;
  symbol: string;
  initial_supply: string;
  created_at: ChainPosition;
  metadata_verified: boolean;
};

/**
 * The `tokens` row of `tokenAddress` as text values per column (every column, whatever the
 * version of the chain interface; amounts exact), or null. Source: `tokens`.
 */
export async function findTokenColumns(
  db: Db,
  tokenAddress: string,
): Promise<Map<string, string | null> | null> {
  const rows = await db.$queryRaw<{ key: string; value: string | null }[]>`
    SELECT c.key, c.value FROM tokens t, jsonb_each_text(to_jsonb(t)) c WHERE t.address = ${tokenAddress}`;
  if (rows.length === 0) return null;
  return new Map(rows.map((row) => [row.key, row.value]));
}

const num = (value: string | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

/**
 * Builds the Token object of the token bound to `draft` (the finalize response) from its `tokens`
 * columns, or null when the token is not (or no longer) indexed. Reads columns by name, so it
 * serves the launchpad interface's columns and the V3 ones (`curve_address`, `sold_supply`, ...).
 */
export async function findBoundToken(db: Db, draft: DraftRow): Promise<BoundTokenView | null> {
  if (!draft.tokenAddress) return null;
  const t = await findTokenColumns(db, draft.tokenAddress);
  if (!t) return null;
  const get = (key: string) => t.get(key) ?? null;
  const view: BoundTokenView = {
    address: get("address") ?? draft.tokenAddress,
    creator: get("creator") ?? "",
    name: get("name") ?? draft.name,
    symbol: get("symbol") ?? draft.symbol,
    initial_supply: get("initial_supply") ?? draft.initialSupply.toString(),
    created_at: {
      block_number: num(get("created_block_number")) ?? 0,
      transaction_hash: get("created_transaction_hash") ?? "",
      log_index: num(get("created_log_index")) ?? 0,
    },
    metadata_verified: draft.verified,
  };
  if (draft.description !== null) view.description = draft.description;
  view.image_url = objectPath(draft.imageKey);
  view.metadata_url = objectPath(draft.metadataKey);
  if (draft.websiteUrl !== null) view.website_url = draft.websiteUrl;
  if (draft.xUrl !== null) view.x_url = draft.xUrl;
  if (draft.telegramUrl !== null) view.telegram_url = draft.telegramUrl;
  if (draft.discordUrl !== null) view.discord_url = draft.discordUrl;
  view.metrics = {
    trade_count: num(get("trade_count")) ?? 0,
    buy_count: num(get("buy_count")) ?? 0,
    sell_count: num(get("sell_count")) ?? 0,
    volume: get("volume") ?? "0",
    fees: get("fees") ?? "0",
    unique_trader_count: num(get("unique_trader_count")) ?? 0,
    current_price: get("current_price"),
    fully_diluted_value: get("fully_diluted_value"),
    holder_count: num(get("holder_count")),
    latest_trade_timestamp: num(get("latest_trade_timestamp")),
  };
  const threshold = BigInt(get("graduation_threshold") ?? "0");
  const sold = BigInt(get("sold_supply") ?? get("tokens_sold") ?? "0");
  const graduated = get("state") === "graduated";
  const progress = graduated ? 10000n : threshold > 0n ? (sold * 10000n) / threshold : 0n;
  const curve: Record<string, unknown> = {};
  const curveAddress = get("curve_address");
  if (curveAddress !== null) curve.address = curveAddress;
  if (get("pool_address") !== null) curve.canonical_pool_address = get("pool_address");
  curve.supply = view.initial_supply;
  curve.sold_supply = sold.toString();
  curve.reserve_balance = get("reserve_balance") ?? "0";
  for (const key of ["virtual_token_reserve", "virtual_eth_reserve"]) {
    if (get(key) !== null) curve[key] = get(key);
  }
  curve.graduation_threshold = threshold.toString();
  curve.progress_bps = Number(progress > 10000n ? 10000n : progress);
  curve.lifecycle = graduated ? "graduated" : "active";
  view.curve = curve;
  if (graduated) {
    const graduation: Record<string, unknown> = { phase: "graduated" };
    const copy: [string, string][] = [
      ["pool_address", "canonical_pool_address"],
      ["graduation_manager_address", "graduation_manager_address"],
      ["lp_custodian_address", "lp_custodian_address"],
      ["position_token_id", "position_token_id"],
      ["graduation_liquidity", "liquidity"],
      ["graduation_token_amount", "token_amount"],
      ["graduation_eth_amount", "eth_amount"],
      ["graduation_sold_supply", "sold_supply"],
    ];
    for (const [column, key] of copy) if (get(column) !== null) graduation[key] = get(column);
    if (get("graduated_block_number") !== null) {
      graduation.curve_terminal_at = {
        block_number: num(get("graduated_block_number")),
        transaction_hash: get("graduated_transaction_hash"),
        log_index: num(get("graduated_log_index")),
      };
    }
    if (get("settled_block_number") !== null) {
      graduation.settled_at = {
        block_number: num(get("settled_block_number")),
        transaction_hash: get("settled_transaction_hash"),
        log_index: num(get("settled_log_index")),
      };
    }
    view.graduation = graduation;
  }
  return view;
}
