import { fullyDilutedValueSql } from "@tmi/shared/market";
import { ethUsdAnswerBeforeSql, usdAmountSql } from "../../common/usd-sql.js";

// The `risk` and `ath` members of the Token objects (docs/api.md "Risk and all-time high") as SQL
// over the `tokens` alias `t`: one primary-key read of the indexer's `token_risk` row (a token
// without one, indexed before the read model existed, reads zeros and no all-time high). Nothing
// here scans a token's trades or holders.

/** Sniper window of the definitions (launch block + 2), as served in `risk.sniper_window_blocks`. */
export const SNIPER_WINDOW_BLOCKS = 2;

/** `amount` × 10,000 / `t.initial_supply`, floored (0 for a zero supply): an int `*_share_bps`. */
export const shareBpsSql = (amount: string) =>
  `(CASE WHEN t.initial_supply > 0 THEN div((${amount}) * 10000, t.initial_supply) ELSE 0 END)::int`;

/** A `token_risk` column of the row `r`, 0 when the token has none. */
const col = (name: string) => `coalesce(r.${name}, 0)`;

/** `token_risk r` joined to the token `t` (one row; `r.*` null without a row). */
const RISK_ROW = "(SELECT 1) one LEFT JOIN token_risk r ON r.token_address = t.address";

/** A cohort's object: count, holding_count, balance, share_bps and its own sum `sumKey` ← `sumColumn`. */
function cohortJson(prefix: string, sumKey: string, sumColumn: string): string {
  return `json_build_object('count', ${col(`${prefix}_count`)}, 'holding_count', ${col(`${prefix}_holding_count`)},
    'balance', ${col(`${prefix}_balance`)}::text, 'share_bps', ${shareBpsSql(col(`${prefix}_balance`))},
    '${sumKey}', ${col(sumColumn)}::text)`;
}

/**
 * The compact `risk` of a list item as JSON text: `{creator_share_bps, creator_has_sold,
 * top10_share_bps, sniper_share_bps, insider_share_bps}` (a correlated primary-key read per row).
 */
export const COMPACT_RISK_JSON_SQL = `(SELECT json_build_object(
    'creator_share_bps', ${shareBpsSql(col("creator_balance"))},
    'creator_has_sold', ${col("creator_sold")} > 0,
    'top10_share_bps', ${shareBpsSql(col("top10_balance"))},
    'sniper_share_bps', ${shareBpsSql(col("sniper_balance"))},
    'insider_share_bps', ${shareBpsSql(col("insider_balance"))})::text FROM ${RISK_ROW})`;

/**
 * The full `risk` of the token detail as JSON text: creator, dev buy, the three cohorts,
 * concentration (top 10, distribution buckets, platform contracts) and the sniper window.
 */
export const FULL_RISK_JSON_SQL = `(SELECT json_build_object(
    'creator', json_build_object('address', t.creator, 'balance', ${col("creator_balance")}::text,
      'share_bps', ${shareBpsSql(col("creator_balance"))}, 'bought_tokens', ${col("creator_bought")}::text,
      'sold_tokens', ${col("creator_sold")}::text, 'transferred_out_tokens', ${col("creator_transferred_out")}::text,
      'has_sold', ${col("creator_sold")} > 0),
    'dev_buy', json_build_object('tokens', ${col("dev_buy_tokens")}::text, 'reserve', ${col("dev_buy_reserve")}::text,
      'count', ${col("dev_buy_count")}),
    'snipers', ${cohortJson("sniper", "bought_tokens", "sniper_bought")},
    'launch_block_buyers', ${cohortJson("launch_buyer", "bought_tokens", "launch_buyer_bought")},
    'insiders', ${cohortJson("insider", "received_tokens", "insider_received")},
    'top10_share_bps', ${shareBpsSql(col("top10_balance"))},
    'distribution_bps', json_build_object('top_10', ${shareBpsSql(col("top10_balance"))},
      'top_11_30', ${shareBpsSql(col("top11_30_balance"))}, 'top_31_50', ${shareBpsSql(col("top31_50_balance"))},
      'rest', ${shareBpsSql(`${col("holders_balance")} - ${col("top10_balance")} - ${col("top11_30_balance")} - ${col("top31_50_balance")}`)}),
    'platform_share_bps', ${shareBpsSql(col("platform_balance"))},
    'sniper_window_blocks', ${SNIPER_WINDOW_BLOCKS})::text FROM ${RISK_ROW})`;

/**
 * `ath` of the token detail as JSON text (`null` before the first priced trade): price, market
 * cap, block and timestamp of the first trade reaching the highest price, the drawdown of the
 * current price from it, and the market cap in USD at the ETH/USD answer in force at that
 * timestamp (the latest answer updated at or before it; null without one).
 */
export const ATH_JSON_SQL = `coalesce((SELECT json_build_object(
    'price', r.ath_price::text,
    'market_cap', (${fullyDilutedValueSql("r.ath_price", "t.initial_supply")})::text,
    'block_number', r.ath_block_number, 'timestamp', r.ath_timestamp,
    'drawdown_bps', CASE WHEN r.ath_price > 0 THEN greatest(0,
      div((r.ath_price - coalesce(t.current_price, r.ath_price)) * 10000, r.ath_price))::int ELSE 0 END,
    'market_cap_usd', ${usdAmountSql(fullyDilutedValueSql("r.ath_price", "t.initial_supply"), `(${ethUsdAnswerBeforeSql("r.ath_timestamp + 1")})`)})::text
  FROM token_risk r WHERE r.token_address = t.address AND r.ath_price IS NOT NULL), 'null')`;
