import type { Logger } from "pino";
import { type Dispatcher, Pool } from "undici";

/** Connection failures that say the upstream is not there (nothing was sent): the upstream is ejected. */
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
]);
/** Failures of a connection after the request may have been sent (the upstream closed it, or died answering). */
const SOCKET_FAILURES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
/** Methods safe to send twice (no body reaches the gateway's upstreams with them). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS"]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECT_FAILURES.has(code) || SOCKET_FAILURES.has(code))) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Settings of {@link createUpstreamBalancer}. */
export interface UpstreamBalancerOptions {
  /** Service name, for logs. */
  service: string;
  /** Base URLs of the replicas (origins; a path is ignored). */
  urls: string[];
  /** Options of each replica's undici `Pool` (connections, timeouts). */
  pool: Pool.Options;
  /** How long an upstream that refused a connection stays out before it is probed (ms). */
  ejectMs: number;
  /** Path probed (GET, 200 expected) before an ejected upstream takes requests again. */
  probePath: string;
  /** Time a probe may take (ms). */
  probeTimeoutMs: number;
  logger: Logger;
}

/** Health of one replica as the balancer sees it. */
export interface UpstreamState {
  url: string;
  /** False while ejected (after a connection failure, until a probe answers 200). */
  healthy: boolean;
  /** Consecutive failed probes since the last ejection. */
  failedProbes: number;
}

/**
 * A load balancer over the replicas of one upstream service, usable as reply-from's undici
 * dispatcher (`request(options, callback)`).
 *
 * Picks replicas round-robin among the healthy ones. A replica that refuses or times out a
 * connection is ejected (passive health check) for `ejectMs`; it is then probed with
 * `GET probePath` and returns only on a 200, else it stays out for twice as long (at most 8×
 * `ejectMs`) before the next probe. When every replica is ejected, requests go to all of them
 * (a balancer that refuses everything helps nobody).
 *
 * Failover: an idempotent request (GET, HEAD, OPTIONS) that failed to connect, or whose connection
 * broke before response headers arrived, is sent once more to another healthy replica. Anything
 * else (a request with a body: not sent twice) fails with the original error (the caller maps it to 503/504). Why not undici's `BalancedPool`: it keeps sending a share
 * of requests to a dead replica (it lowers its weight, never ejects it) and never retries
 * elsewhere.
 */
export interface UpstreamBalancer {
  /**
   * Dispatches like `undici.Dispatcher.request` with a callback; `options.origin` is ignored and
   * the `host` header (when `headers` is an object) is set to the chosen replica's.
   */
  request(
    options: Dispatcher.RequestOptions,
    callback: (error: Error | null, data?: Dispatcher.ResponseData) => void,
  ): void;
  /** True once any replica has answered (a request or a probe) since the balancer was made. */
  reached(): boolean;
  /** Current state of every replica (for logs, tests and metrics). */
  states(): UpstreamState[];
  /** Closes every pool and stops probing. */
  close(): Promise<void>;
}

interface Replica {
  url: string;
  origin: string;
  host: string;
  pool: Pool;
  healthy: boolean;
  failedProbes: number;
  timer: NodeJS.Timeout | undefined;
}

/** Creates the balancer of one upstream service (see {@link UpstreamBalancer}). */
export function createUpstreamBalancer(options: UpstreamBalancerOptions): UpstreamBalancer {
  const { logger, service } = options;
  const replicas: Replica[] = options.urls.map((url) => {
    const { origin, host } = new URL(url);
    return {
      url,
      origin,
      host,
      pool: new Pool(origin, options.pool),
      healthy: true,
      failedProbes: 0,
      timer: undefined,
    };
  });
  if (replicas.length === 0) throw new Error(`no upstream URL for ${service}`);
  let next = 0;
  let closed = false;
  let reached = false;

  /** The next healthy replica after the round-robin position, skipping `not`; any when none is healthy. */
  function pick(not?: Replica): Replica | undefined {
    const n = replicas.length;
    for (let i = 0; i < n; i++) {
      const replica = replicas[(next + i) % n] as Replica;
      if (replica.healthy && replica !== not) {
        next = (next + i + 1) % n;
        return replica;
      }
    }
    if (not) return undefined;
    const replica = replicas[next % n] as Replica;
    next = (next + 1) % n;
    return replica;
  }

  function eject(replica: Replica, code: string): void {
    if (!replica.healthy || replicas.length === 1 || closed) return;
    replica.healthy = false;
    replica.failedProbes = 0;
    logger.warn(
      { upstream: replica.url, upstream_service: service, code, eject_ms: options.ejectMs },
      "upstream ejected",
    );
    scheduleProbe(replica);
  }

  function scheduleProbe(replica: Replica): void {
    const delay = options.ejectMs * Math.min(8, 2 ** replica.failedProbes);
    replica.timer = setTimeout(() => void probe(replica), delay);
    replica.timer.unref();
  }

  async function probe(replica: Replica): Promise<void> {
    if (closed) return;
    let status = 0;
    try {
      const response = await replica.pool.request({
        origin: replica.origin,
        path: options.probePath,
        method: "GET",
        headersTimeout: options.probeTimeoutMs,
        bodyTimeout: options.probeTimeoutMs,
      });
      status = response.statusCode;
      await response.body.dump();
    } catch {}
    if (closed) return;
    if (status === 200) {
      reached = true;
      replica.healthy = true;
      replica.failedProbes = 0;
      logger.info({ upstream: replica.url, upstream_service: service }, "upstream back in rotation");
      return;
    }
    replica.failedProbes++;
    scheduleProbe(replica);
  }

  function dispatch(
    replica: Replica,
    request: Dispatcher.RequestOptions,
    callback: (error: Error | null, data?: Dispatcher.ResponseData) => void,
    retried: boolean,
  ): void {
    const headers = request.headers as Record<string, unknown> | null | undefined;
    if (headers && !Array.isArray(headers)) headers.host = replica.host;
    // `request` is reply-from's own object for this request: set the origin in place (no copy).
    request.origin = replica.origin;
    replica.pool.request(request, (error, data) => {
      if (!error) {
        reached = true;
        callback(null, data);
        return;
      }
      const code = errorCode(error);
      const connectFailed = code !== undefined && CONNECT_FAILURES.has(code);
      if (connectFailed) eject(replica, code);
      // A request with a body is not sent twice (it may have been acted on): idempotent only.
      const retryable = code !== undefined && IDEMPOTENT.has(String(request.method).toUpperCase());
      const other = !retried && retryable && !closed ? pick(replica) : undefined;
      if (other) {
        logger.debug(
          { upstream: replica.url, retry_on: other.url, upstream_service: service, code },
          "retrying on another upstream",
        );
        dispatch(other, request, callback, true);
        return;
      }
      callback(error);
    });
  }

  return {
    request(request, callback) {
      dispatch(pick() as Replica, request, callback, false);
    },
    reached: () => reached,
    states: () => replicas.map((r) => ({ url: r.url, healthy: r.healthy, failedProbes: r.failedProbes })),
    async close() {
      closed = true;
      for (const replica of replicas) clearTimeout(replica.timer);
      await Promise.all(replicas.map((r) => r.pool.close().catch(() => r.pool.destroy())));
    },
  };
}
