import type { Lifecycle } from "@tmi/shared/market";
import type { Pool, PoolClient } from "pg";
import { type FeedContracts, KnownState, type TokenInfo } from "../model/known-state.js";

/** Columns of `tokens` that make a {@link TokenInfo}. */
const TOKEN_INFO_COLUMNS = `address, creator, created_block_number::text, curve_address, pool_address, pool_token_is_token0, initial_supply::text,
  graduation_threshold::text, fee_manager_address, graduation_manager_address, lp_custodian_address,
  residual_escrow_address, lp_fee_vault_address, community_vault_address, trader_rewards_vault_address,
  graduated_block_number::text, graduated_log_index,
  sold_supply::text, reserve_balance::text, lifecycle`;

interface TokenInfoRow {
  address: string;
  creator: string;
  created_block_number: string;
  curve_address: string;
  pool_address: string;
  pool_token_is_token0: boolean;
  initial_supply: string;
  graduation_threshold: string;
  fee_manager_address: string | null;
  graduation_manager_address: string | null;
  lp_custodian_address: string | null;
  residual_escrow_address: string | null;
  lp_fee_vault_address: string | null;
  community_vault_address: string | null;
  trader_rewards_vault_address: string | null;
  graduated_block_number: string | null;
  graduated_log_index: number | null;
  sold_supply: string;
  reserve_balance: string;
  lifecycle: Lifecycle;
}

function tokenInfo(t: TokenInfoRow): TokenInfo {
  return {
    address: t.address,
    creator: t.creator,
    launchBlock: Number(t.created_block_number),
    curve: t.curve_address,
    pool: t.pool_address,
    tokenIsToken0: t.pool_token_is_token0,
    initialSupply: BigInt(t.initial_supply),
    graduationThreshold: BigInt(t.graduation_threshold),
    feeManager: t.fee_manager_address,
    graduationManager: t.graduation_manager_address,
    custodian: t.lp_custodian_address,
    escrow: t.residual_escrow_address,
    feeVault: t.lp_fee_vault_address,
    communityVault: t.community_vault_address,
    traderRewardsVault: t.trader_rewards_vault_address,
    graduatedAt:
      t.graduated_block_number === null
        ? null
        : { blockNumber: Number(t.graduated_block_number), logIndex: t.graduated_log_index ?? 0 },
    curveState: {
      soldSupply: BigInt(t.sold_supply),
      reserveCoordinate: BigInt(t.reserve_balance),
      graduated: t.lifecycle === "graduated",
    },
  };
}

/**
 * Loads the whole known state (every launched token with its curve, pool, managers, custodian,
 * escrow, graduation position and curve state) from `tokens`. The indexer itself loads tokens on
 * demand ({@link loadTokenInfos}); this full load is for tests and tools.
 * @param addresses factory, WETH and ETH/USD feed (lowercase; feed null when none).
 */
export async function loadKnownState(
  db: Pool | PoolClient,
  addresses: { factory: string; weth: string; feed: FeedContracts | null },
): Promise<KnownState> {
  const state = new KnownState(addresses.factory, addresses.weth, addresses.feed);
  const { rows } = await db.query<TokenInfoRow>(`SELECT ${TOKEN_INFO_COLUMNS} FROM tokens`);
  for (const t of rows) state.addToken(tokenInfo(t));
  return state;
}

/**
 * The committed {@link TokenInfo}s of the tokens named by address, curve or pool, and of one
 * token per named LP fee vault (one statement on the primary key, the unique curve and pool
 * indexes and the fee vault index); names that match nothing are absent.
 */
export async function loadTokenInfos(
  db: Pool | PoolClient,
  keys: { tokens: string[]; curves: string[]; pools: string[]; feeVaults?: string[] },
): Promise<TokenInfo[]> {
  const { rows } = await db.query<TokenInfoRow>(
    `SELECT ${TOKEN_INFO_COLUMNS} FROM tokens
     WHERE address = ANY($1::text[]) OR curve_address = ANY($2::text[]) OR pool_address = ANY($3::text[])
     UNION
     SELECT ${TOKEN_INFO_COLUMNS} FROM unnest($4::text[]) AS v(vault)
     CROSS JOIN LATERAL (SELECT * FROM tokens WHERE lp_fee_vault_address = v.vault LIMIT 1) t`,
    [keys.tokens, keys.curves, keys.pools, keys.feeVaults ?? []],
  );
  return rows.map(tokenInfo);
}

/** Addresses per page of {@link loadEmitterSeed} (one text value each: no row objects). */
const SEED_PAGE = 250_000;

/** What {@link loadEmitterSeed} read. */
export interface EmitterSeed {
  /** Token addresses read (every launched token when `complete`). */
  tokens: string[];
  /** Canonical pools of graduated tokens (all of them when `complete`, none otherwise). */
  pools: string[];
  /** True when `tokens` and `pools` are every indexed token and graduated pool. */
  complete: boolean;
  /** Launched tokens: exact when `complete`, else PostgreSQL's estimate (at least `limit` + 1). */
  count: number;
}

/**
 * What the log filter needs of every launched token, and only that: the token addresses and the
 * canonical pools of graduated tokens. Read in pages of 250,000 addresses aggregated into one
 * text value each (a million tokens: four statements, no million row objects). With `limit`,
 * reads at most `limit` + 1 addresses (one index range, whatever the number of tokens): more than
 * `limit` tokens gives an incomplete seed (no pools, the count from the planner's statistics) and
 * the log filter asks the database about the addresses it meets ({@link lookupEmitterMembers}).
 */
export async function loadEmitterSeed(db: Pool | PoolClient, limit?: number): Promise<EmitterSeed> {
  const tokens: string[] = [];
  let after = "";
  for (;;) {
    const page = limit === undefined ? SEED_PAGE : Math.min(SEED_PAGE, limit + 1 - tokens.length);
    const { rows } = await db.query<{ page: string | null; last: string | null }>(
      `SELECT string_agg(address, ',' ORDER BY address) AS page, max(address) AS last
       FROM (SELECT address FROM tokens WHERE address > $1 ORDER BY address LIMIT $2) t`,
      [after, page],
    );
    const { page: text, last } = rows[0]!;
    if (text === null || last === null) break;
    for (const a of text.split(",")) tokens.push(a);
    after = last;
    if (limit !== undefined && tokens.length > limit) {
      const estimate = await db.query<{ n: string }>(
        "SELECT greatest(reltuples, 0)::bigint::text AS n FROM pg_class WHERE oid = 'tokens'::regclass",
      );
      return {
        tokens,
        pools: [],
        complete: false,
        count: Math.max(tokens.length, Number(estimate.rows[0]?.n ?? 0)),
      };
    }
  }
  const pools = await db.query<{ pool_address: string }>(
    "SELECT pool_address FROM tokens WHERE graduated_block_number IS NOT NULL AND pool_address IS NOT NULL",
  );
  return { tokens, pools: pools.rows.map((r) => r.pool_address), complete: true, count: tokens.length };
}

/**
 * Which of `addresses` (lowercase) are indexed tokens, and which canonical pools of graduated
 * tokens: one statement on the primary key and the unique pool index.
 */
export async function lookupEmitterMembers(
  db: Pool | PoolClient,
  addresses: string[],
): Promise<{ tokens: string[]; pools: string[] }> {
  const { rows } = await db.query<{ address: string; pool: boolean }>(
    `SELECT address, false AS pool FROM tokens WHERE address = ANY($1::text[])
     UNION ALL
     SELECT pool_address, true FROM tokens
      WHERE pool_address = ANY($1::text[]) AND graduated_block_number IS NOT NULL`,
    [addresses],
  );
  const tokens: string[] = [];
  const pools: string[] = [];
  for (const r of rows) (r.pool ? pools : tokens).push(r.address);
  return { tokens, pools };
}

/** Curve and pool of `tokens` (for the log filter's discovery of graduations of tokens it only knows by address). */
export async function loadEmitterTokens(
  db: Pool | PoolClient,
  tokens: string[],
): Promise<{ token: string; curve: string; pool: string; graduated: boolean }[]> {
  const { rows } = await db.query<{
    address: string;
    curve_address: string;
    pool_address: string;
    graduated: boolean;
  }>(
    `SELECT address, curve_address, pool_address, graduated_block_number IS NOT NULL AS graduated
     FROM tokens WHERE address = ANY($1::text[])`,
    [tokens],
  );
  return rows.map((r) => ({
    token: r.address,
    curve: r.curve_address,
    pool: r.pool_address,
    graduated: r.graduated,
  }));
}
