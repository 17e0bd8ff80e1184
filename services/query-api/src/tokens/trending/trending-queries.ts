import type { CursorCodec } from "@tmi/shared/codec";
import type { SqlReader } from "../../db.js";
import { type TokenJsonPage, TWO_PART_SORTS, twoPartPage } from "../token-list-queries.js";

/** Route id the trending cursors are bound to (both URLs share them). */
export const TRENDING_CURSOR_ROUTE = "tokens.trending";

/**
 * One page of trending (docs/api.md "Trending"): the visible tokens of the latest trending
 * snapshot (or the cursor's) in rank order — window volume, then window trade count, then
 * window unique traders, then address, as ranked by the indexer — then every other visible
 * token, newest launch first. Cursors: `[snapshot, rank]` in the ranked part (as before the
 * second part existed), `[snapshot, created_block_number, created_log_index]` after it.
 * @throws AppError `invalid_request` for a cursor of another route, or whose snapshot was pruned.
 * Source: `trending_snapshots`, `trending_entries`, `tokens`, `excluded_addresses`, `metadata_drafts`.
 */
export function trendingPage(
  db: SqlReader,
  options: { limit: number; cursor: string | undefined; cursors: CursorCodec },
): Promise<TokenJsonPage> {
  return twoPartPage(db, {
    sort: TWO_PART_SORTS.trending,
    filters: { search: "", phase: undefined },
    route: TRENDING_CURSOR_ROUTE,
    ...options,
  });
}
