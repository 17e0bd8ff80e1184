import { launchpadAbi } from "@tmi/shared/chain";
import { AppError } from "@tmi/shared/errors";
import type { Logger } from "pino";
import { decodeEventLog, type TransactionReceipt } from "viem";
import type { JobProducer } from "../jobs/job-catalog.js";
import {
  bindDraft,
  type DraftRow,
  findDraft,
  isTokenTaken,
  markPending,
  releasePending,
  type Sql,
} from "../queries/draft-queries.js";
import { findIndexedLaunch, type IndexedLaunch } from "../queries/launch-queries.js";

/** Reads transaction receipts over RPC (viem public client in production). */
export interface ReceiptReader {
  /** The receipt of `hash`, or null when the chain has none (not mined, or unknown). @throws on RPC failure. */
  getReceipt(hash: `0x${string}`): Promise<TransactionReceipt | null>;
}

/** Dependencies of {@link finalizeDraft}. */
export interface FinalizeDeps {
  sql: Sql;
  receipts: ReceiptReader;
  jobs: JobProducer;
  /** Launchpad whose `TokenCreated` events count (lowercase). */
  launchpad: `0x${string}`;
  logger: Logger;
}

/** A launch as seen in a receipt's `TokenCreated` event. */
interface ReceiptLaunch {
  name: string;
  symbol: string;
  initialSupply: bigint;
}

function draftMatches(
  draft: DraftRow,
  launch: { name: string; symbol: string; initialSupply: bigint },
): boolean {
  return (
    draft.name === launch.name &&
    draft.symbol === launch.symbol &&
    draft.initialSupply === launch.initialSupply
  );
}

function mismatch(what: string): AppError {
  return new AppError("launch_mismatch", `the launch does not match the draft: ${what}`);
}

function describeIndexedMismatch(
  draft: DraftRow,
  launch: IndexedLaunch,
  transactionHash: string,
): string | null {
  if (launch.createdTransactionHash !== transactionHash)
    return "the token was created by another transaction";
  if (launch.chainId !== draft.chainId) return "chain";
  if (launch.name !== draft.name) return "name";
  if (launch.symbol !== draft.symbol) return "symbol";
  if (launch.initialSupply !== draft.initialSupply) return "initial supply";
  return null;
}

function alreadyFinalized(message = "the draft is bound to another launch"): AppError {
  return new AppError("already_finalized", message);
}

/**
 * Finalizes draft `draftId` to the launch (`tokenAddress`, `transactionHash`) per issue 5 §3 and
 * DESIGN.md §6. Returns the finalized draft (also on an identical repeat).
 * - indexed canonical launch matching chain, token, creation transaction, name, symbol and supply: binds it;
 * - not indexed, receipt confirmed with the launchpad's matching `TokenCreated`: marks the draft
 *   `pending`, enqueues the finalize job and throws 409 `not_indexed`;
 * @throws AppError `not_found` (unknown draft), `not_confirmed` (no receipt), `launch_mismatch`
 *   (receipt or indexed launch differs), `already_finalized` (draft bound or pending to another
 *   launch, or the token held by another draft), `service_unavailable` (RPC failure).
 */
export async function finalizeDraft(
  deps: FinalizeDeps,
  draftId: string,
  tokenAddress: `0x${string}`,
  transactionHash: `0x${string}`,
): Promise<DraftRow> {
  const draft = await findDraft(deps.sql, draftId);
  if (!draft) throw new AppError("not_found", "no such draft");
  const sameLaunch = (d: DraftRow) =>
    d.tokenAddress === tokenAddress && d.transactionHash === transactionHash;
  if (draft.status === "finalized") {
    if (sameLaunch(draft)) return draft;
    throw alreadyFinalized();
  }
  if (draft.status === "pending" && !sameLaunch(draft)) {
    throw alreadyFinalized("the draft is already waiting for another launch to be indexed");
  }

  const tryBind = async (): Promise<DraftRow | null> => {
    try {
      const bound = await bindDraft(deps.sql, draftId, tokenAddress, transactionHash);
      if (bound) return bound;
    } catch (error) {
      if (isTokenTaken(error)) throw alreadyFinalized("the token is already bound to another draft");
      throw error;
    }
    const now = await findDraft(deps.sql, draftId);
    if (now?.status === "finalized") {
      if (sameLaunch(now)) return now;
      throw alreadyFinalized();
    }
    return null;
  };

  const indexed = await findIndexedLaunch(deps.sql, draft.chainId, tokenAddress);
  if (indexed) {
    const problem = describeIndexedMismatch(draft, indexed, transactionHash);
    if (problem) {
      if (draft.status === "pending") await releasePending(deps.sql, draftId, tokenAddress, transactionHash);
      throw mismatch(problem);
    }
    const bound = await tryBind();
    if (bound) return bound;
    throw alreadyFinalized("the draft changed state concurrently");
  }

  let receipt: TransactionReceipt | null;
  try {
    receipt = await deps.receipts.getReceipt(transactionHash);
  } catch (error) {
    throw new AppError("service_unavailable", "the chain RPC is unavailable", { cause: error });
  }
  if (!receipt) throw new AppError("not_confirmed", "the transaction has no receipt yet");
  if (receipt.status !== "success") throw mismatch("the transaction reverted");
  const launch = launchInReceipt(receipt, deps.launchpad, tokenAddress);
  if (!launch) throw mismatch("the transaction did not create this token on the launchpad");
  if (!draftMatches(draft, launch)) {
    const what =
      launch.name !== draft.name ? "name" : launch.symbol !== draft.symbol ? "symbol" : "initial supply";
    throw mismatch(what);
  }

  let pending: DraftRow | null;
  try {
    pending = await markPending(deps.sql, draftId, tokenAddress, transactionHash);
  } catch (error) {
    if (isTokenTaken(error)) throw alreadyFinalized("the token is already bound to another draft");
    throw error;
  }
  if (!pending) {
    const now = await findDraft(deps.sql, draftId);
    if (now?.status === "finalized" && sameLaunch(now)) return now;
    throw alreadyFinalized();
  }
  try {
    await deps.jobs.enqueueFinalize({
      draft_id: draftId,
      chain_id: draft.chainId,
      token_address: tokenAddress,
      transaction_hash: transactionHash,
    });
  } catch (error) {
    // The draft stays `pending` for this launch: a repeat finalize enqueues again.
    throw new AppError("service_unavailable", "the job queue is unavailable; try again later", {
      cause: error,
    });
  }
  deps.logger.info(
    { draft_id: draftId, token_address: tokenAddress, action: "finalize_pending" },
    "launch not indexed yet; job enqueued",
  );
  // The indexer may have caught up while the receipt was read.
  const bound = await tryBind();
  if (bound) return bound;
  throw new AppError(
    "not_indexed",
    "the launch is confirmed but not indexed yet; it will be bound when it is",
  );
}

/**
 * The `TokenCreated` event for `tokenAddress` emitted by `launchpad` in `receipt`, decoded with
 * `launchpadAbi`; null when there is none.
 */
export function launchInReceipt(
  receipt: TransactionReceipt,
  launchpad: string,
  tokenAddress: string,
): ReceiptLaunch | null {
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== launchpad) continue;
    try {
      const event = decodeEventLog({ abi: launchpadAbi, data: log.data, topics: log.topics, strict: true });
      if (event.eventName !== "TokenCreated") continue;
      if (event.args.token.toLowerCase() !== tokenAddress) continue;
      return { name: event.args.name, symbol: event.args.symbol, initialSupply: event.args.initialSupply };
    } catch {
      // not a launchpad event we know
    }
  }
  return null;
}
