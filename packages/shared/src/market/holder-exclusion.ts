/**
 * Rule: which addresses are not holders of a token. A holder is an address with a positive
 * balance from the token's `Transfer` events, except the zero address, the token itself, the
 * factory that launched it, and the platform's contracts of the token, all learned from the
 * chain (never listed by hand): its curve and canonical pool (`TokenLaunchedV3`), fee manager
 * (`TokenRegistered`), graduation manager (`Graduated`), LP custodian (`GraduatedV3`), residual
 * escrow (`ResidualDeposited`), permanent LP fee vault (`PermanentLPFeesAccrued`), and the
 * community and trader-rewards vaults that vault forwards the token's shares of its LP fees to
 * (`CommunityLPFeesForwarded` / `TraderRewardsLPFeesForwarded`, which name the vault). The
 * settlement executor holds the graduation assets inside the graduation transaction only, so it
 * never ends a block with a balance and needs no entry.
 *
 * The indexer counts `tokens.holder_count` with {@link isExcludedHolder}; query-api's holders
 * list leaves out {@link excludedHoldersSql}; both read the same columns of `tokens`.
 */

/** The zero address (mints and burns). */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** A token's platform contracts as the indexer knows them (lowercase; null while unknown). */
export interface TokenPlatformContracts {
  /** The token itself. */
  address: string;
  /** Its curve (`TokenLaunchedV3.curve`). */
  curve: string;
  /** Its canonical Uniswap V3 pool (`TokenLaunchedV3.canonicalPool`). */
  pool: string | null;
  /** Fee manager that registered the token in its launch transaction (`TokenRegistered`'s emitter). */
  feeManager: string | null;
  /** Graduation manager named by the token's `Graduated`; null before graduation. */
  graduationManager: string | null;
  /** LP custodian from `GraduatedV3`. */
  custodian: string | null;
  /** Residual escrow (`ResidualDeposited`'s emitter in the graduation). */
  escrow: string | null;
  /** Permanent LP fee vault that accrued the token's LP fees; null before the first collection. */
  feeVault: string | null;
  /** Community vault the fee vault forwarded the token's community share to; null before the first forward. */
  communityVault: string | null;
  /** Trader-rewards vault the fee vault forwarded the token's trader-rewards share to; null before the first forward. */
  traderRewardsVault: string | null;
}

/** The `tokens` column of each field of {@link TokenPlatformContracts}. */
export const PLATFORM_CONTRACT_COLUMNS = Object.freeze({
  address: "address",
  curve: "curve_address",
  pool: "pool_address",
  feeManager: "fee_manager_address",
  graduationManager: "graduation_manager_address",
  custodian: "lp_custodian_address",
  escrow: "residual_escrow_address",
  feeVault: "lp_fee_vault_address",
  communityVault: "community_vault_address",
  traderRewardsVault: "trader_rewards_vault_address",
} as const satisfies Record<keyof TokenPlatformContracts, string>);

/**
 * Whether `holder` (lowercase) is not a holder of the token of `contracts` launched by `factory`.
 * @example isExcludedHolder(ZERO_ADDRESS, contracts, factory) // true
 */
export function isExcludedHolder(
  holder: string,
  contracts: TokenPlatformContracts,
  factory: string,
): boolean {
  return (
    holder === ZERO_ADDRESS ||
    holder === factory ||
    holder === contracts.address ||
    holder === contracts.curve ||
    holder === contracts.pool ||
    holder === contracts.feeManager ||
    holder === contracts.graduationManager ||
    holder === contracts.custodian ||
    holder === contracts.escrow ||
    holder === contracts.feeVault ||
    holder === contracts.communityVault ||
    holder === contracts.traderRewardsVault
  );
}

/**
 * SQL form of {@link isExcludedHolder}: a `text[]` of the excluded addresses of the `tokens` row
 * `alias`, with the factory given as the SQL expression `factory` (no nulls, so that
 * `holder <> ALL(...)` is a plain test).
 */
export function excludedHoldersSql(alias: string, factory: string): string {
  const columns = Object.values(PLATFORM_CONTRACT_COLUMNS).map((c) => `${alias}.${c}`);
  return `array_remove(ARRAY['${ZERO_ADDRESS}', ${factory}, ${columns.join(", ")}]::text[], NULL)`;
}
