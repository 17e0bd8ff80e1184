import { toBigInt } from "@tmi/shared/codec";
import { excludedHoldersSql } from "@tmi/shared/market";
import type { KeysetSource } from "../../common/keyset-page.js";
import type { SqlReader } from "../../db.js";

/** What the holders page needs to know about a token (from `tokens` and its `TokenCreated` event). */
export interface HolderTokenInfo {
  address: string;
  /** Fixed supply in token base units (the denominator of `share_bps`). */
  initialSupply: bigint;
  /** Addresses whose balances are not holders (docs/api.md "GET /api/v1/tokens/{address}/holders"), lowercase. */
  notHolders: string[];
}

/** A row of a holders page ({@link TOKEN_HOLDERS}): lowercase address and balance in token base units (decimal string). */
export interface HolderRow extends Record<string, unknown> {
  holder: string;
  balance: string;
}

/** The factory of the `tokens` row `t`: the emitter of its launch event (`chain_events`). */
const LAUNCH_EMITTER_SQL = `(SELECT ce.contract_address FROM chain_events ce
              WHERE ce.block_number = t.created_block_number AND ce.log_index = t.created_log_index)`;

/**
 * Reads the token (`tokens`) and the addresses that are not its holders (`excludedHoldersSql` of
 * `@tmi/shared/market`: the zero address, the factory that emitted its launch event, the token
 * itself and its platform contracts). Returns null when the token has no canonical record.
 */
export async function readHolderToken(db: SqlReader, token: string): Promise<HolderTokenInfo | null> {
  const { rows } = await db.query<{ initial_supply: string; not_holders: string[] }>(
    `SELECT t.initial_supply::text AS initial_supply, ${excludedHoldersSql("t", LAUNCH_EMITTER_SQL)} AS not_holders
       FROM tokens t WHERE t.address = $1`,
    [token],
  );
  const row = rows[0];
  if (!row) return null;
  return { address: token, initialSupply: toBigInt(row.initial_supply), notHolders: row.not_holders };
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
