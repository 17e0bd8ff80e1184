// Owner: scale (own PostgreSQL clusters, streaming standbys and PgBouncer for tests and benchmarks).
// Tests that stop, pause or replicate PostgreSQL start their OWN servers here, on free ports under a
// temporary folder, never the machine's server.
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@tmi/db";
import pg from "pg";
import type { TestDatabase } from "./database.js";

/** Folder of the PostgreSQL server binaries (`PG_BIN`, default Debian's PostgreSQL 15). */
export function postgresBinDir(): string {
  return process.env.PG_BIN || "/usr/lib/postgresql/15/bin";
}

/** Path of the PgBouncer binary (`PGBOUNCER_BIN`, default Debian's `/usr/sbin/pgbouncer`). */
export function pgBouncerBin(): string {
  return process.env.PGBOUNCER_BIN || "/usr/sbin/pgbouncer";
}

/** Prefix of the temporary folders of {@link startPostgresCluster} (under the OS temp folder). */
export const CLUSTER_DIR_PREFIX = "tmi-pgcluster-";

/** A TCP port nothing listens on right now (bound to 127.0.0.1, then released). */
export async function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;
let postgresIds: { uid: number; gid: number } | undefined;

/** uid/gid of the `postgres` user (servers refuse to run as root). */
function postgresUser(): { uid: number; gid: number } {
  if (postgresIds) return postgresIds;
  const id = (flag: string) => {
    const result = spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
    if (result.status !== 0) throw new Error("running as root needs a `postgres` user to own test clusters");
    return Number(result.stdout.trim());
  };
  postgresIds = { uid: id("-u"), gid: id("-g") };
  return postgresIds;
}

/** Runs a PostgreSQL/PgBouncer command as `postgres` when this process is root (`runuser`), else as is. */
function run(command: string, args: string[], what: string): string {
  const [cmd, argv] = isRoot() ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const result = spawnSync(cmd as string, argv as string[], { encoding: "utf8", timeout: 120_000 });
  if (result.error || result.status !== 0) {
    throw new Error(
      `${what} failed (${result.error?.message ?? `exit ${result.status}`}): ${`${result.stdout}\n${result.stderr}`.trim().slice(-2000)}`,
    );
  }
  return result.stdout;
}

/** A folder owned by the server's user (mode 0700, as PostgreSQL requires for data folders). */
function ownedDir(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(parent, uid, gid);
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

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

const live = new Set<PostgresCluster>();
/** Pid files of the PgBouncers this process started and has not stopped. */
const bouncerPidFiles = new Set<string>();

function pidIn(file: string): number {
  try {
    return Number(readFileSync(file, "utf8").trim() || "0");
  } catch {
    return 0;
  }
}
let exitHookInstalled = false;

/** Stops every cluster this process left running (immediate mode) when it exits. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const file of bouncerPidFiles) {
      const pid = pidIn(file);
      if (pid > 0)
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
    }
    for (const cluster of live) {
      try {
        const args = ["-D", cluster.dataDir, "stop", "-m", "immediate", "-w", "-t", "10"];
        const pgCtl = join(postgresBinDir(), "pg_ctl");
        if (isRoot()) spawnSync("runuser", ["-u", "postgres", "--", pgCtl, ...args]);
        else spawnSync(pgCtl, args);
        rmSync(join(cluster.dataDir, ".."), { recursive: true, force: true });
      } catch {}
    }
  });
}

function makeCluster(root: string, dataDir: string, port: number, standby: boolean): PostgresCluster {
  const pgCtl = join(postgresBinDir(), "pg_ctl");
  const logFile = join(root, "server.log");
  let running = false;
  let destroyed = false;
  const cluster: PostgresCluster = {
    port,
    dataDir,
    standby,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      if (!running) return;
      run(pgCtl, ["-D", dataDir, "stop", "-m", "fast", "-w", "-t", "60"], `stopping the cluster on ${port}`);
      running = false;
    },
    async start() {
      if (running) return;
      run(
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
          run(pgCtl, ["-D", dataDir, "stop", "-m", "immediate", "-w", "-t", "30"], `stopping ${port}`);
      } finally {
        running = false;
        live.delete(cluster);
        rmSync(root, { recursive: true, force: true });
      }
    },
    log(chars = 4000) {
      const result = spawnSync("tail", ["-c", String(chars), logFile], { encoding: "utf8" });
      return result.stdout ?? "";
    },
  };
  live.add(cluster);
  installExitHook();
  return cluster;
}

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
  const root = mkdtempSync(join(tmpdir(), CLUSTER_DIR_PREFIX));
  chmodSync(root, 0o755);
  const dataDir = ownedDir(root, "data");
  try {
    run(
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
    const conf = Object.entries(settings)
      .map(([k, v]) => `${k} = ${v}`)
      .join("\n");
    writeAsOwner(join(dataDir, "postgresql.auto.conf"), `${conf}\n`);
    writeAsOwner(
      join(dataDir, "pg_hba.conf"),
      "local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n",
    );
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const cluster = makeCluster(root, dataDir, port, false);
  try {
    await cluster.start();
  } catch (error) {
    await cluster.destroy().catch(() => undefined);
    throw error;
  }
  return cluster;
}

function writeAsOwner(file: string, text: string): void {
  writeFileSync(file, text);
  if (isRoot()) {
    const { uid, gid } = postgresUser();
    chownSync(file, uid, gid);
  }
}

/**
 * Makes a hot standby of `primary` that streams its WAL: `pg_basebackup -R -X stream -C -S <slot>`
 * into a new folder (a physical replication slot on the primary, `standby.signal` and
 * `primary_conninfo` written by `-R`), started on `port` (default: a free one). Replay lag on one
 * machine is a few ms; pause it with {@link pauseReplay}.
 */
export async function startStandby(
  primary: PostgresCluster,
  options: { port?: number; settings?: Record<string, string> } = {},
): Promise<PostgresCluster> {
  const port = options.port ?? (await freeTcpPort());
  const root = mkdtempSync(join(tmpdir(), CLUSTER_DIR_PREFIX));
  chmodSync(root, 0o755);
  const dataDir = ownedDir(root, "data");
  const slot = `standby_${port}`;
  try {
    run(
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
    const lines = Object.entries(extra).map(([k, v]) => `${k} = ${v}`);
    appendFileSync(join(dataDir, "postgresql.auto.conf"), `${lines.join("\n")}\n`);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const cluster = makeCluster(root, dataDir, port, true);
  const destroy = cluster.destroy;
  cluster.destroy = async () => {
    await destroy();
    // Drop the slot, or the primary keeps WAL for a standby that is gone.
    const client = new pg.Client({ connectionString: primary.url() });
    try {
      await client.connect();
      await client.query(
        "SELECT pg_drop_replication_slot($1) FROM pg_replication_slots WHERE slot_name = $1",
        [slot],
      );
    } catch {
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  try {
    await cluster.start();
  } catch (error) {
    await cluster.destroy().catch(() => undefined);
    throw error;
  }
  return cluster;
}

async function onStandby<T>(standby: PostgresCluster, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: standby.url() });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Pauses WAL replay on `standby` (`pg_wal_replay_pause()`): it keeps answering, with data that ages. */
export async function pauseReplay(standby: PostgresCluster): Promise<void> {
  await onStandby(standby, "SELECT pg_wal_replay_pause()");
}

/** Resumes WAL replay on `standby` (`pg_wal_replay_resume()`). */
export async function resumeReplay(standby: PostgresCluster): Promise<void> {
  await onStandby(standby, "SELECT pg_wal_replay_resume()");
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
  const { lsn } = await onStandby<{ lsn: string }>(
    primary,
    "SELECT pg_current_wal_insert_lsn()::text AS lsn",
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { caught } = await onStandby<{ caught: boolean }>(
      standby,
      `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS caught`,
    );
    if (caught) return;
    if (Date.now() > deadline) throw new Error(`standby on ${standby.port} did not replay up to ${lsn}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A PgBouncer of a test's own (see {@link startPgBouncer}). */
export interface PgBouncer {
  port: number;
  /** Connection string of `database` through PgBouncer (user `postgres`). */
  url(database?: string): string;
  /** Stops PgBouncer and deletes its folder. Idempotent. */
  destroy(): Promise<void>;
  /** PgBouncer's log (the last `chars` characters). */
  log(chars?: number): string;
}

/**
 * Starts PgBouncer (the Debian package, 1.18; see {@link pgBouncerBin}) in front of `cluster` on
 * `port` (default: a free one), as the `postgres` user, daemonized, with trust authentication and
 * `settings` added to its `[pgbouncer]` section (e.g. `{ pool_mode: "session" }`). Every database
 * name is forwarded to the same name on the cluster.
 * @throws with an installation hint when the binary is missing.
 */
export async function startPgBouncer(
  cluster: PostgresCluster,
  options: { port?: number; settings?: Record<string, string> } = {},
): Promise<PgBouncer> {
  const bin = pgBouncerBin();
  if (!existsSync(bin))
    throw new Error(
      `PgBouncer not found at ${bin}: install the Debian package (apt-get install pgbouncer; .ci/run does) or set PGBOUNCER_BIN`,
    );
  const port = options.port ?? (await freeTcpPort());
  const root = mkdtempSync(join(tmpdir(), "tmi-pgbouncer-"));
  chmodSync(root, 0o755);
  const dir = ownedDir(root, "run");
  const settings: Record<string, string> = {
    listen_addr: "127.0.0.1",
    listen_port: String(port),
    unix_socket_dir: "",
    auth_type: "trust",
    auth_file: join(dir, "users.txt"),
    pidfile: join(dir, "pgbouncer.pid"),
    logfile: join(dir, "pgbouncer.log"),
    admin_users: "postgres",
    pool_mode: "session",
    max_client_conn: "500",
    default_pool_size: "20",
    ...options.settings,
  };
  writeAsOwner(join(dir, "users.txt"), '"postgres" ""\n');
  const ini = [
    "[databases]",
    `* = host=127.0.0.1 port=${cluster.port}`,
    "[pgbouncer]",
    ...Object.entries(settings).map(([k, v]) => `${k} = ${v}`),
    "",
  ].join("\n");
  const iniFile = join(dir, "pgbouncer.ini");
  writeAsOwner(iniFile, ini);
  run(bin, ["-d", iniFile], "starting pgbouncer");
  const pidFile = settings.pidfile as string;
  bouncerPidFiles.add(pidFile);
  installExitHook();
  // Daemonized: wait until it accepts connections.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`pgbouncer did not accept connections: ${String(error)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  let destroyed = false;
  const logOf = (chars = 4000) =>
    spawnSync("tail", ["-c", String(chars), settings.logfile as string], { encoding: "utf8" }).stdout ?? "";
  return {
    port,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    log: logOf,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      const pid = pidIn(pidFile);
      if (pid > 0) {
        try {
          process.kill(pid, "SIGINT");
        } catch {}
        const until = Date.now() + 5000;
        while (Date.now() < until) {
          try {
            process.kill(pid, 0);
          } catch {
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      bouncerPidFiles.delete(pidFile);
      rmSync(root, { recursive: true, force: true });
    },
  };
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
      const client = new pg.Client({ connectionString: cluster.url() });
      try {
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
      } catch {
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}
