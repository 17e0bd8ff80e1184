import type { Db } from "@tmi/db";
import type { Logger } from "pino";
import { isBindingCurrent, listPendingDrafts } from "../drafts/draft-queries.js";
import type { JobProducer } from "./job-catalog.js";

/** Job states in which the finalize job will still run (nothing to do for its draft). */
const LIVE_STATES = new Set(["waiting", "active", "delayed", "prioritized", "waiting-children"]);

/** What one sweep found. */
export interface SweepResult {
  /** `pending` drafts looked at. */
  checked: number;
  /** Drafts whose job was gone (or finished while the draft stayed pending), enqueued again. */
  requeued: string[];
  /** Drafts whose launch is indexed now while their job waited out a back-off: the job runs now. */
  promoted: string[];
}

/**
 * The worker's sweep of `pending` drafts (no draft stays pending forever): every pending draft
 * whose finalize job Redis no longer holds (lost with a Redis without persistence, a flush, a
 * failover) is enqueued again with the catalog's attempts; that job binds it once the launch is
 * indexed, or releases the claim (back to `draft`) when the launch does not match or is still not
 * indexed after its last attempt. A pending draft whose launch is indexed now while its job waits
 * out a back-off (`delayed`: the doubling steps reach minutes) has its job run now, so a draft binds
 * at most one sweep interval after its launch is indexed. Pages through `metadata_drafts` by id, `batch` rows at a time.
 * Source: `metadata_drafts` (Prisma) and the BullMQ queue `metadata-finalize`.
 */
export function createPendingSweep(deps: { db: Db; jobs: JobProducer; logger: Logger; batch?: number }) {
  const batch = deps.batch ?? 500;
  return async function sweepPendingDrafts(): Promise<SweepResult> {
    const result: SweepResult = { checked: 0, requeued: [], promoted: [] };
    let afterId: string | undefined;
    for (;;) {
      const drafts = await listPendingDrafts(deps.db, { take: batch, ...(afterId ? { afterId } : {}) });
      for (const draft of drafts) {
        result.checked += 1;
        if (!draft.tokenAddress || !draft.transactionHash) continue;
        const state = await deps.jobs.finalizeJobState(draft.id);
        if (state === "delayed") {
          if (
            (await isBindingCurrent(deps.db, draft.tokenAddress, draft.transactionHash)) &&
            (await deps.jobs.promoteFinalize(draft.id))
          )
            result.promoted.push(draft.id);
          continue;
        }
        if (state !== null && LIVE_STATES.has(state)) continue;
        await deps.jobs.enqueueFinalize({
          draft_id: draft.id,
          chain_id: draft.chainId,
          token_address: draft.tokenAddress,
          transaction_hash: draft.transactionHash,
        });
        result.requeued.push(draft.id);
        deps.logger.warn(
          {
            action: "sweep_pending",
            draft_id: draft.id,
            token_address: draft.tokenAddress,
            job_state: state,
          },
          "pending draft had no finalize job; re-queued",
        );
      }
      if (drafts.length < batch) break;
      afterId = drafts[drafts.length - 1]!.id;
    }
    return result;
  };
}
