import { LRUCache } from "lru-cache";
import {
  CHAIN_POSITION_KEY,
  type KeysetPage,
  type KeysetPosition,
  keysetOrderBy,
} from "../../common/keyset-page.js";
import { POSITION_COLUMNS, type PositionColumns, pnlSql } from "../../common/position-sql.js";
import { prepared, type SqlReader } from "../../db.js";

// The `pnl` sort of a token's traders (docs/api.md "Wallets and traders"). pnl = realized_pnl +
// floor(open_quantity × current_price / 10^18) − cost_basis depends on the token's current price,
// so no index orders it: ranking a token's traders evaluates and sorts every position of the token.
// Instead of doing that for every page of every request, each process ranks a token once per
// *version* of what the ranking depends on and answers pages from that ranking until the version
// changes.
//
// What a token's pnl ranking depends on: its positions and its `current_price`. Positions change
// only with the token's trades (inserted, or removed by a reorg), in the same indexer transaction
// as the token's row, so the version is (current_price, the latest trade's block number, log index
// and block hash). The block hash pins the whole chain up to that block, hence every trade of the
// token (none is later than its latest): a reorg that removes any trade of the token removes its
// latest one, so the version changes. Every page statement reads the version in the same snapshot
// as the page's rows and the page is answered only when it equals the ranking's; otherwise the
// token is ranked again. Correctness therefore needs no shared state and no invalidation message:
// each query-api replica keeps its own rankings (bounded, least recently used dropped) and a
// ranking is only ever used against rows it is proved to describe.

/** The latest trade of `t` (`l`) and its chain event (`e`, for the block hash). */
const VERSION_FROM = `tokens t
  LEFT JOIN LATERAL (
    SELECT r.block_number, r.log_index FROM trades r WHERE r.token_address = t.address
    ORDER BY ${keysetOrderBy(CHAIN_POSITION_KEY, "desc")} LIMIT 1
  ) l ON true
  LEFT JOIN chain_events e ON e.block_number = l.block_number AND e.log_index = l.log_index`;

/**
 * The version of a token's pnl ranking (text): `<current_price>:<block>:<log index>:<block hash>`
 * of its latest trade, `<current_price>:none` without trades, NULL (not cacheable) when the latest
 * trade has no chain event (the block hash is unknown).
 */
const VERSION_SQL = `coalesce(t.current_price::text, '-') || ':' || coalesce(
    l.block_number::text || ':' || l.log_index::text || ':' || e.block_hash,
    CASE WHEN l.block_number IS NULL THEN 'none' END)`;

/**
 * The ranking of token `$1`: its version and every position as `<pnl> <trader>`, comma-separated,
 * by pnl descending then trader ascending (the order of `tokenTradersSource("pnl")`). No row for
 * an unknown token.
 */
export const PNL_RANKING_SQL = `SELECT ${VERSION_SQL} AS version, r.n, r.ranking
  FROM ${VERSION_FROM}
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS n, string_agg(s.k::text || ' ' || s.trader, ',' ORDER BY s.k DESC, s.trader) AS ranking
    FROM (SELECT p.trader, ${pnlSql()} AS k FROM positions p WHERE p.token_address = t.address) s
  ) r ON true
  WHERE t.address = $1`;

/**
 * The page rows of token `$1` for the traders `$2` (in that order) with the version read in the
 * same snapshot: the columns of `tokenTradersSource("pnl")` (trader, balance, sort_key, position)
 * plus `version`. One all-null row (but `version`) when no trader matched; no row for an unknown
 * token. Positions and balances are read by primary key, one lookup per trader: the lateral
 * subqueries (kept apart by their `LIMIT`) leave the generic plan of the prepared statement no
 * other way (it estimates a token's positions from the average token's and would otherwise scan
 * a hot token's positions and balances). The balance lookup has no `balance > 0`, so it cannot take
 * the partial `token_balances_rank_idx` (token, balance, holder), which reads the token's whole
 * range for one holder.
 */
export const PNL_PAGE_SQL = `SELECT ${VERSION_SQL} AS version, x.*
  FROM ${VERSION_FROM}
  LEFT JOIN LATERAL (
    SELECT u.i, p.trader, coalesce(b.balance, 0)::text AS balance, ${pnlSql()} AS sort_key, ${POSITION_COLUMNS()}
    FROM unnest($2::text[]) WITH ORDINALITY AS u(trader, i)
    CROSS JOIN LATERAL (SELECT * FROM positions q WHERE q.token_address = $1 AND q.trader = u.trader LIMIT 1) p
    LEFT JOIN LATERAL (
      SELECT q.balance FROM token_balances q
      WHERE q.token_address = $1 AND q.holder = u.trader LIMIT 1
    ) b ON true
  ) x ON true
  WHERE t.address = $1
  ORDER BY x.i`;

/** A token's traders by pnl descending, then trader ascending, at one version. */
export interface PnlRanking {
  /** What the ranking was computed from (see {@link VERSION_SQL}); null: not cacheable. */
  version: string | null;
  /** Traders (lowercase addresses), in ranking order. */
  traders: string[];
  /** pnl of each trader (wei, signed), in ranking order. */
  pnls: bigint[];
}

/** A row of {@link PNL_PAGE_SQL}: a trader of the page with balance, sort key and position. */
export type PnlPageRow = PositionColumns &
  Record<string, unknown> & { version: string | null; trader: string; balance: string; sort_key: string };

/** Parses the `ranking` text of {@link PNL_RANKING_SQL}. */
function parseRanking(version: string | null, text: string | null): PnlRanking {
  const traders: string[] = [];
  const pnls: bigint[] = [];
  if (text) {
    for (const entry of text.split(",")) {
      const space = entry.indexOf(" ");
      pnls.push(BigInt(entry.slice(0, space)));
      traders.push(entry.slice(space + 1));
    }
  }
  return { version, traders, pnls };
}

/**
 * Index of the first entry of `ranking` strictly after the keyset position (`pnl`, `trader`) in
 * the order pnl descending, trader ascending (0 without a position). Traders are lowercase hex
 * addresses of one length, ordered alike by code unit and by PostgreSQL's collation.
 */
export function rankAfter(ranking: PnlRanking, after: KeysetPosition | null): number {
  if (after === null) return 0;
  const [pnl, trader] = after as [bigint, string];
  let lo = 0;
  let hi = ranking.traders.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const p = ranking.pnls[mid] as bigint;
    const isAfter = p < pnl || (p === pnl && (ranking.traders[mid] as string) > trader);
    if (isAfter) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** What {@link PnlRankings.page} tells the route. */
export type PnlPageResult =
  /** The page (at most `limit` rows) and whether a further row exists. */
  | { kind: "page"; rows: PnlPageRow[]; more: boolean }
  /** No token `token`. */
  | { kind: "unknown" }
  /** Not answered from a ranking (not cacheable, or the token kept changing): read it directly. */
  | { kind: "direct" };

/** Per-process rankings of tokens' traders by pnl; see {@link createPnlRankings}. */
export interface PnlRankings {
  /**
   * The page of `token`'s traders by pnl after the keyset position `after` (pnl, trader), at most
   * `limit` rows, exactly as `tokenTradersSource("pnl")` reads it: from the token's ranking at
   * the version the page's rows were read at.
   */
  page(db: SqlReader, token: string, after: KeysetPosition | null, limit: number): Promise<PnlPageResult>;
  /** Positions held by the cached rankings (for tests and metrics). */
  readonly size: number;
}

/** Times a page is retried against a fresh ranking before it is read directly. */
const ATTEMPTS = 3;

/**
 * Creates the rankings of one process. `maxPositions` bounds the positions held by all cached
 * rankings together (least recently used tokens dropped first; a token with more positions is
 * never cached and read directly); 0 caches nothing. Concurrent requests of one token share one
 * ranking query.
 */
export function createPnlRankings(options: { maxPositions: number }): PnlRankings {
  const { maxPositions } = options;
  const cache =
    maxPositions > 0
      ? new LRUCache<string, PnlRanking>({
          maxSize: maxPositions,
          sizeCalculation: (ranking) => Math.max(1, ranking.traders.length),
        })
      : null;
  // Tokens seen with more positions than the cache holds: read directly (positions only grow).
  const tooLarge = new LRUCache<string, true>({ max: 10_000 });
  const pending = new Map<string, Promise<PnlRanking | null>>();

  const rank = (db: SqlReader, token: string): Promise<PnlRanking | null> => {
    const running = pending.get(token);
    if (running) return running;
    const promise = (async () => {
      const result = await prepared<{ version: string | null; n: number; ranking: string | null }>(
        db,
        "qapi_traders_pnl_ranking",
        PNL_RANKING_SQL,
        [token],
      );
      const row = result.rows[0];
      if (row === undefined) return null;
      const ranking = parseRanking(row.version, row.ranking);
      if (row.n > maxPositions) tooLarge.set(token, true);
      else if (ranking.version !== null) cache?.set(token, ranking);
      return ranking;
    })().finally(() => pending.delete(token));
    pending.set(token, promise);
    return promise;
  };

  return {
    get size() {
      return cache?.calculatedSize ?? 0;
    },
    async page(db, token, after, limit) {
      if (cache === null || tooLarge.has(token)) return { kind: "direct" };
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        const ranking = cache.get(token) ?? (await rank(db, token));
        if (ranking === null) return { kind: "unknown" };
        if (ranking.version === null) return { kind: "direct" };
        const start = rankAfter(ranking, after);
        const traders = ranking.traders.slice(start, start + limit + 1);
        const result = await prepared<PnlPageRow>(db, "qapi_traders_pnl_page", PNL_PAGE_SQL, [
          token,
          traders,
        ]);
        if (result.rows.length === 0) return { kind: "unknown" };
        const rows = result.rows.filter((row) => row.trader !== null);
        const current =
          result.rows[0]?.version === ranking.version &&
          rows.length === traders.length &&
          rows.every(
            (row, i) => row.trader === traders[i] && BigInt(row.sort_key) === ranking.pnls[start + i],
          );
        if (current) return { kind: "page", rows: rows.slice(0, limit), more: rows.length > limit };
        // The token changed since the ranking (or another replica's state was read): rank again.
        if (cache.get(token) === ranking) cache.delete(token);
      }
      return { kind: "direct" };
    },
  };
}

/** A {@link PnlPageResult} page as a keyset page (the cursor made by `position` of its last row). */
export function pnlKeysetPage(
  result: { rows: PnlPageRow[]; more: boolean },
  nextCursor: (last: PnlPageRow) => string,
): KeysetPage<PnlPageRow> {
  const last = result.rows[result.rows.length - 1];
  const page: KeysetPage<PnlPageRow> = { rows: result.rows };
  if (result.more && last !== undefined) page.nextCursor = nextCursor(last);
  return page;
}
