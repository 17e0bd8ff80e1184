// The services the HTTP benches load, each as its own process (from sources, as in production).
import { type ServiceProcess, startServiceProcess, waitFor } from "@tmi/testkit";

/** The base URL a service process logs when it listens (`"address":"http://…"`); throws if it exits first or after 60 s. */
export function serviceAddress(service: ServiceProcess, name: string): Promise<string> {
  return waitFor(
    () => {
      if (service.child.exitCode !== null) throw new Error(`${name} exited: ${service.output()}`);
      return /"address":"(http:\/\/[^"]+)"/.exec(service.output())?.[1];
    },
    { timeoutMs: 60_000, message: `${name} did not start` },
  );
}

/**
 * query-api as its own process (from sources, as in production) on a free port, logging at info
 * (requests are logged at debug only); `env` adds its settings (`DATABASE_URL`, `CURSOR_SECRET`, ...).
 */
export function startQueryApiProcess(env: Record<string, string>): ServiceProcess {
  return startServiceProcess({
    service: "query-api",
    env: { NODE_ENV: "production", PORT: "0", LOG_LEVEL: "info", ...env },
  });
}

/**
 * The gateway as its own process (from sources, as in production) on a free port, logging at info,
 * rate limiting off unless `env` sets `RATE_LIMIT_PER_MINUTE`, and load shedding off: this measures
 * the proxy's cost, and on a machine shared with other work the event-loop delay of any process can
 * pass the default bound and shed requests. `env` adds `QUERY_API_URL` and the rest.
 */
export function startGatewayProcess(env: Record<string, string>): ServiceProcess {
  return startServiceProcess({
    service: "gateway",
    env: {
      NODE_ENV: "production",
      GATEWAY_PORT: "0",
      LOG_LEVEL: "info",
      RATE_LIMIT_PER_MINUTE: "0",
      GATEWAY_MAX_EVENT_LOOP_DELAY_MS: "0",
      ...env,
    },
  });
}

/**
 * metadata-api as its own process (from sources, as in production) on a free port with the fs
 * storage driver under `dir` (`objects/`, `spool/`); `env` adds `DATABASE_URL`, `RPC_URL`,
 * `CHAIN_ID` and `QUEUE_PREFIX`. The factory address is a placeholder (no launch is read).
 */
export function startMetadataApiProcess(dir: string, env: Record<string, string>): ServiceProcess {
  return startServiceProcess({
    service: "metadata-api",
    env: {
      PORT: "0",
      LOG_LEVEL: "info",
      NODE_ENV: "production",
      FACTORY_ADDRESS: "0x00000000000000000000000000000000000000aa",
      // The machine's Redis has no AOF; a production start would refuse it (this measures, nothing persists).
      REDIS_REQUIRE_AOF: "false",
      STORAGE_DRIVER: "fs",
      STORAGE_DIR: `${dir}/objects`,
      SPOOL_DIR: `${dir}/spool`,
      ...env,
    },
  });
}
