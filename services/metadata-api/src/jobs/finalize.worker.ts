import type { Db } from "@tmi/db";
import type { Job } from "bullmq";
import type { Logger } from "pino";
import {
  bindDraft,
  findDraft,
  findIndexedLaunch,
  indexedMismatch,
  isTokenTaken,
  releasePending,
} from "../drafts/draft-queries.js";
import { jobCatalog } from "./job-catalog.js";

/** Outcome of one finalize job run (the job's return value). */
export type FinalizeOutcome =
  | "finalized"
  | "already_finalized"
  | "stale"
  | "mismatch"
  | "expired"
  | "token_taken";

/** Thrown to make BullMQ retry (with the catalog's backoff) while the launch is not indexed. */
export class NotIndexedYetError extends Error {
  constructor() {
    super("launch not indexed yet");
    this.name = "NotIndexedYetError";
  }
}

/**
 * The processor of queue `metadata-finalize`: binds the draft with the same single conditional
 * UPDATE as the API (so the two racing cannot double-bind) once the indexer has the launch.
 * Not indexed yet → throws {@link NotIndexedYetError} (retried); on the last attempt, or when the
 * indexed launch does not match (name, symbol, supply, chain or transaction), releases the draft's
 * `pending` claim instead. A matching launch indexed between the bind and the check is bound.
 */
export function createFinalizeProcessor(deps: { db: Db; logger: Logger }) {
  return async function processFinalize(job: Job): Promise<FinalizeOutcome> {
    const payload = jobCatalog["metadata-finalize"].payload.parse(job.data);
    const log = deps.logger.child({
      action: "finalize_draft",
      draft_id: payload.draft_id,
      job_id: job.id,
      attempt: job.attemptsMade + 1,
    });
    const { draft_id: id, token_address: token, transaction_hash: tx } = payload;
    const current = await findDraft(deps.db, id);
    // A pending draft remembers the creator whose signature came with the finalize.
    const signer = current?.status === "pending" ? current.signer : null;
    /** One conditional bind: "finalized", "token_taken" (claim released), or null when nothing was bound. */
    const bind = async (): Promise<FinalizeOutcome | null> => {
      try {
        if (await bindDraft(deps.db, { id, tokenAddress: token, transactionHash: tx, signer })) {
          log.info({ token_address: token }, "draft finalized");
          return "finalized";
        }
      } catch (error) {
        if (!isTokenTaken(error)) throw error;
        await releasePending(deps.db, id, token, tx);
        log.warn({ token_address: token }, "token already bound to another draft");
        return "token_taken";
      }
      return null;
    };
    const bound = await bind();
    if (bound) return bound;
    const draft = await findDraft(deps.db, id);
    if (!draft) return "stale";
    if (draft.status === "finalized") return draft.tokenAddress === token ? "finalized" : "already_finalized";
    if (draft.status !== "pending" || draft.tokenAddress !== token || draft.transactionHash !== tx)
      return "stale";
    const launch = await findIndexedLaunch(deps.db, token);
    if (launch) {
      const problem = indexedMismatch(draft, launch, tx);
      if (problem !== null) {
        await releasePending(deps.db, id, token, tx);
        log.warn(
          { token_address: token, mismatch: problem },
          "indexed launch does not match the draft; claim released",
        );
        return "mismatch";
      }
      // The launch matches: it was indexed after the bind read `tokens` (the indexer committed in
      // between), so bind again. Releasing here lost a signed finalize (a CI run, 28 Nov).
      const again = await bind();
      if (again) return again;
    }
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      await releasePending(deps.db, id, token, tx);
      log.warn({ token_address: token }, "launch never indexed; claim released");
      return "expired";
    }
    throw new NotIndexedYetError();
  };
}
