import type { Db } from "@tmi/db";
import { zonkFactoryV3Abi } from "@tmi/shared/chain";
import { AppError } from "@tmi/shared/errors";
import type { Logger } from "pino";
import { decodeEventLog, type Hex, type TransactionReceipt } from "viem";
import {
  bindDraft,
  type DraftRow,
  findDraft,
  findIndexedLaunch,
  indexedMismatch,
  isBindingCurrent,
  isTokenTaken,
  markPending,
  releasePending,
} from "../drafts/draft-queries.js";
import type { JobProducer } from "../jobs/job-catalog.js";
import { type ChainSignatureVerifier, type FinalizeClaim, isSignedBy } from "./finalize-signature.js";

/** Reads launch facts over RPC (viem public client in production). */
export interface ReceiptReader {
  /** The receipt of `hash`, or null when the chain has none (not mined, or unknown). @throws on RPC failure. */
  getReceipt(hash: `0x${string}`): Promise<TransactionReceipt | null>;
  /**
   * The token's ERC-20 `name()` and `symbol()` at the latest block (they never change after
   * deployment), or null when they cannot be read. The V3 launch event does not carry them.
   */
  getTokenNames?(token: `0x${string}`): Promise<{ name: string; symbol: string } | null>;
  /**
   * Verifies a smart-contract wallet's signature on the chain (ERC-1271 / ERC-6492; viem public
   * `verifyMessage`). Without it only EOA signatures verify.
   */
  verifyMessage?: ChainSignatureVerifier;
}

/** Dependencies of {@link finalizeDraft}. */
export interface FinalizeDeps {
  db: Db;
  receipts: ReceiptReader;
  jobs: JobProducer;
  /** Contract whose launch events count (lowercase): the zonk.fun V3 factory (`TokenLaunchedV3`). */
  factory: `0x${string}`;
  logger: Logger;
}

/** A finalize request: the draft, the launch, and optionally the creator's signature. */
export interface FinalizeRequest {
  draftId: string;
  tokenAddress: `0x${string}`;
  transactionHash: `0x${string}`;
  /**
   * Signature of the finalize message by the token's creator (see `finalize-signature.ts`): EIP-191
   * by an EOA, ERC-1271 by a deployed wallet, ERC-6492 by a wallet not deployed yet.
   */
  signature?: Hex;
}

/**
 * A launch as seen in a receipt: the V3 factory's `TokenLaunchedV3` (supply and creator; name and
 * symbol are not in the event, so they are null here and checked against the `tokens` table at binding).
 */
export interface ReceiptLaunch {
  creator: `0x${string}`;
  name: string | null;
  symbol: string | null;
  initialSupply: bigint;
}

function mismatch(what: string): AppError {
  return new AppError("launch_mismatch", `the launch does not match the draft: ${what}`, {
    details: [{ field: what === "transaction" ? "transaction_hash" : "token_address", reason: what }],
  });
}

function receiptMismatch(draft: DraftRow, launch: ReceiptLaunch): string | null {
  if (launch.name !== null && launch.name !== draft.name) return "name";
  if (launch.symbol !== null && launch.symbol !== draft.symbol) return "symbol";
  if (launch.initialSupply !== draft.initialSupply) return "initial supply";
  return null;
}

function alreadyFinalized(message = "the draft is bound to another launch"): AppError {
  return new AppError("already_finalized", message);
}

function notIndexed(field: "transaction_hash" | "token_address", reason: string): AppError {
  return new AppError("not_indexed", `the launch is not indexed yet: ${reason}`, {
    details: [{ field, reason }],
  });
}

function invalidSignature(): AppError {
  return new AppError(
    "invalid_signature",
    "the signature is not the token creator's signature of this finalize",
    {
      details: [
        {
          field: "signature",
          reason: "not signed by the token's creator for this chain, draft, token and transaction",
        },
      ],
    },
  );
}

/**
 * Finalizes a draft to a launch (`POST /api/v1/token-metadata/{draft}/finalize`). Returns the
 * finalized draft (also on an identical repeat).
 * - indexed canonical launch matching chain, token, creation transaction, name, symbol and
 *   supply: binds it; unsigned → `verified: false`; signed by the indexed creator →
 *   `verified: true`, replacing an unverified binding of another draft (or upgrading this one),
 *   but not another draft's `pending` claim signed by the same creator (the first creator-signed
 *   claim wins: `already_finalized`, as for a verified binding);
 * - not indexed, receipt confirmed with the launch event for the token: marks the draft
 *   `pending`, enqueues the finalize job and throws 409 `not_indexed`;
 * @throws AppError `not_found` (unknown draft), `not_indexed` (no receipt yet, or not indexed
 *   yet; `details` says which), `launch_mismatch` (receipt or indexed launch differs),
 *   `invalid_signature` (a signature that is not the creator's for exactly this claim),
 *   `already_finalized` (draft bound or pending to another launch, or the token held by another
 *   draft that this request may not replace), `service_unavailable` (RPC or queue failure).
 */
export async function finalizeDraft(deps: FinalizeDeps, request: FinalizeRequest): Promise<DraftRow> {
  const { draftId, tokenAddress, transactionHash, signature } = request;
  const draft = await findDraft(deps.db, draftId);
  if (!draft) throw new AppError("not_found", "no such draft");
  const claim: FinalizeClaim = { chainId: draft.chainId, draftId, tokenAddress, transactionHash };
  const sameLaunch = (d: DraftRow) =>
    d.tokenAddress === tokenAddress && d.transactionHash === transactionHash;
  // A binding whose launch a reorg removed is not current: it shows nowhere, and the draft may be
  // finalized again (the binding is released when the new one is made).
  const current =
    draft.status === "finalized" &&
    (await isBindingCurrent(deps.db, draft.tokenAddress ?? "", draft.transactionHash ?? ""));
  if (current) {
    if (!sameLaunch(draft)) throw alreadyFinalized();
    if (signature === undefined || draft.verified) return draft;
    // A signed repeat of an unverified binding: verified below.
  }
  if (draft.status === "pending" && !sameLaunch(draft)) {
    throw alreadyFinalized("the draft is already waiting for another launch to be indexed");
  }

  const tryBind = async (signer: string | null): Promise<DraftRow | null> => {
    try {
      const bound = await bindDraft(deps.db, { id: draftId, tokenAddress, transactionHash, signer });
      if (bound) return bound;
    } catch (error) {
      if (isTokenTaken(error)) throw alreadyFinalized("the token is already bound to another draft");
      throw error;
    }
    const now = await findDraft(deps.db, draftId);
    if (now?.status === "finalized") {
      if (sameLaunch(now) && (signer === null || now.verified)) return now;
      throw alreadyFinalized();
    }
    return null;
  };

  const indexed = await findIndexedLaunch(deps.db, tokenAddress);
  if (indexed) {
    const problem = indexedMismatch(draft, indexed, transactionHash);
    if (problem) {
      if (draft.status === "pending") await releasePending(deps.db, draftId, tokenAddress, transactionHash);
      throw mismatch(problem);
    }
    let signer: string | null = draft.status === "pending" ? draft.signer : null;
    if (signature !== undefined) {
      if (
        !(await isSignedBy(claim, signature, indexed.creator as `0x${string}`, deps.receipts.verifyMessage))
      )
        throw invalidSignature();
      signer = indexed.creator;
    }
    const bound = await tryBind(signer);
    if (bound) return bound;
    throw alreadyFinalized("the draft changed state concurrently");
  }

  let receipt: TransactionReceipt | null;
  try {
    receipt = await deps.receipts.getReceipt(transactionHash);
  } catch (error) {
    throw new AppError("service_unavailable", "the chain RPC is unavailable", { cause: error });
  }
  if (!receipt) throw notIndexed("transaction_hash", "receipt not yet visible");
  if (receipt.status !== "success") throw mismatch("transaction");
  const launch = launchInReceipt(receipt, deps.factory, tokenAddress);
  if (!launch) throw mismatch("transaction");
  if (launch.name === null && deps.receipts.getTokenNames) {
    const names = await deps.receipts.getTokenNames(tokenAddress).catch(() => null);
    if (names) Object.assign(launch, names);
  }
  const problem = receiptMismatch(draft, launch);
  if (problem) throw mismatch(problem);
  let signer: string | null = null;
  if (signature !== undefined) {
    if (!(await isSignedBy(claim, signature, launch.creator, deps.receipts.verifyMessage)))
      throw invalidSignature();
    signer = launch.creator.toLowerCase();
  }

  let pending: DraftRow | null;
  try {
    pending = await markPending(deps.db, { id: draftId, tokenAddress, transactionHash, signer });
  } catch (error) {
    if (isTokenTaken(error)) throw alreadyFinalized("the token is already bound to another draft");
    throw error;
  }
  if (!pending) {
    const now = await findDraft(deps.db, draftId);
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
    // The draft stays `pending` for this launch: a repeat finalize (or the worker's sweep) enqueues again.
    throw new AppError("service_unavailable", "the job queue is unavailable; try again later", {
      cause: error,
    });
  }
  deps.logger.info(
    { draft_id: draftId, token_address: tokenAddress, action: "finalize_pending" },
    "launch not indexed yet; job enqueued",
  );
  // The indexer may have caught up while the receipt was read.
  const bound = await tryBind(pending.signer);
  if (bound) return bound;
  throw notIndexed("token_address", "launch confirmed but not yet indexed");
}

/**
 * The launch event for `tokenAddress` emitted by `factory` in `receipt` (the V3 factory's
 * `TokenLaunchedV3`); null when there is none.
 */
export function launchInReceipt(
  receipt: TransactionReceipt,
  factory: string,
  tokenAddress: string,
): ReceiptLaunch | null {
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== factory) continue;
    try {
      const event = decodeEventLog({
        abi: zonkFactoryV3Abi,
        data: log.data,
        topics: log.topics,
        strict: true,
      });
      if (event.args.token.toLowerCase() === tokenAddress) {
        return {
          creator: event.args.creator.toLowerCase() as `0x${string}`,
          name: null,
          symbol: null,
          initialSupply: event.args.totalSupply,
        };
      }
    } catch {
      // not a V3 launch event
    }
  }
  return null;
}
