/**
 * Rule: which trades the market-wide feed hides (`trades.hidden`). Exclusions
 * (`excluded_addresses`, docs/operations.md "Exclusions") hide a token, or every token of a
 * creator, from discovery; the feed reads its pages from indexes of the trades that are not
 * hidden, so an excluded token's trades cost it nothing. `trades.hidden` is true exactly for the
 * trades of {@link HIDDEN_TOKENS_SQL}'s tokens: the exclusion commands set it for the trades
 * already indexed (in the transaction that changes the exclusion, holding off the indexer's
 * writes), the indexer for each range it writes ({@link syncHiddenTradesSql}, {@link hideTradesSql}). query-api still checks
 * `excluded_addresses` per row it returns, so the feed is exact whatever the flag says.
 */

/** SQL: the addresses of the tokens hidden from discovery (excluded, or of an excluded creator). */
export const HIDDEN_TOKENS_SQL = `SELECT x.address FROM excluded_addresses x WHERE x.kind = 'token'
  UNION SELECT ht.address FROM tokens ht JOIN excluded_addresses x ON x.kind = 'creator' AND x.address = ht.creator`;

/**
 * SQL: sets `hidden` of the trades `r` matching `where` (a condition over `trades r`) to whether
 * their token is hidden ({@link HIDDEN_TOKENS_SQL}), touching only the rows whose flag changes:
 * what an exclusion command runs over the trades of the tokens it (un)hides.
 */
export function syncHiddenTradesSql(where: string): string {
  return `UPDATE trades r SET hidden = NOT r.hidden
  WHERE (${where}) AND r.hidden <> (r.token_address IN (${HIDDEN_TOKENS_SQL}))`;
}

/**
 * SQL: hides the trades `r` matching `where` whose token is hidden: what the indexer runs over
 * the trades it has just written (they are written not hidden). Cost: the hidden tokens' trades
 * among them, or a scan of them all when that is cheaper; nothing without exclusions.
 */
export function hideTradesSql(where: string): string {
  return `UPDATE trades r SET hidden = true
  WHERE (${where}) AND NOT r.hidden AND r.token_address IN (${HIDDEN_TOKENS_SQL})`;
}
