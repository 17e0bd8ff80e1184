import { parseAddress } from "@tmi/shared/codec";
import type pg from "pg";

/** What an exclusion hides: a token, or every token of a creator (DESIGN.md §9). */
export type ExclusionKind = "token" | "creator";

/** One row of `excluded_addresses`. */
export interface Exclusion {
  address: string;
  kind: ExclusionKind;
  reason: string;
  created_at: string;
}

/**
 * Operator write path of query-api's package (the server itself never writes): adds or updates
 * an exclusion. Takes effect on the next API request (filters are evaluated at query time).
 * `address` is validated and lowercased. Returns true when a new row was inserted.
 * @throws AppError `invalid_address` for a malformed address.
 */
export async function addExclusion(
  db: Pick<pg.Pool, "query">,
  input: { address: string; kind: ExclusionKind; reason: string },
): Promise<boolean> {
  const address = parseAddress(input.address, "address");
  const result = await db.query<{ inserted: boolean }>(
    `INSERT INTO excluded_addresses (address, kind, reason) VALUES ($1, $2, $3)
     ON CONFLICT (address, kind) DO UPDATE SET reason = EXCLUDED.reason
     RETURNING (xmax = 0) AS inserted`,
    [address, input.kind, input.reason],
  );
  return result.rows[0]?.inserted === true;
}

/** Removes an exclusion; returns true when one existed. @throws AppError `invalid_address`. */
export async function removeExclusion(
  db: Pick<pg.Pool, "query">,
  input: { address: string; kind: ExclusionKind },
): Promise<boolean> {
  const address = parseAddress(input.address, "address");
  const result = await db.query("DELETE FROM excluded_addresses WHERE address = $1 AND kind = $2", [
    address,
    input.kind,
  ]);
  return (result.rowCount ?? 0) > 0;
}

/** Lists exclusions (optionally of one kind and/or one address), oldest first. */
export async function listExclusions(
  db: Pick<pg.Pool, "query">,
  filter: { kind?: ExclusionKind; address?: string } = {},
): Promise<Exclusion[]> {
  const address = filter.address === undefined ? null : parseAddress(filter.address, "address");
  const result = await db.query<{ address: string; kind: ExclusionKind; reason: string; created_at: Date }>(
    `SELECT address, kind, reason, created_at FROM excluded_addresses
     WHERE ($1::text IS NULL OR kind = $1) AND ($2::text IS NULL OR address = $2)
     ORDER BY created_at, address, kind`,
    [filter.kind ?? null, address],
  );
  return result.rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
}
