// Owner: scale. A PgBouncer of a test's own in front of a cluster of `postgres-cluster.ts`.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import type { PostgresCluster } from "./postgres-cluster.js";
import * as server from "./server-process.js";

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
 * Starts PgBouncer (the Debian package, 1.18; see `pgBouncerBin`) in front of `cluster` on
 * `port` (default: a free one), as the `postgres` user, daemonized, with trust authentication and
 * `settings` added to its `[pgbouncer]` section (e.g. `{ pool_mode: "session" }`). Every database
 * name is forwarded to the same name on the cluster. Killed at process exit if not destroyed.
 * @throws with an installation hint when the binary is missing.
 */
export async function startPgBouncer(
  cluster: PostgresCluster,
  options: { port?: number; settings?: Record<string, string> } = {},
): Promise<PgBouncer> {
  const bin = server.pgBouncerBin();
  if (!existsSync(bin))
    throw new Error(
      `PgBouncer not found at ${bin}: install the Debian package (apt-get install pgbouncer; .ci/run does) or set PGBOUNCER_BIN`,
    );
  const port = options.port ?? (await server.freeTcpPort());
  const root = server.tempRoot("tmi-pgbouncer-");
  const dir = server.ownedDir(root, "run");
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
  server.writeAsOwner(join(dir, "users.txt"), '"postgres" ""\n');
  const ini = [
    "[databases]",
    `* = host=127.0.0.1 port=${cluster.port}`,
    "[pgbouncer]",
    ...server.settingLines(settings),
    "",
  ].join("\n");
  const iniFile = join(dir, "pgbouncer.ini");
  server.writeAsOwner(iniFile, ini);
  server.runAsServerUser(bin, ["-d", iniFile], "starting pgbouncer");
  const pidFile = settings.pidfile as string;
  const forget = server.stopAtExit(() => {
    const pid = server.pidIn(pidFile);
    if (pid > 0) process.kill(pid, "SIGKILL");
  });
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
  return {
    port,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    log: (chars = 4000) => server.logTail(settings.logfile as string, chars),
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      const pid = server.pidIn(pidFile);
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
      forget();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
