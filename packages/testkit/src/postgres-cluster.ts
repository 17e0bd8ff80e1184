// Owner: scale (own PostgreSQL clusters, streaming standbys and PgBouncer for tests and benchmarks).
// Tests that stop, pause or replicate PostgreSQL start their OWN servers here, on free ports under a
// temporary folder, never the machine's server. Replay control: `postgres-replay.ts`; PgBouncer:
// `pgbouncer.ts`; binaries, users and folders: `server-process.ts`.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "@tmi/db";
import pg from "pg";
import type { TestDatabase } from "./database.js";
import { readyOrReleased } from "./process.js";
import {
  freeTcpPort,
  isRoot,
  logTail,
  ownedDir,
  postgresBinDir,
  runAsServerUser,
  settingLines,
  stopAtExit,
  tempRoot,
  writeAsOwner,
} from "./server-process.js";

export { freeTcpPort, pgBouncerBin, postgresBinDir } from "./server-process.js";

/** Prefix of the temporary folders of {@link startPostgresCluster} (under the OS temp folder). */
export const CLUSTER_DIR_PREFIX = "tmi-pgcluster-";

/** Settings every test cluster gets: small, no durability (tests), replication allowed. */
const BASE_SETTINGS: Record<string, string> = {
  listen_addresses: "'127.0.0.1'",
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  wal_level: "replica",
  max_wal_senders: "8",
  max_replication_slots: "8",
  hot_standby: "on",
  hot_standby_feedback: "on",
  max_connections: "200",
  shared_buffers: "64MB",
  logging_collector: "off",
};

/** One PostgreSQL server of a test's own (see {@link startPostgresCluster}). */
export interface PostgresCluster {
  /** 127.0.0.1 port the server listens on. */
  port: number;
  /** Data folder. */
  dataDir: string;
  /** Connection string of `database` (default `postgres`), user `postgres`, trust authentication. */
  url(database?: string): string;
  /** Whether the server is a standby (made by {@link startStandby}). */
  standby: boolean;
  /** Stops the server (`pg_ctl stop -m fast`); the data folder stays. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again after {@link stop}, waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops the server and deletes its folder. Idempotent. */
  destroy(): Promise<void>;
  /** Server log (the last `chars` characters), for failure messages. */
  log(chars?: number): string;
}

/**
 * The cluster in `dataDir` (under `root`), started; stopped (immediate mode) if the process exits
 * first; `afterDestroy` runs after {@link PostgresCluster.destroy}. When it does not start, it is
 * destroyed and the error thrown.
 */
async function launchCluster(
  root: string,
  dataDir: string,
  port: number,
  standby: boolean,
  afterDestroy?: () => Promise<unknown>,
): Promise<PostgresCluster> {
  const pgCtl = join(postgresBinDir(), "pg_ctl");
  const logFile = join(root, "server.log");
  let running = false;
  let destroyed = false;
  const forget = stopAtExit(() => {
    const args = ["-D", dataDir, "stop", "-m", "immediate", "-w", "-t", "10"];
    if (isRoot()) spawnSync("runuser", ["-u", "postgres", "--", pgCtl, ...args]);
    else spawnSync(pgCtl, args);
    rmSync(root, { recursive: true, force: true });
  });
  const cluster: PostgresCluster = {
    port,
    dataDir,
    standby,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      if (!running) return;
      runAsServerUser(
        pgCtl,
        ["-D", dataDir, "stop", "-m", "fast", "-w", "-t", "60"],
        `stopping the cluster on ${port}`,
      );
      running = false;
    },
    async start() {
      if (running) return;
      runAsServerUser(
        pgCtl,
        ["-D", dataDir, "-l", logFile, "start", "-w", "-t", "60"],
        `starting the cluster on ${port}`,
      );
      running = true;
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        if (running)
          runAsServerUser(
            pgCtl,
            ["-D", dataDir, "stop", "-m", "immediate", "-w", "-t", "30"],
            `stopping ${port}`,
          );
      } finally {
        running = false;
        forget();
        rmSync(root, { recursive: true, force: true });
      }
      await afterDestroy?.();
    },
    log: (chars = 4000) => logTail(logFile, chars),
  };
  return readyOrReleased(
    cluster,
    (c) => c.start(),
    (c) => c.destroy(),
  );
}

/**
 * Makes and starts a new PostgreSQL cluster of the test's own: `initdb` (as the `postgres` user via
 * `runuser` when this process is root) in a new folder under the OS temp folder, trust
 * authentication for 127.0.0.1 including replication, `wal_level=replica`, durability off; listens
 * on `port` (default: a free one). `settings` are added to postgresql.conf (values as written there,
 * e.g. `{ max_connections: "50" }`). Stopped and deleted by {@link PostgresCluster.destroy} (and at
 * process exit if forgotten). Takes about 1–2 s.
 * @throws when the PostgreSQL binaries (see {@link postgresBinDir}) are missing or initdb fails.
 */
export async function startPostgresCluster(
  options: { port?: number; settings?: Record<string, string> } = {},
): Promise<PostgresCluster> {
  const initdb = join(postgresBinDir(), "initdb");
  if (!existsSync(initdb))
    throw new Error(`PostgreSQL server binaries not found in ${postgresBinDir()} (set PG_BIN)`);
  const port = options.port ?? (await freeTcpPort());
  const root = tempRoot(CLUSTER_DIR_PREFIX);
  const dataDir = ownedDir(root, "data");
  try {
    runAsServerUser(
      initdb,
      ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"],
      "initdb",
    );
    const settings = {
      ...BASE_SETTINGS,
      port: String(port),
      unix_socket_directories: `'${root}'`,
      ...options.settings,
    };
    writeAsOwner(join(dataDir, "postgresql.auto.conf"), `${settingLines(settings).join("\n")}\n`);
    writeAsOwner(
      join(dataDir, "pg_hba.conf"),
      "local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n",
    );
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return launchCluster(root, dataDir, port, false);
}

/**
 * Makes a hot standby of `primary` that streams its WAL: `pg_basebackup -R -X stream -C -S <slot>`
 * into a new folder (a physical replication slot on the primary, `standby.signal` and
 * `primary_conninfo` written by `-R`), started on `port` (default: a free one). Replay lag on one
 * machine is a few ms; pause it with `pauseReplay` (`postgres-replay.ts`). Its `destroy()` also
 * drops the slot on the primary.
 */
export async function startStandby(
  primary: PostgresCluster,
  options: { port?: number; settings?: Record<string, string> } = {},
): Promise<PostgresCluster> {
  const port = options.port ?? (await freeTcpPort());
  const root = tempRoot(CLUSTER_DIR_PREFIX);
  const dataDir = ownedDir(root, "data");
  const slot = `standby_${port}`;
  try {
    runAsServerUser(
      join(postgresBinDir(), "pg_basebackup"),
      [
        "-h",
        "127.0.0.1",
        "-p",
        String(primary.port),
        "-U",
        "postgres",
        "-D",
        dataDir,
        "-R",
        "-X",
        "stream",
        "-C",
        "-S",
        slot,
        // An immediate checkpoint (the default spreads it over ~10 s).
        "-c",
        "fast",
      ],
      "pg_basebackup",
    );
    // The copied postgresql.auto.conf is the primary's (plus primary_conninfo/slot from -R): override port and socket.
    const extra = { port: String(port), unix_socket_directories: `'${root}'`, ...options.settings };
    appendFileSync(join(dataDir, "postgresql.auto.conf"), `${settingLines(extra).join("\n")}\n`);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  // Drop the slot, or the primary keeps WAL for a standby that is gone.
  const dropSlot = () =>
    onServer(primary, "SELECT pg_drop_replication_slot($1) FROM pg_replication_slots WHERE slot_name = $1", [
      slot,
    ]).catch(() => undefined);
  return launchCluster(root, dataDir, port, true, dropSlot);
}

/**
 * Runs one statement on `cluster`'s `postgres` database on a connection of its own; returns the
 * first row. @throws the connection's or the statement's error.
 */
export async function onServer<T>(cluster: PostgresCluster, sql: string, params: unknown[] = []): Promise<T> {
  const client = new pg.Client({ connectionString: cluster.url() });
  try {
    await client.connect();
    return (await client.query(sql, params)).rows[0] as T;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates database `name` (default `tmi`) on `cluster` and applies the migrations: a
 * {@link TestDatabase} whose `drop()` drops it (on a standby of this cluster it disappears too).
 */
export async function createClusterDatabase(cluster: PostgresCluster, name = "tmi"): Promise<TestDatabase> {
  const url = cluster.url(name);
  await migrate({ databaseUrl: url });
  return {
    url,
    name,
    async drop() {
      await onServer(cluster, `DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`).catch(
        () => undefined,
      );
    },
  };
}
