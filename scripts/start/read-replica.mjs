// READ_REPLICA=1: query-api reads from a hot standby of DATABASE_URL's server, made once with
// `pg_basebackup -R -X stream` under <data>/pg-replica (no replication slot: nothing is left on
// the primary) and run as a supervised child on READ_REPLICA_PORT. Client: pg.
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { fail, say, warn } from "./output.mjs";
import { withDatabase } from "./postgres-url.mjs";
import { DATA_DIR, HOST, LOG_DIR, PG_BIN, READ_REPLICA_PORT } from "./settings.mjs";
import { isStopping, startChild, stopChild } from "./supervisor.mjs";

const runningAsRoot = () => process.getuid?.() === 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs a PostgreSQL binary in the foreground (as `postgres` via runuser when root). */
function runPg(binary, args, extraEnv = {}) {
  const [cmd, argv] = runningAsRoot()
    ? ["runuser", ["-u", "postgres", "--", join(PG_BIN, binary), ...args]]
    : [join(PG_BIN, binary), args];
  const result = spawnSync(cmd, argv, {
    encoding: "utf8",
    env: { ...process.env, ...extraEnv },
    timeout: 600_000,
  });
  return {
    status: result.error ? -1 : result.status,
    output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error?.message ?? ""}`,
  };
}

/** A folder the PostgreSQL server may own (chowned to `postgres` when root), mode 0700. */
function serverDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runningAsRoot()) {
    // The server runs as `postgres`: it must be able to traverse the data folder (no listing).
    chmodSync(DATA_DIR, statSync(DATA_DIR).mode | 0o011);
    const ids = (flag) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, ids("-u"), ids("-g"));
  }
  chmodSync(dir, 0o700);
}

/** The WAL receiver's status on the replica (`streaming` when it follows the primary), or undefined. */
async function walReceiverStatus(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return (await client.query("SELECT status FROM pg_stat_wal_receiver")).rows[0]?.status;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Makes the replica's data folder with pg_basebackup; exits with a message when it fails. */
function baseBackup(primary, root, data) {
  rmSync(data, { recursive: true, force: true });
  serverDir(root);
  say(`making the read replica: pg_basebackup from ${primary.hostname}:${primary.port || 5432} into ${data}`);
  const made = runPg(
    "pg_basebackup",
    [
      ...["-h", primary.hostname || HOST, "-p", primary.port || "5432"],
      ...["-U", decodeURIComponent(primary.username || "postgres"), "-D", data],
      ...["-R", "-X", "stream", "-c", "fast"],
    ],
    primary.password ? { PGPASSWORD: decodeURIComponent(primary.password) } : {},
  );
  if (made.status !== 0) {
    rmSync(data, { recursive: true, force: true });
    fail(
      `pg_basebackup failed:\n${made.output.trim()}\n  The primary must allow replication connections from ${HOST} (pg_hba.conf: \`host replication all 127.0.0.1/32 trust\`, or your auth method) with wal_level=replica and max_wal_senders > 0.`,
    );
  }
  appendFileSync(
    join(data, "postgresql.auto.conf"),
    `port = ${READ_REPLICA_PORT}\nlisten_addresses = '${HOST}'\nunix_socket_directories = '${root}'\nhot_standby = on\nhot_standby_feedback = on\nlogging_collector = off\n`,
  );
  if (runningAsRoot()) spawnSync("chown", ["-R", "postgres:postgres", root]);
}

/**
 * Starts the read replica of `databaseUrl`'s server (making it first when missing) and waits until
 * it streams from the primary; a replica that cannot stream any more (e.g. the primary was made
 * again) is made again once. Exits with a message when it still does not stream.
 * @param {string} databaseUrl
 * @returns {Promise<string>} the replica's URL of the same database
 */
export async function startReadReplica(databaseUrl) {
  const primary = new URL(databaseUrl);
  const root = join(DATA_DIR, "pg-replica");
  const data = join(root, "data");
  const replicaUrl = new URL(databaseUrl);
  replicaUrl.hostname = HOST;
  replicaUrl.port = String(READ_REPLICA_PORT);
  const adminUrl = withDatabase(replicaUrl.toString(), "postgres");
  if (!existsSync(join(PG_BIN, "postgres")))
    fail(`READ_REPLICA=1 needs the PostgreSQL server binaries in ${PG_BIN} (set PG_BIN)`);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!existsSync(join(data, "PG_VERSION"))) baseBackup(primary, root, data);
    const [command, args] = runningAsRoot()
      ? [
          "setpriv",
          ["--reuid=postgres", "--regid=postgres", "--init-groups", join(PG_BIN, "postgres"), "-D", data],
        ]
      : [join(PG_BIN, "postgres"), ["-D", data]];
    // SIGINT: PostgreSQL's fast shutdown (SIGTERM would wait for every client to leave).
    const replica = startChild("read-replica", command, args, process.env, {
      critical: false,
      stopSignal: "SIGINT",
      graceMs: 30_000,
    });
    const deadline = Date.now() + 30_000;
    let status;
    while (!isStopping() && replica.child.exitCode === null && Date.now() < deadline) {
      status = await walReceiverStatus(adminUrl);
      if (status === "streaming") break;
      await sleep(250);
    }
    if (status === "streaming") {
      say(`read replica streaming on ${HOST}:${READ_REPLICA_PORT}`);
      return replicaUrl.toString();
    }
    await stopChild(replica);
    if (isStopping()) return replicaUrl.toString();
    if (attempt === 0) {
      warn(
        `the read replica in ${data} does not stream from the primary (see ${replica.file}): making it again`,
      );
      rmSync(data, { recursive: true, force: true });
    }
  }
  fail(`the read replica does not stream from the primary; see ${join(LOG_DIR, "read-replica.log")}`);
}
