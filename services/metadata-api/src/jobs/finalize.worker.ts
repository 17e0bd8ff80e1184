import type { Db } from "@tmi/db";
import type { Job } from "bullmq";
import type { Logger } from "pino";
import {
  bindDraft,
  type DraftRow,
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
 * indexed launch does not match (other creation transaction, chain, name, symbol or supply: the
 * `launch_mismatch` of the API, named in the log's `mismatch`), releases the draft's `pending`
 * claim instead. Nothing bound although the indexed launch matches (the indexer committed it after
 * the bind read `tokens`, or the draft changed state meanwhile) is transient: bound again, else
 * retried, never released.
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
    /** Why nothing was bound, from the draft as it is now: an outcome, or null while it waits for this launch. */
    const settled = (draft: DraftRow | null): FinalizeOutcome | null => {
      if (!draft) return "stale";
      if (draft.status === "finalized")
        return draft.tokenAddress === token ? "finalized" : "already_finalized";
      if (draft.status !== "pending" || draft.tokenAddress !== token || draft.transactionHash !== tx)
        return "stale";
      return null;
    };
    const bound = await bind();
    if (bound) return bound;
    const draft = await findDraft(deps.db, id);
    const outcome = settled(draft);
    if (outcome || !draft) return outcome ?? "stale";
    // Read after the bind: the indexer may have committed the launch since the bind read `tokens`.
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
      // The launch matches: releasing here lost a signed finalize (the bind's transaction had read
      // `tokens` before the indexer committed the launch). Bind again; still nothing → retried.
      const again = await bind();
      if (again) return again;
      const now = settled(await findDraft(deps.db, id));
      if (now) return now;
      log.info({ token_address: token }, "indexed launch matches but nothing was bound; retried");
      throw new NotIndexedYetError();
    }
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      await releasePending(deps.db, id, token, tx);
      log.warn({ token_address: token }, "launch never indexed; claim released");
      return "expired";
    }
    throw new NotIndexedYetError();
  };
}
