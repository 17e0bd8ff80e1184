import type { Db } from "@tmi/db";
import { parseAddress } from "@tmi/shared/codec";
import { syncHiddenTradesSql } from "@tmi/shared/market";

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
export type ExclusionDb = Pick<Db, "excludedAddress" | "$transaction">;

/** The Prisma transaction client of an exclusion change. */
type ExclusionTx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** The trades an exclusion of `kind` over `$1` hides: the token's, or those of every token of the creator. */
const AFFECTED_TRADES: Record<ExclusionKind, string> = {
  token: "r.token_address = $1",
  creator: "r.token_address IN (SELECT t.address FROM tokens t WHERE t.creator = $1)",
};

/**
 * Changes an exclusion with `change` and brings `trades.hidden` of the trades it concerns in line
 * (`syncHiddenTradesSql`), in one transaction that first waits for the indexer's write in flight
 * and holds off its next ones (`LOCK trades IN SHARE MODE`: reads go on): a range written
 * concurrently could otherwise keep the flag of the exclusions it read. Costs the concerned
 * trades once (seconds for a token with millions), never the feed per request.
 */
async function changeExclusion<T>(
  db: ExclusionDb,
  address: string,
  kind: ExclusionKind,
  change: (tx: ExclusionTx) => Promise<T>,
): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe("LOCK TABLE trades IN SHARE MODE");
      const result = await change(tx);
      await tx.$executeRawUnsafe(syncHiddenTradesSql(AFFECTED_TRADES[kind]), address);
      return result;
    },
    { timeout: 600_000, maxWait: 60_000 },
  );
}

/**
 * Operator write path of query-api's package (the server itself never writes): adds an
 * exclusion, or updates the reason of an existing one, and hides the trades it concerns from the
 * market-wide feed's indexes (see `changeExclusion`). Takes effect on the next API request
 * (filters are evaluated at query time). `address` is validated and lowercased. Returns true
 * when a new row was inserted. Source: `excluded_addresses` (Prisma).
 * @throws AppError `invalid_address` for a malformed address.
 */
export async function addExclusion(
  db: ExclusionDb,
  input: { address: string; kind: ExclusionKind; reason: string },
): Promise<boolean> {
  const address = parseAddress(input.address, "address");
  return changeExclusion(db, address, input.kind, async (tx) => {
    const rows = await tx.$queryRawUnsafe<{ inserted: boolean }[]>(
      `INSERT INTO excluded_addresses (address, kind, reason) VALUES ($1, $2, $3)
       ON CONFLICT (address, kind) DO UPDATE SET reason = excluded.reason
       RETURNING xmax = 0 AS inserted`,
      address,
      input.kind,
      input.reason,
    );
    return rows[0]?.inserted === true;
  });
}

/**
 * Removes an exclusion (and shows the trades it hid again, unless another exclusion still hides
 * them); returns true when one existed. @throws AppError `invalid_address`.
 */
export async function removeExclusion(
  db: ExclusionDb,
  input: { address: string; kind: ExclusionKind },
): Promise<boolean> {
  const address = parseAddress(input.address, "address");
  return changeExclusion(db, address, input.kind, async (tx) => {
    const result = await tx.excludedAddress.deleteMany({ where: { address, kind: input.kind } });
    return result.count > 0;
  });
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
