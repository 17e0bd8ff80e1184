import { DEFAULT_ETH_USD_DECIMALS } from "./usd-schemas.js";

/**
 * SQL fragments of the USD values (docs/api.md "USD values") for the statements whose JSON is
 * built by PostgreSQL (tokens, trades, the live stream): `wei × answer / 10^(18 + decimals)`,
 * exact. Multiplying by `1e-<18 + decimals>` is exact in `numeric` (scales add up) and
 * `trim_scale` drops trailing zeros, so the text is the exact decimal without rounding.
 */

/** Latest positive ETH/USD answer: an uncorrelated scalar subquery (an InitPlan: evaluated once per query). */
export const LATEST_ETH_USD_ANSWER_SQL =
  "(SELECT a.answer FROM eth_usd_answers a WHERE a.answer > 0 ORDER BY a.block_number DESC, a.log_index DESC LIMIT 1)";

/** `wei` × `answer` / 10^(18 + decimals) as exact decimal text (null when either is null). */
export function usdAmountSql(
  weiExpr: string,
  answerExpr: string,
  decimals = DEFAULT_ETH_USD_DECIMALS,
): string {
  return `trim_scale((${weiExpr}) * (${answerExpr}) * '1e-${18 + decimals}'::numeric)::text`;
}

/**
 * The `usd` member of a token's JSON over the `tokens` alias `t`: null when no answer is
 * indexed, else `json_build_object('price', …, 'fully_diluted_value', …, 'volume', …)`.
 * Use inside `TOKEN_ITEM_JSON`: `'usd', ${tokenUsdJsonSql()}`.
 */
export function tokenUsdJsonSql(t = "t", decimals = DEFAULT_ETH_USD_DECIMALS): string {
  const answer = LATEST_ETH_USD_ANSWER_SQL;
  return `CASE WHEN ${answer} IS NULL THEN NULL ELSE json_build_object(
    'price', ${usdAmountSql(`${t}.current_price`, answer, decimals)},
    'fully_diluted_value', ${usdAmountSql(`${t}.fully_diluted_value`, answer, decimals)},
    'volume', ${usdAmountSql(`${t}.volume`, answer, decimals)}) END`;
}

/**
 * `reserve_amount_usd` of a trade row alias `r` (columns `reserve_amount`, `block_number`,
 * `log_index`): the answer in force at the trade's position (a backward primary-key probe of
 * `eth_usd_answers` per row). Null when no answer precedes the trade.
 */
export function tradeReserveUsdSql(r = "r", decimals = DEFAULT_ETH_USD_DECIMALS): string {
  const answer = `(SELECT a.answer FROM eth_usd_answers a
     WHERE (a.block_number, a.log_index) <= (${r}.block_number, ${r}.log_index) AND a.answer > 0
     ORDER BY a.block_number DESC, a.log_index DESC LIMIT 1)`;
  return usdAmountSql(`${r}.reserve_amount`, answer, decimals);
}

/**
 * The ETH/USD answer in force before `bound` (a Unix-seconds SQL expression): a `SELECT` of the
 * latest positive answer whose round `updated_at` is before it (one backward probe of
 * `eth_usd_answers_updated_at_idx`), no row when none. For a scalar subquery or a LATERAL join.
 */
export function ethUsdAnswerBeforeSql(bound: string): string {
  return `SELECT a.answer FROM eth_usd_answers a WHERE a.updated_at < ${bound} AND a.answer > 0
  ORDER BY a.updated_at DESC, a.block_number DESC, a.log_index DESC LIMIT 1`;
}
