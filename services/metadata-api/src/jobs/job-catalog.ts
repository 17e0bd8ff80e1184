import { type JobsOptions, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";

const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`));

/**
 * The one job catalog of metadata-api: queue name → zod payload schema,
 * attempts and backoff. Producers enqueue through {@link createJobProducer}; the worker
 * validates payloads with the same schemas.
 *
 * `metadata-finalize`: bind a draft whose launch receipt was confirmed but not yet indexed.
 * 12 attempts, exponential backoff from 1 s: retries at 1, 2, 4 … 1024 s after each failure,
 * about 34 minutes in all (well past the frontend's two-minute window).
 */
export const jobCatalog = {
  "metadata-finalize": {
    payload: z.object({
      draft_id: z.uuid(),
      chain_id: z.number().int().positive(),
      token_address: hex(20),
      transaction_hash: hex(32),
    }),
    attempts: 12,
    backoff: { type: "exponential" as const, delay: 1000 },
  },
} as const;

export type QueueName = keyof typeof jobCatalog;
export type JobPayload<Q extends QueueName> = z.output<(typeof jobCatalog)[Q]["payload"]>;

/** BullMQ job options of queue `name` from the catalog, with `jobId` for idempotent enqueueing. */
export function jobOptions(
  name: QueueName,
  jobId: string,
  overrides: Partial<JobsOptions> = {},
): JobsOptions {
  const entry = jobCatalog[name];
  return {
    jobId,
    attempts: entry.attempts,
    backoff: entry.backoff,
    // Removed once done or failed, so that a later finalize can enqueue the same id again.
    removeOnComplete: true,
    removeOnFail: true,
    ...overrides,
  };
}

/** Typed enqueue helpers over the catalog's queues. */
export interface JobProducer {
  /**
   * Enqueues the finalize job of a draft; `jobId` = draft id, so repeats while one is waiting
   * do not pile up. Returns the job id.
   */
  enqueueFinalize(payload: JobPayload<"metadata-finalize">): Promise<string>;
  /**
   * State of the finalize job of draft `draftId` (`waiting`, `active`, `delayed`, `prioritized`,
   * `waiting-children`, `completed`, `failed`), or null when Redis has no such job.
   */
  finalizeJobState(draftId: string): Promise<string | null>;
  /**
   * Runs the finalize job of draft `draftId` now when it waits out a back-off (`delayed`): BullMQ
   * `promote`. True when it was promoted; false when Redis has no such job or it is in another
   * state (it runs anyway, or has ended).
   */
  promoteFinalize(draftId: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Creates the producer side of the job catalog on `connection` (ioredis) with BullMQ `prefix`
 * (QUEUE_PREFIX). `backoffDelayMs` overrides the catalog's first backoff delay (tests).
 */
export function createJobProducer(
  connection: Redis,
  prefix: string,
  options: { backoffDelayMs?: number } = {},
): JobProducer {
  const finalizeQueue = new Queue("metadata-finalize", { connection, prefix });
  return {
    async enqueueFinalize(payload) {
      const data = jobCatalog["metadata-finalize"].payload.parse(payload);
      const overrides: Partial<JobsOptions> = options.backoffDelayMs
        ? { backoff: { type: "exponential", delay: options.backoffDelayMs } }
        : {};
      const job = await finalizeQueue.add(
        "finalize",
        data,
        jobOptions("metadata-finalize", data.draft_id, overrides),
      );
      return job.id ?? data.draft_id;
    },
    async finalizeJobState(draftId) {
      const job = await finalizeQueue.getJob(draftId);
      if (!job) return null;
      const state = await job.getState();
      return state === "unknown" ? null : state;
    },
    async promoteFinalize(draftId) {
      const job = await finalizeQueue.getJob(draftId);
      if (!job || (await job.getState()) !== "delayed") return false;
      try {
        await job.promote();
        return true;
      } catch {
        return false; // it left `delayed` between the two reads: it runs or has ended
      }
    },
    close: () => finalizeQueue.close(),
  };
}
