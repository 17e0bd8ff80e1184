import { AppError } from "@tmi/shared/errors";
import type pg from "pg";
import type { SqlReader } from "../db.js";

/**
 * PostgreSQL errors that mean "the database is not there right now" (not a bad query): connection
 * refused/reset/timed out, the server shutting down or starting, too many connections.
 */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
]);
const UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error",
];

/** True when `error` says the database cannot be reached (as opposed to a failed statement). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Seconds a client is told to wait (`Retry-After`) when the read database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/** The 503 `service_unavailable` answered while the read database cannot be reached. */
export function readDatabaseUnavailable(cause: unknown): AppError {
  return new AppError("service_unavailable", "the database is unavailable; retry shortly", {
    cause,
    headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_S) },
  });
}

/** Lag of the read database behind the primary, as `/api/v1/status` reports it. */
export interface ReadDatabaseLag {
  /** True when query-api reads from a replica (`DATABASE_READ_URL` set and not the primary). */
  replica: boolean;
  /**
   * Seconds the replica's data is behind the primary: 0 when it has replayed everything the
   * primary had written when measured; else now − the commit time of the last transaction it
   * replayed (`pg_last_xact_replay_timestamp()`). Null when it cannot be measured
   * (a database unreachable).
   */
  lag_seconds: number | null;
  /** Primary's indexed block − the replica's (both from `indexer_checkpoints`, ≥ 0). */
  lag_blocks: number | null;
  /** Last block whose data the read database shows (`indexer_checkpoints.block_number` there). */
  indexed_block: number | null;
  /** True while WAL replay is paused on the replica (`pg_is_wal_replay_paused()`). */
  replay_paused: boolean;
}

/** Settings of {@link createReadDatabase}. */
export interface ReadDatabaseOptions {
  /** Pool on the read database (the replica, or the primary when there is none). */
  readPool: pg.Pool;
  /**
   * Pool on the primary (read-only, small, connecting only when used), or null when the read
   * database is the primary. Used to measure lag and, with `fallbackToPrimary`, to serve reads
   * while the replica is unreachable.
   */
  primaryPool: pg.Pool | null;
  /** Serve reads from the primary while the replica is unreachable (`READ_FALLBACK_TO_PRIMARY`). */
  fallbackToPrimary: boolean;
  /** How long a measured lag is reused (ms) [500]. */
  lagTtlMs?: number;
}

/**
 * The read side of query-api: the `SqlReader` every route reads through (connection failures become
 * 503 `service_unavailable` with `Retry-After`, or go to the primary when `fallbackToPrimary`),
 * the read database's indexed block (for read-your-writes) and its lag behind the primary.
 */
export interface ReadDatabase {
  /** What routes query; see {@link ReadDatabase}. */
  db: SqlReader;
  /** Block up to which the read database shows data (`indexer_checkpoints`), cached ≤ `maxAgeMs` [50]. */
  indexedBlock(maxAgeMs?: number): Promise<bigint | null>;
  /**
   * Resolves true once the read database shows `block` (polling {@link indexedBlock} every 25 ms),
   * false after `timeoutMs`.
   */
  waitForBlock(block: bigint, timeoutMs: number): Promise<boolean>;
  /** The lag behind the primary (measured at most every `lagTtlMs`); never throws. */
  lag(): Promise<ReadDatabaseLag>;
}

interface ReplicaRow {
  block_number: string | null;
  replay_lsn: string | null;
  replay_at: number | null;
  paused: boolean;
}

/** Creates the {@link ReadDatabase} over the given pools. */
export function createReadDatabase(options: ReadDatabaseOptions): ReadDatabase {
  const { readPool, primaryPool } = options;
  const lagTtl = options.lagTtlMs ?? 500;
  /** While the replica is down (fallback on), reads go straight to the primary until this time. */
  let replicaDownUntil = 0;

  const query = ((text: unknown, values?: unknown) => {
    if (primaryPool && options.fallbackToPrimary && performance.now() < replicaDownUntil) {
      return (primaryPool.query as (t: unknown, v?: unknown) => Promise<pg.QueryResult>)(text, values).catch(
        (error: unknown) => {
          throw isDatabaseUnavailable(error) ? readDatabaseUnavailable(error) : error;
        },
      );
    }
    return (readPool.query as (t: unknown, v?: unknown) => Promise<pg.QueryResult>)(text, values).catch(
      (error: unknown) => {
        if (!isDatabaseUnavailable(error)) throw error;
        if (primaryPool && options.fallbackToPrimary) {
          // Try the replica again in a second; meanwhile every read costs the primary, not a failed connect.
          replicaDownUntil = performance.now() + 1000;
          return (primaryPool.query as (t: unknown, v?: unknown) => Promise<pg.QueryResult>)(
            text,
            values,
          ).catch((fallbackError: unknown) => {
            throw isDatabaseUnavailable(fallbackError)
              ? readDatabaseUnavailable(fallbackError)
              : fallbackError;
          });
        }
        throw readDatabaseUnavailable(error);
      },
    );
  }) as SqlReader["query"];
  const db: SqlReader = { query };

  let block: bigint | null = null;
  let blockAt = Number.NEGATIVE_INFINITY;
  let blockInflight: Promise<bigint | null> | undefined;
  const indexedBlock = (maxAgeMs = 50): Promise<bigint | null> => {
    if (performance.now() - blockAt <= maxAgeMs) return Promise.resolve(block);
    blockInflight ??= (async () => {
      const started = performance.now();
      try {
        const { rows } = await db.query<{ block_number: string }>(
          "SELECT block_number::text FROM indexer_checkpoints ORDER BY chain_id LIMIT 1",
        );
        block = rows[0] ? BigInt(rows[0].block_number) : null;
        blockAt = started;
        return block;
      } finally {
        blockInflight = undefined;
      }
    })();
    return blockInflight;
  };

  let lagValue: ReadDatabaseLag | undefined;
  let lagAt = Number.NEGATIVE_INFINITY;
  let lagInflight: Promise<ReadDatabaseLag> | undefined;
  const measure = async (): Promise<ReadDatabaseLag> => {
    if (!primaryPool) {
      const indexed = await indexedBlock(0).catch(() => null);
      return {
        replica: false,
        lag_seconds: 0,
        lag_blocks: 0,
        indexed_block: indexed === null ? null : Number(indexed),
        replay_paused: false,
      };
    }
    // The primary first: whatever it had written then, the replica must have replayed to be current.
    const primary = await primaryPool
      .query<{ lsn: string; block_number: string | null }>(
        `SELECT pg_current_wal_insert_lsn()::text AS lsn,
                (SELECT block_number::text FROM indexer_checkpoints ORDER BY chain_id LIMIT 1) AS block_number`,
      )
      .then((r) => r.rows[0])
      .catch(() => undefined);
    // Behind the primary's last write: lag = time since the last replayed commit. When that commit
    // is old (the primary was idle, then wrote), WAL in flight for a few ms would read as a long
    // lag: look again (up to ~100 ms) before calling it behind.
    let replica: (ReplicaRow & { caught_up: boolean | null }) | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 30));
      replica = await readPool
        .query<ReplicaRow & { caught_up: boolean | null }>(
          `SELECT (SELECT block_number::text FROM indexer_checkpoints ORDER BY chain_id LIMIT 1) AS block_number,
                  pg_last_wal_replay_lsn()::text AS replay_lsn,
                  extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS replay_at,
                  CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END AS paused,
                  CASE WHEN $1::text IS NULL THEN NULL
                       WHEN NOT pg_is_in_recovery() THEN true
                       ELSE pg_last_wal_replay_lsn() >= $1::pg_lsn END AS caught_up`,
          [primary?.lsn ?? null],
        )
        .then((r) => r.rows[0])
        .catch(() => undefined);
      if (replica?.caught_up !== false || (replica.replay_at ?? 0) < 1) break;
    }
    const replicaBlock = replica?.block_number ? Number(replica.block_number) : null;
    const primaryBlock = primary?.block_number ? Number(primary.block_number) : null;
    let lagSeconds: number | null = null;
    if (replica && primary) {
      if (replica.caught_up) lagSeconds = 0;
      else lagSeconds = Math.max(0, Math.round((replica.replay_at ?? 0) * 1000) / 1000);
    }
    return {
      replica: true,
      lag_seconds: lagSeconds,
      lag_blocks:
        replicaBlock !== null && primaryBlock !== null ? Math.max(0, primaryBlock - replicaBlock) : null,
      indexed_block: replicaBlock,
      replay_paused: replica?.paused ?? false,
    };
  };

  return {
    db,
    indexedBlock,
    async waitForBlock(target, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const current = await indexedBlock(0).catch(() => null);
        if (current !== null && current >= target) return true;
        if (performance.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    lag() {
      if (lagValue && performance.now() - lagAt <= lagTtl) return Promise.resolve(lagValue);
      lagInflight ??= measure().then(
        (value) => {
          lagValue = value;
          lagAt = performance.now();
          lagInflight = undefined;
          return value;
        },
        (error: unknown) => {
          lagInflight = undefined;
          throw error;
        },
      );
      return lagInflight;
    },
  };
}
