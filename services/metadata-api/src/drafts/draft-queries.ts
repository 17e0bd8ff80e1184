import { type Db, decimalToBigInt, type MetadataDraft, Prisma, toPrismaDecimal } from "@tmi/db";

/** A row of `metadata_drafts` as the API uses it (amounts as bigint, addresses lowercase). */
export interface DraftRow {
  id: string;
  chainId: number;
  name: string;
  symbol: string;
  description: string | null;
  initialSupply: bigint;
  websiteUrl: string | null;
  xUrl: string | null;
  telegramUrl: string | null;
  discordUrl: string | null;
  imageKey: string;
  metadataKey: string;
  /** `draft` | `pending` (receipt seen, waiting for the indexer) | `finalized`. */
  status: "draft" | "pending" | "finalized";
  tokenAddress: string | null;
  transactionHash: string | null;
  createdAt: Date;
  finalizedAt: Date | null;
  /** True when the binding was signed by the token's creator. */
  verified: boolean;
  /**
   * The creator whose signature came with the finalize (lowercase): on a `finalized` draft set
   * only when `verified`; on a `pending` draft the address the binding will be verified against.
   */
  signer: string | null;
}

/** The store's client: the read-write Prisma client or an interactive transaction of it. */
export type DraftDb = Db | Prisma.TransactionClient;

/** The stored row as a {@link DraftRow}: the same fields, the supply as bigint and the status narrowed. */
function toDraft(row: MetadataDraft): DraftRow {
  return {
    ...row,
    initialSupply: decimalToBigInt(row.initialSupply),
    status: row.status as DraftRow["status"],
  };
}

/** Fields that put a draft back to `draft` (no launch, no signer). */
const RELEASED = {
  status: "draft",
  tokenAddress: null,
  transactionHash: null,
  finalizedAt: null,
  verified: false,
  signer: null,
} as const;

/** Inserts a new draft (status `draft`). Returns the stored row. Source: `metadata_drafts`. */
export async function insertDraft(
  db: DraftDb,
  draft: Omit<
    DraftRow,
    "status" | "tokenAddress" | "transactionHash" | "createdAt" | "finalizedAt" | "verified" | "signer"
  >,
): Promise<DraftRow> {
  const row = await db.metadataDraft.create({
    data: { ...draft, initialSupply: toPrismaDecimal(draft.initialSupply), status: "draft" },
  });
  return toDraft(row);
}

/** The draft with `id`, or null. */
export async function findDraft(db: DraftDb, id: string): Promise<DraftRow | null> {
  const row = await db.metadataDraft.findUnique({ where: { id } });
  return row ? toDraft(row) : null;
}

/** The draft that holds `tokenAddress` (pending or finalized), or null. */
export async function findDraftByToken(db: DraftDb, tokenAddress: string): Promise<DraftRow | null> {
  const row = await db.metadataDraft.findUnique({ where: { tokenAddress } });
  return row ? toDraft(row) : null;
}

/**
 * True when `error` is the unique violation on `metadata_drafts.token_address` (another draft
 * holds the token), as Prisma reports it (P2002) or as PostgreSQL does (23505).
 */
export function isTokenTaken(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return error.code === "P2002";
  return (error as { code?: string } | undefined)?.code === "23505";
}

/** The identity of a launch that a draft binds to, from the indexer's `tokens` table. */
export interface BindableLaunch {
  chainId: number;
  creator: string;
  name: string;
  symbol: string;
  initialSupply: bigint;
  createdTransactionHash: string;
}

/**
 * What differs between `draft` and the indexed `launch` for a binding to `transactionHash`:
 * `"transaction"`, `"chain"`, `"name"`, `"symbol"` or `"initial supply"` (the first found), or
 * null when the launch is the draft's — the conditions of the binding's update.
 */
export function indexedMismatch(
  draft: DraftRow,
  launch: BindableLaunch,
  transactionHash: string,
): string | null {
  if (launch.createdTransactionHash !== transactionHash) return "transaction";
  if (launch.chainId !== draft.chainId) return "chain";
  if (launch.name !== draft.name) return "name";
  if (launch.symbol !== draft.symbol) return "symbol";
  if (launch.initialSupply !== draft.initialSupply) return "initial supply";
  return null;
}

/**
 * The canonical launch of `tokenAddress`, or null when the indexer has not stored it (the
 * indexer keeps only canonical data in `tokens`: reorged launches are removed). Source: `tokens`
 * (read only; the columns read exist in every version of the chain interface).
 */
export async function findIndexedLaunch(db: DraftDb, tokenAddress: string): Promise<BindableLaunch | null> {
  const row = await db.token.findUnique({
    where: { address: tokenAddress },
    select: {
      chainId: true,
      creator: true,
      name: true,
      symbol: true,
      initialSupply: true,
      createdTransactionHash: true,
    },
  });
  return row ? { ...row, initialSupply: decimalToBigInt(row.initialSupply) } : null;
}

/**
 * True when a binding to (`tokenAddress`, `transactionHash`) is current: the indexed canonical
 * token at that address was created by that transaction. A binding that is not current was made
 * for a launch that a reorg removed (the read join never shows it, see `TOKEN_METADATA_JOIN_SQL`).
 * Source: `tokens`.
 */
export async function isBindingCurrent(
  db: DraftDb,
  tokenAddress: string,
  transactionHash: string,
): Promise<boolean> {
  const launch = await db.token.findUnique({
    where: { address: tokenAddress },
    select: { createdTransactionHash: true },
  });
  return launch?.createdTransactionHash === transactionHash;
}

/**
 * Releases (back to `draft`) the bindings that stand in the way of binding draft `id` to the
 * launch (`tokenAddress`, `transactionHash`) and are not current (their launch was removed by a
 * reorg): another draft's claim (pending or finalized) on the token for another transaction, and
 * draft `id`'s own finalized binding to another launch. A current binding is never touched.
 */
async function releaseStaleBindings(tx: Prisma.TransactionClient, request: BindRequest): Promise<void> {
  const { id, tokenAddress, transactionHash } = request;
  const holder = await tx.metadataDraft.findUnique({
    where: { tokenAddress },
    select: { id: true, transactionHash: true },
  });
  if (
    holder?.transactionHash &&
    holder.transactionHash !== transactionHash &&
    !(await isBindingCurrent(tx, tokenAddress, holder.transactionHash))
  ) {
    await tx.metadataDraft.updateMany({
      where: { id: holder.id, tokenAddress, transactionHash: holder.transactionHash },
      data: RELEASED,
    });
  }
  const own = await findDraft(tx, id);
  if (
    own?.status === "finalized" &&
    own.tokenAddress !== null &&
    own.transactionHash !== null &&
    (own.tokenAddress !== tokenAddress || own.transactionHash !== transactionHash) &&
    !(await isBindingCurrent(tx, own.tokenAddress, own.transactionHash))
  ) {
    await tx.metadataDraft.updateMany({
      where: {
        id,
        status: "finalized",
        tokenAddress: own.tokenAddress,
        transactionHash: own.transactionHash,
      },
      data: RELEASED,
    });
  }
}

/** A binding request of {@link bindDraft}. */
export interface BindRequest {
  id: string;
  tokenAddress: string;
  transactionHash: string;
  /**
   * The address whose finalize signature was checked (lowercase), or null (unsigned). The binding
   * is `verified` only when it equals the indexed creator.
   */
  signer: string | null;
}

/**
 * Binds a draft to its indexed launch, the API and the worker racing safely. In one transaction:
 * reads the launch from `tokens`; releases bindings that are not current and stand in the way
 * (another draft's claim on the token for a launch a reorg removed, this draft's own binding to
 * such a launch); when `signer` is the launch's creator (verified), releases any
 * UNVERIFIED claim of another draft on the token (pending or finalized) except a `pending` one
 * whose `signer` is that creator (the first creator-signed claim wins: it counts as verified, and
 * the bind then fails on the token's unique key as for a verified holder); then ONE conditional
 * UPDATE (`updateMany` with the whole condition in its `where`) binds the draft only if it is
 * `draft`, `pending` for this very launch, or (verified only) `finalized` unverified to this
 * launch, and its chain, name, symbol and initial supply equal the launch's, and the launch was
 * created by `transactionHash`.
 * Returns the finalized row, or null when nothing was bound (not indexed, mismatch, or the draft
 * in another state: re-read it to tell).
 * @throws the unique violation when another draft holds the token (see {@link isTokenTaken}).
 */
export async function bindDraft(db: Db, request: BindRequest): Promise<DraftRow | null> {
  try {
    return await bindInTransaction(db, request);
  } catch (error) {
    if (error instanceof NothingBound) return null;
    throw error;
  }
}

/** Thrown inside the binding transaction to roll back the release of another draft's claim. */
class NothingBound extends Error {}

function bindInTransaction(db: Db, request: BindRequest): Promise<DraftRow | null> {
  const { id, tokenAddress, transactionHash } = request;
  return db.$transaction(async (tx) => {
    const launch = await findIndexedLaunch(tx, tokenAddress);
    if (!launch || launch.createdTransactionHash !== transactionHash) return null;
    await releaseStaleBindings(tx, request);
    const verified = request.signer !== null && request.signer === launch.creator;
    if (verified) {
      // Unverified claims of other drafts, except a pending one signed by this creator: the first
      // creator-signed claim wins, bound or not yet (its own job binds it verified).
      await tx.metadataDraft.updateMany({
        where: {
          tokenAddress,
          id: { not: id },
          verified: false,
          OR: [{ status: { not: "pending" } }, { signer: null }, { signer: { not: launch.creator } }],
        },
        data: RELEASED,
      });
    }
    const states: Prisma.MetadataDraftWhereInput[] = [
      { status: "draft" },
      { status: "pending", tokenAddress, transactionHash },
    ];
    if (verified) states.push({ status: "finalized", tokenAddress, transactionHash, verified: false });
    const updated = await tx.metadataDraft.updateMany({
      where: {
        id,
        chainId: launch.chainId,
        name: launch.name,
        symbol: launch.symbol,
        initialSupply: toPrismaDecimal(launch.initialSupply),
        OR: states,
      },
      data: {
        status: "finalized",
        tokenAddress,
        transactionHash,
        finalizedAt: new Date(),
        verified,
        signer: verified ? request.signer : null,
      },
    });
    // Nothing bound: roll back (a verified request must not release another draft's claim for nothing).
    if (updated.count === 0) throw new NothingBound();
    return findDraft(tx, id);
  });
}

/**
 * Marks a `draft` as `pending` for a launch whose receipt was seen but not yet indexed (claims
 * the token, after releasing bindings that are not current and stand in the way, as
 * {@link bindDraft} does), remembering `signer` (the receipt's creator, when the finalize was signed by it).
 * With a signer, an UNSIGNED pending claim of another draft on the token is released first; a
 * signed one (or a finalized one) is not: the first creator-signed claim wins.
 * Idempotent for the same launch. Returns the row, or null when the draft is in another state or
 * pending for another launch.
 * @throws the unique violation when another draft holds the token.
 */
export async function markPending(db: Db, request: BindRequest): Promise<DraftRow | null> {
  const { id, tokenAddress, transactionHash, signer } = request;
  const pending = db.$transaction(async (tx) => {
    await releaseStaleBindings(tx, request);
    if (signer !== null) {
      await tx.metadataDraft.updateMany({
        where: { tokenAddress, id: { not: id }, status: "pending", signer: null },
        data: RELEASED,
      });
    }
    const updated = await tx.metadataDraft.updateMany({
      where: {
        id,
        OR: [{ status: "draft" }, { status: "pending", tokenAddress, transactionHash }],
      },
      data: {
        status: "pending",
        tokenAddress,
        transactionHash,
        ...(signer !== null ? { signer } : {}),
      },
    });
    if (updated.count === 0) throw new NothingBound(); // roll back the release
    return findDraft(tx, id);
  });
  return pending.catch((error) => {
    if (error instanceof NothingBound) return null;
    throw error;
  });
}

/**
 * Releases a `pending` claim (back to `draft`, token cleared) when its launch turned out not to
 * match or never got indexed. Only touches the draft if it is still pending for that launch.
 */
export async function releasePending(
  db: DraftDb,
  id: string,
  tokenAddress: string,
  transactionHash: string,
): Promise<boolean> {
  const result = await db.metadataDraft.updateMany({
    where: { id, status: "pending", tokenAddress, transactionHash },
    data: RELEASED,
  });
  return result.count > 0;
}

/**
 * Operator unbind: puts the draft bound to (or pending for) `tokenAddress` back to `draft`, so
 * the token shows no metadata and can be bound again. Returns the released draft's id, or null
 * when no draft held the token.
 */
export async function unbindToken(db: Db, tokenAddress: string): Promise<string | null> {
  return db.$transaction(async (tx) => {
    const held = await tx.metadataDraft.findUnique({ where: { tokenAddress }, select: { id: true } });
    if (!held) return null;
    await tx.metadataDraft.updateMany({ where: { id: held.id, tokenAddress }, data: RELEASED });
    return held.id;
  });
}

/**
 * `pending` drafts, oldest first, at most `take` after id `afterId` (exclusive; pages by id):
 * what the worker's sweep checks against the queue. Source: `metadata_drafts`.
 */
export async function listPendingDrafts(
  db: DraftDb,
  options: { take: number; afterId?: string },
): Promise<DraftRow[]> {
  const rows = await db.metadataDraft.findMany({
    where: { status: "pending", ...(options.afterId ? { id: { gt: options.afterId } } : {}) },
    orderBy: { id: "asc" },
    take: options.take,
  });
  return rows.map(toDraft);
}
