import { z } from "zod";
import { type RoutesPlugin, typedRoutes } from "../common/route-helpers.js";
import type { SqlReader } from "../db.js";
import type { ReadDatabaseLag } from "../read-database/read-database.js";
import type { RouteContext } from "../route-context.js";

/** Dependencies of {@link statusRoutes}. */
export interface StatusRoutesDeps extends Pick<RouteContext, "db" | "readDatabase"> {
  /** Chain id reported before the indexer has committed anything (otherwise the checkpoint's). */
  chainId?: number;
  /** Clock in Unix seconds (tests). */
  now?: () => number;
}

/** `GET /api/v1/status` body. */
export const statusSchema = z.object({
  chain_id: z
    .number()
    .int()
    .nullable()
    .describe("chain indexed (null before the first checkpoint when not configured)"),
  head_block: z
    .number()
    .int()
    .nullable()
    .describe(
      "latest chain head the indexer has seen; while head_stale, the indexer's estimate of the head now (last head + elapsed time / average block interval)",
    ),
  head_seen_at: z
    .number()
    .int()
    .nullable()
    .describe("when the indexer last read the chain head from its node (Unix seconds, wall clock)"),
  head_stale: z
    .boolean()
    .describe(
      "true when head_seen_at is older than the indexer's HEAD_STALE_MS: its node hangs or is unreachable, or the indexer is down",
    ),
  indexed_block: z.number().int().nullable().describe("last block whose data is committed and served"),
  lag_blocks: z.number().int().nullable().describe("head_block − indexed_block (≥ 0)"),
  lag_seconds: z
    .number()
    .int()
    .nullable()
    .describe(
      "0 when lag_blocks is 0 and the head is fresh, else now − indexed_at; while head_stale at least now − head_seen_at",
    ),
  indexed_at: z.number().int().nullable().describe("timestamp (Unix seconds) of indexed_block"),
  last_reorg: z
    .object({
      at: z.number().int().describe("when the indexer rolled back (Unix seconds, wall clock)"),
      from_block: z.number().int(),
      to_block: z.number().int(),
      depth: z.number().int().describe("number of blocks rolled back"),
    })
    .nullable(),
  read_database: z
    .object({
      replica: z.boolean().describe("true when query-api reads from a streaming replica"),
      lag_seconds: z
        .number()
        .nullable()
        .describe(
          "seconds the read database is behind the primary (0 when caught up; null when it cannot be measured)",
        ),
      lag_blocks: z
        .number()
        .int()
        .nullable()
        .describe("indexed blocks the read database is behind the primary"),
      indexed_block: z.number().int().nullable().describe("last indexed block the read database shows"),
      replay_paused: z.boolean().describe("WAL replay paused on the replica"),
    })
    .describe(
      "the database this replica reads from, against the primary (the fields above are read from it)",
    ),
  skipped_logs: z
    .object({
      count: z.number().int().describe("logs the indexer could not index and left out (table skipped_logs)"),
      last: z
        .object({
          block_number: z.number().int(),
          log_index: z.number().int(),
          transaction_hash: z.string(),
          contract_address: z.string(),
          reason: z.string().describe("the event name and the error that made the write fail"),
          recorded_at: z.number().int().describe("when the indexer recorded it (Unix seconds, wall clock)"),
        })
        .nullable()
        .describe("the most recent one, by chain position"),
    })
    .describe("logs left out so that indexing could go on (an operator should look at each)"),
});

interface SkippedRow {
  count: string;
  block_number: string | null;
  log_index: number | null;
  transaction_hash: string | null;
  contract_address: string | null;
  reason: string | null;
  recorded_at: Date | null;
}

/** `skipped_logs` summary of the status body. */
async function skippedLogs(pool: SqlReader): Promise<z.output<typeof statusSchema>["skipped_logs"]> {
  const { rows } = await pool.query<SkippedRow>(
    `SELECT (SELECT count(*) FROM skipped_logs)::text AS count, l.block_number::text, l.log_index,
            l.transaction_hash, l.contract_address, l.reason, l.recorded_at
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (SELECT * FROM skipped_logs ORDER BY block_number DESC, log_index DESC LIMIT 1) l ON true`,
  );
  const r = rows[0]!;
  return {
    count: Number(r.count),
    last:
      r.block_number === null
        ? null
        : {
            block_number: Number(r.block_number),
            log_index: r.log_index ?? 0,
            transaction_hash: r.transaction_hash ?? "",
            contract_address: r.contract_address ?? "",
            reason: r.reason ?? "",
            recorded_at: r.recorded_at ? Math.floor(r.recorded_at.getTime() / 1000) : 0,
          },
  };
}

interface CheckpointRow {
  chain_id: number;
  block_number: string;
  block_timestamp: string;
  head_block_number: string | null;
  head_seen_at: Date | null;
  head_stale_after_ms: number | null;
  last_reorg_at: Date | null;
  last_reorg_from_block: string | null;
  last_reorg_to_block: string | null;
  last_reorg_depth: number | null;
}

/**
 * `GET /api/v1/status`: indexing progress from `indexer_checkpoints` (read on every call, never
 * cached): `{chain_id, head_block, head_seen_at, head_stale, indexed_block, lag_blocks, lag_seconds, indexed_at, last_reorg,
 * read_database, skipped_logs}`. Before the indexer's first commit every field but `chain_id`,
 * `read_database` and `skipped_logs` is null. `read_database`: the read database's lag behind the
 * primary (see `ReadDatabaseLag`); `skipped_logs`: count and latest row of the table of that name
 * (logs the indexer left out). Always 200 (503 `service_unavailable` while the read database is
 * unreachable).
 */
export const statusRoutes: RoutesPlugin<StatusRoutesDeps> = (deps) => {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  return async (fastify) => {
    const app = typedRoutes(fastify);
    app.get(
      "/api/v1/status",
      {
        schema: {
          tags: ["status"],
          summary: "Indexing status",
          description:
            "Chain head seen by the indexer, last indexed block, lag, the last reorg, and the logs the indexer had to leave out.",
          response: { 200: statusSchema },
        },
      },
      async (_request, reply) => {
        reply.header("cache-control", "no-store");
        const readDatabase: Promise<ReadDatabaseLag> = deps.readDatabase
          ? deps.readDatabase.lag()
          : Promise.resolve({
              replica: false,
              lag_seconds: 0,
              lag_blocks: 0,
              indexed_block: null,
              replay_paused: false,
            });
        const { rows } = await deps.db.query<CheckpointRow>(
          `SELECT chain_id, block_number::text, block_timestamp::text, head_block_number::text,
                  head_seen_at, head_stale_after_ms, last_reorg_at, last_reorg_from_block::text, last_reorg_to_block::text, last_reorg_depth
             FROM indexer_checkpoints ORDER BY chain_id LIMIT 1`,
        );
        const row = rows[0];
        const skipped = await skippedLogs(deps.db);
        if (!row) {
          return {
            chain_id: deps.chainId ?? null,
            head_block: null,
            head_seen_at: null,
            head_stale: false,
            indexed_block: null,
            lag_blocks: null,
            lag_seconds: null,
            indexed_at: null,
            last_reorg: null,
            read_database: await readDatabase,
            skipped_logs: skipped,
          };
        }
        const indexed = Number(row.block_number);
        const indexedAt = Number(row.block_timestamp);
        const head = row.head_block_number === null ? null : Math.max(Number(row.head_block_number), indexed);
        const lagBlocks = head === null ? null : head - indexed;
        const headSeenAt = row.head_seen_at ? Math.floor(row.head_seen_at.getTime() / 1000) : null;
        const headAge = headSeenAt === null ? 0 : Math.max(0, now() - headSeenAt);
        const headStale =
          headSeenAt !== null && row.head_stale_after_ms !== null && headAge * 1000 > row.head_stale_after_ms;
        const behind = lagBlocks === null ? null : lagBlocks === 0 ? 0 : Math.max(0, now() - indexedAt);
        const lagSeconds = behind === null ? null : headStale ? Math.max(behind, headAge) : behind;
        const lastReorg =
          row.last_reorg_at && row.last_reorg_from_block !== null && row.last_reorg_to_block !== null
            ? {
                at: Math.floor(row.last_reorg_at.getTime() / 1000),
                from_block: Number(row.last_reorg_from_block),
                to_block: Number(row.last_reorg_to_block),
                depth:
                  row.last_reorg_depth ??
                  Number(row.last_reorg_to_block) - Number(row.last_reorg_from_block) + 1,
              }
            : null;
        return {
          chain_id: row.chain_id,
          head_block: head,
          head_seen_at: headSeenAt,
          head_stale: headStale,
          indexed_block: indexed,
          lag_blocks: lagBlocks,
          lag_seconds: lagSeconds,
          indexed_at: indexedAt,
          last_reorg: lastReorg,
          read_database: {
            ...(await readDatabase),
            ...(deps.readDatabase ? {} : { indexed_block: indexed }),
          },
          skipped_logs: skipped,
        };
      },
    );
  };
};
