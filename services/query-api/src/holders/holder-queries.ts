import { toBigInt } from "@tmi/shared/codec";
import type { KeysetSource } from "../common/keyset-page.js";
import type { ReadDb } from "../db.js";

/** The zero address, never counted as a holder (mints and burns). */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** What the holders page needs to know about a token (from `tokens` and its `TokenCreated` event). */
export interface HolderTokenInfo {
  address: string;
  /** Fixed supply in token base units (the denominator of `share_bps`). */
  initialSupply: bigint;
  /** Addresses whose balances are not holders (docs/api.md "GET /api/v1/tokens/{address}/holders"): zero address, factory, token, curve, pool, graduation manager, LP custodian, residual escrow. */
  notHolders: string[];
}

/** A row of a holders page ({@link TOKEN_HOLDERS}): lowercase address and balance in token base units (decimal string). */
export interface HolderRow extends Record<string, unknown> {
  holder: string;
  balance: string;
}

/**
 * Reads the token (`tokens`) and the addresses that do not count as its holders: the zero
 * address, the token itself, the platform's own contracts of the token (its curve, canonical
 * pool, graduation manager, LP custodian and residual escrow), the factory (the contract that
 * emitted its launch event, from `chain_events`) and `launchpad` when given. Returns null when the token has no canonical record.
 */
export async function readHolderToken(
  db: ReadDb,
  token: string,
  launchpad?: string,
): Promise<HolderTokenInfo | null> {
  const { rows } = await db.query<{
    initial_supply: string;
    pool_address: string | null;
    curve_address: string | null;
    graduation_manager_address: string | null;
    lp_custodian_address: string | null;
    residual_escrow_address: string | null;
    launchpad: string | null;
  }>(
    `SELECT t.initial_supply::text AS initial_supply, t.pool_address, t.curve_address, t.graduation_manager_address,
            t.lp_custodian_address, t.residual_escrow_address,
            (SELECT ce.contract_address FROM chain_events ce
              WHERE ce.block_number = t.created_block_number AND ce.log_index = t.created_log_index) AS launchpad
       FROM tokens t WHERE t.address = $1`,
    [token],
  );
  const row = rows[0];
  if (!row) return null;
  const notHolders = new Set<string>([ZERO_ADDRESS, token]);
  for (const platform of [
    row.pool_address,
    row.curve_address,
    row.graduation_manager_address,
    row.lp_custodian_address,
    row.residual_escrow_address,
  ]) {
    if (platform) notHolders.add(platform.toLowerCase());
  }
  if (row.launchpad) notHolders.add(row.launchpad.toLowerCase());
  if (launchpad) notHolders.add(launchpad.toLowerCase());
  return { address: token, initialSupply: toBigInt(row.initial_supply), notHolders: [...notHolders] };
}

/**
 * The holders of one token (`$1`, lowercase) from `token_balances`: positive balances only, the
 * addresses of `$2` (text[], {@link HolderTokenInfo.notHolders}) left out, ordered by balance
 * descending then holder ascending, keyset-paged over `token_balances_rank_idx`.
 * Rows: `{holder, balance}` (balance a decimal string in token base units).
 */
export const TOKEN_HOLDERS: KeysetSource = {
  name: "holders",
  select: "b.holder, b.balance::text AS balance",
  from: "token_balances b",
  where: "b.token_address = $1 AND b.balance > 0 AND b.holder <> ALL($2::text[])",
  key: [
    { sql: "b.balance", column: "balance", type: "numeric", descending: true },
    { sql: "b.holder", column: "holder", type: "text", descending: false },
  ],
};

/** `balance` × 10,000 / `supply`, floored (basis points of the supply); 0 when `supply` is 0. */
export function shareBps(balance: bigint, supply: bigint): number {
  if (supply <= 0n) return 0;
  return Number((balance * 10_000n) / supply);
}
