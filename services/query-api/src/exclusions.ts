import { type Db, Prisma } from "@tmi/db";
import { parseAddress } from "@tmi/shared/codec";

/** What an exclusion hides: a token, or every token of a creator (see docs/operations.md "Exclusions"). */
export type ExclusionKind = "token" | "creator";

/** One row of `excluded_addresses`. */
export interface Exclusion {
  address: string;
  kind: ExclusionKind;
  reason: string;
  /** ISO 8601 */
  created_at: string;
}

/** The part of the Prisma client the exclusion commands use. */
export type ExclusionDb = Pick<Db, "excludedAddress">;

/**
 * Operator write path of query-api's package (the server itself never writes): adds an
 * exclusion, or updates the reason of an existing one. Takes effect on the next API request
 * (filters are evaluated at query time). `address` is validated and lowercased. Returns true
 * when a new row was inserted. Source: `excluded_addresses` (Prisma).
 * @throws AppError `invalid_address` for a malformed address.
 */
export async function addExclusion(
  db: ExclusionDb,
  input: { address: string; kind: ExclusionKind; reason: string },
): Promise<boolean> {
  const address = parseAddress(input.address, "address");
  try {
    await db.excludedAddress.create({ data: { address, kind: input.kind, reason: input.reason } });
    return true;
  } catch (error) {
    if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2002") throw error;
  }
  await db.excludedAddress.update({
    where: { address_kind: { address, kind: input.kind } },
    data: { reason: input.reason },
  });
  return false;
}

/** Removes an exclusion; returns true when one existed. @throws AppError `invalid_address`. */
export async function removeExclusion(
  db: ExclusionDb,
  input: { address: string; kind: ExclusionKind },
): Promise<boolean> {
  const address = parseAddress(input.address, "address");
  const result = await db.excludedAddress.deleteMany({ where: { address, kind: input.kind } });
  return result.count > 0;
}

/** Lists exclusions (optionally of one kind and/or one address), oldest first. */
export async function listExclusions(
  db: ExclusionDb,
  filter: { kind?: ExclusionKind; address?: string } = {},
): Promise<Exclusion[]> {
  const address = filter.address === undefined ? undefined : parseAddress(filter.address, "address");
  const rows = await db.excludedAddress.findMany({
    where: { ...(filter.kind ? { kind: filter.kind } : {}), ...(address ? { address } : {}) },
    orderBy: [{ createdAt: "asc" }, { address: "asc" }, { kind: "asc" }],
  });
  return rows.map((row) => ({
    address: row.address,
    kind: row.kind as ExclusionKind,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
  }));
}
