import { prepared, type SqlReader } from "../../db.js";

/** A `token_fees` row as read (amounts decimal strings, wei). */
export interface TokenFeeRow {
  curve_total: string;
  curve_protocol: string;
  curve_creator: string;
  curve_community: string;
  curve_trader_rewards: string;
  creator_claimed: string;
  payout_address: string | null;
  pending_payout_address: string | null;
  /** `token_asset_fees` rows of the token, ordered by asset. */
  assets: AssetFeeRow[];
}

/** A `token_asset_fees` row as read (amounts decimal strings, base units of `asset`). */
export interface AssetFeeRow {
  asset: string;
  lp_creator: string;
  lp_protocol: string;
  lp_community: string;
  lp_trader_rewards: string;
  community_funded: string;
  community_forwarded: string;
  trader_rewards_funded: string;
  trader_rewards_paid: string;
}

/** The fee columns of `token_fees f` (zero / null when the token has no row yet). */
export const TOKEN_FEE_COLUMNS = `coalesce(f.curve_total, 0)::text AS curve_total,
  coalesce(f.curve_protocol, 0)::text AS curve_protocol, coalesce(f.curve_creator, 0)::text AS curve_creator,
  coalesce(f.curve_community, 0)::text AS curve_community,
  coalesce(f.curve_trader_rewards, 0)::text AS curve_trader_rewards,
  coalesce(f.creator_claimed, 0)::text AS creator_claimed, f.payout_address,
  nullif(f.pending_payout_address, '') AS pending_payout_address`;

const TOKEN_FEES_SQL = `SELECT ${TOKEN_FEE_COLUMNS},
  coalesce((SELECT json_agg(json_build_object(
      'asset', a.asset, 'lp_creator', a.lp_creator::text, 'lp_protocol', a.lp_protocol::text,
      'lp_community', a.lp_community::text, 'lp_trader_rewards', a.lp_trader_rewards::text,
      'community_funded', a.community_funded::text, 'community_forwarded', a.community_forwarded::text,
      'trader_rewards_funded', a.trader_rewards_funded::text, 'trader_rewards_paid', a.trader_rewards_paid::text)
      ORDER BY a.asset)
    FROM token_asset_fees a WHERE a.token_address = t.address), '[]'::json) AS assets
FROM tokens t LEFT JOIN token_fees f ON f.token_address = t.address
WHERE t.address = $1`;

/**
 * The fee economy of one token (lowercase address): its `token_fees` row and its
 * `token_asset_fees` rows (one statement on their primary keys); null when `tokens` has no such
 * token. Source: `tokens`, `token_fees`, `token_asset_fees` (written from the platform's events,
 * docs/api.md "Fees").
 */
export async function readTokenFees(db: SqlReader, token: string): Promise<TokenFeeRow | null> {
  const { rows } = await prepared<TokenFeeRow>(db, "qapi_token_fees", TOKEN_FEES_SQL, [token]);
  return rows[0] ?? null;
}
