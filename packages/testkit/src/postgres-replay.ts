// Owner: scale. WAL replay control of the standbys made by `startStandby` (`postgres-cluster.ts`).
import { onServer, type PostgresCluster } from "./postgres-cluster.js";

/** Pauses WAL replay on `standby` (`pg_wal_replay_pause()`): it keeps answering, with data that ages. */
export async function pauseReplay(standby: PostgresCluster): Promise<void> {
  await onServer(standby, "SELECT pg_wal_replay_pause()");
}

/** Resumes WAL replay on `standby` (`pg_wal_replay_resume()`). */
export async function resumeReplay(standby: PostgresCluster): Promise<void> {
  await onServer(standby, "SELECT pg_wal_replay_resume()");
}

/**
 * Resolves once `standby` has replayed everything `primary` had written when called
 * (`pg_current_wal_insert_lsn()` on the primary ≤ `pg_last_wal_replay_lsn()` on the standby).
 * @throws after `timeoutMs` (default 30 s).
 */
export async function waitForReplay(
  primary: PostgresCluster,
  standby: PostgresCluster,
  timeoutMs = 30_000,
): Promise<void> {
  const { lsn } = await onServer<{ lsn: string }>(primary, "SELECT pg_current_wal_insert_lsn()::text AS lsn");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { caught } = await onServer<{ caught: boolean }>(
      standby,
      `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS caught`,
    );
    if (caught) return;
    if (Date.now() > deadline) throw new Error(`standby on ${standby.port} did not replay up to ${lsn}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
