import type { Lifecycle } from "@tmi/shared/market";
import type { Pool, PoolClient } from "pg";
import { KnownState } from "../model/known-state.js";

/**
 * Loads the known state (every launched token with its curve, pool, managers, custodian, escrow,
 * graduation position and curve state) from `tokens`: at start, after a failed write and after a
 * reorg, so that memory always matches the committed read models.
 * @param addresses factory, WETH and ETH/USD feed (lowercase; feed null when none).
 */
export async function loadKnownState(
  db: Pool | PoolClient,
  addresses: { factory: string; weth: string; feed: string | null },
): Promise<KnownState> {
  const state = new KnownState(addresses.factory, addresses.weth, addresses.feed);
  const { rows } = await db.query<{
    address: string;
    creator: string;
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
    graduated_block_number: string | null;
    graduated_log_index: number | null;
    sold_supply: string;
    reserve_balance: string;
    lifecycle: Lifecycle;
  }>(
    `SELECT address, creator, curve_address, pool_address, pool_token_is_token0, initial_supply::text,
            graduation_threshold::text, fee_manager_address, graduation_manager_address, lp_custodian_address,
            residual_escrow_address, lp_fee_vault_address, graduated_block_number::text, graduated_log_index, sold_supply::text,
            reserve_balance::text, lifecycle
     FROM tokens`,
  );
  for (const t of rows) {
    state.addToken({
      address: t.address,
      creator: t.creator,
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
      graduatedAt:
        t.graduated_block_number === null
          ? null
          : { blockNumber: Number(t.graduated_block_number), logIndex: t.graduated_log_index ?? 0 },
      curveState: {
        soldSupply: BigInt(t.sold_supply),
        reserveCoordinate: BigInt(t.reserve_balance),
        graduated: t.lifecycle === "graduated",
      },
    });
  }
  return state;
}
