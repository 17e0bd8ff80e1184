import { toBigInt } from "@tmi/shared/codec";
import { excludedHoldersSql } from "@tmi/shared/market";
import type { ReadDb } from "../db.js";

/** What the holders page needs to know about a token (from `tokens` and its `TokenCreated` event). */
export interface HolderTokenInfo {
  address: string;
  /** Fixed supply in token base units (the denominator of `share_bps`). */
  initialSupply: bigint;
  /** Addresses whose balances are not holders (docs/api.md "GET /api/v1/tokens/{address}/holders"), lowercase. */
  notHolders: string[];
}

/** One holder row: lowercase address and balance in token base units. */
export interface HolderRow {
  holder: string;
  balance: bigint;
}

/**
 * Reads the token (`tokens`) and the addresses that are not its holders (`excludedHoldersSql` of
 * `@tmi/shared/market`: the zero address, the factory that emitted its launch event, the token
 * itself and its platform contracts). Returns null when the token has no canonical record.
 */
export async function readHolderToken(db: ReadDb, token: string): Promise<HolderTokenInfo | null> {
  const { rows } = await db.query<{ initial_supply: string; not_holders: string[] }>(
    `SELECT t.initial_supply::text AS initial_supply, ${excludedHoldersSql("t", LAUNCH_EMITTER_SQL)} AS not_holders
       FROM tokens t WHERE t.address = $1`,
    [token],
  );
  const row = rows[0];
  if (!row) return null;
  return { address: token, initialSupply: toBigInt(row.initial_supply), notHolders: row.not_holders };
}

/** The factory of the `tokens` row `t`: the emitter of its launch event (`chain_events`). */
const LAUNCH_EMITTER_SQL = `(SELECT ce.contract_address FROM chain_events ce
              WHERE ce.block_number = t.created_block_number AND ce.log_index = t.created_log_index)`;

/**
 * One keyset page of a token's holders from `token_balances` (index `token_balances_rank_idx`):
 * positive balances only, `notHolders` left out, ordered by balance descending then holder
 * ascending, strictly after `after` when given. Returns up to `limit` rows.
 */
export async function readHolderPage(
  db: ReadDb,
  options: {
    token: string;
    notHolders: string[];
    limit: number;
    after?: { balance: bigint; holder: string };
  },
): Promise<HolderRow[]> {
  const values: unknown[] = [options.token, options.notHolders, options.limit];
  let keyset = "";
  if (options.after) {
    values.push(options.after.balance.toString(), options.after.holder);
    keyset = "AND (b.balance < $4::numeric OR (b.balance = $4::numeric AND b.holder > $5))";
  }
  const { rows } = await db.query<{ holder: string; balance_text: string }>(
    `SELECT b.holder, b.balance::text AS balance_text FROM token_balances b
      WHERE b.token_address = $1 AND b.balance > 0 AND b.holder <> ALL($2::text[]) ${keyset}
      ORDER BY b.balance DESC, b.holder ASC
      LIMIT $3`,
    values,
  );
  return rows.map((r) => ({ holder: r.holder, balance: toBigInt(r.balance_text) }));
}

/** `balance` × 10,000 / `supply`, floored (basis points of the supply); 0 when `supply` is 0. */
export function shareBps(balance: bigint, supply: bigint): number {
  if (supply <= 0n) return 0;
  return Number((balance * 10_000n) / supply);
}
