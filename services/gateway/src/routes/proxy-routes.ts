import httpProxy from "@fastify/http-proxy";
import { AppError, errorBody } from "@tmi/shared/errors";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Dispatcher } from "undici";
import type { BodyParser } from "../request-bodies.js";
import type { UpstreamBalancer } from "../upstream-balancer.js";

/** One proxied path prefix. */
export interface ProxyRoute {
  /** Name of the upstream service, for logs and error messages. */
  service: string;
  /** Path prefix at the gateway, forwarded unchanged (e.g. `/api/v1/prices`). */
  prefix: string;
  /** The upstream's replicas (balanced, with passive health checks and failover). */
  balancer: UpstreamBalancer;
  /** Time the upstream has to send response headers (ms). */
  headersTimeoutMs: number;
  /** Longest pause between body chunks (ms); 0 = none (long-lived Server-Sent Events). */
  bodyTimeoutMs: number;
  /** Whether the gateway trusts incoming `X-Forwarded-For` (TRUST_PROXY): then the client address is appended to it, else it replaces it. */
  trustForwardedFor: boolean;
  /**
   * Whether the upstream takes request bodies on this prefix. When false (every route of it is
   * GET/HEAD), any other method than GET, HEAD and OPTIONS is answered here with 405
   * `method_not_allowed` (`Allow: GET, HEAD`, as the upstream answers).
   */
  takesBody: boolean;
  /** Receives request bodies whole before the upstream is contacted (see request-bodies.ts). */
  bodyParser: BodyParser;
}

/** Codes of connection-level failures: the upstream is unreachable (503). */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
  "FST_REPLY_FROM_SERVICE_UNAVAILABLE",
]);
/** Codes of upstream timeouts (504). */
const TIMED_OUT = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "FST_REPLY_FROM_GATEWAY_TIMEOUT",
  "FST_REPLY_FROM_TIMEOUT",
  "FST_REPLY_FROM_HTTP_REQUEST_TIMEOUT",
]);

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * Maps a proxying failure to the error body of docs/api.md: connection failures → 503
 * `service_unavailable`, upstream timeouts → 504 `upstream_timeout`, anything else → 503
 * `service_unavailable` (the upstream answered with something that cannot be relayed).
 */
export function upstreamError(service: string, error: unknown): AppError {
  const codes = codesOf(error);
  if (codes.some((c) => TIMED_OUT.has(c))) {
    return new AppError("upstream_timeout", `${service} did not answer in time`, { cause: error });
  }
  if (codes.some((c) => UNREACHABLE.has(c))) {
    return new AppError("service_unavailable", `${service} is unreachable`, {
      cause: error,
      headers: { "retry-after": "1" },
    });
  }
  return new AppError("service_unavailable", `${service} failed to answer`, { cause: error });
}

const FORWARDED_REQUEST_HEADERS = "x-request-id";

/** Responses up to this size (declared `Content-Length`) are read whole and sent in one write. */
export const BUFFERED_RESPONSE_MAX_BYTES = 256 * 1024;

interface UpstreamResponse {
  headers: Record<string, string | string[] | undefined>;
  stream: NodeJS.ReadableStream & { arrayBuffer?: () => Promise<ArrayBuffer> };
}

const WITHOUT_BODY = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Answers `error` without the shared error handler (which logs every 5xx at error): for an
 * upstream the gateway has not reached yet (start-up, before it listens), logged at warn.
 */
function answerNotYetReachable(request: FastifyRequest, reply: FastifyReply, error: AppError): void {
  request.log.warn({ code: error.code, reason: error.message }, "upstream not reachable yet (starting?)");
  reply
    .code(error.status)
    .headers(error.headers ?? {})
    .header("cache-control", "no-store")
    .type("application/json; charset=utf-8")
    .send(errorBody(error, request.id));
}

/**
 * Registers one @fastify/http-proxy instance for `route`: the path is forwarded unchanged, request
 * bodies are received whole by `route.bodyParser` before the upstream is contacted (a slow client
 * never holds an upstream connection), on a route that takes no body any other method is answered
 * here (see {@link ProxyRoute.takesBody}), the request id is forwarded as
 * `X-Request-ID`, the client address is appended to `X-Forwarded-For`, the replica is picked by the
 * route's balancer (which retries an idempotent request once on another replica after a connection
 * failure), and failures answer with the error body (see {@link upstreamError}; an upstream not
 * reached since the gateway started is logged at warn, not error). Response bodies (including
 * `text/event-stream`) are piped to the client as they arrive.
 */
export function registerProxyRoute(app: FastifyInstance, route: ProxyRoute): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", route.bodyParser);
    if (!route.takesBody) {
      scope.addHook("onRequest", (request, reply, done) => {
        if (WITHOUT_BODY.has(request.method)) {
          done();
          return;
        }
        const path = request.url.split("?")[0] ?? "/";
        const headers: Record<string, string> = { allow: "GET, HEAD" };
        // A body is not read: the connection cannot carry another request.
        const length = request.headers["content-length"];
        if ((length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined)
          headers.connection = "close";
        reply.headers(headers);
        done(new AppError("method_not_allowed", `method ${request.method} is not allowed on ${path}`));
      });
    }
    registerProxy(scope, route);
  });
}

function registerProxy(app: FastifyInstance, route: ProxyRoute): void {
  const { balancer, headersTimeoutMs, bodyTimeoutMs } = route;
  // reply-from hands each request to this dispatcher; the balancer picks the replica (the
  // `upstream` below only anchors path rewriting) and the timeouts of this route apply.
  const dispatcher = {
    request(
      options: Dispatcher.RequestOptions,
      callback: (error: Error | null, data?: Dispatcher.ResponseData) => void,
    ) {
      options.headersTimeout = headersTimeoutMs;
      options.bodyTimeout = bodyTimeoutMs;
      balancer.request(options, callback);
    },
  };
  app.register(httpProxy, {
    upstream: "http://upstream.invalid",
    prefix: route.prefix,
    rewritePrefix: route.prefix,
    // No `websocket`; every method is forwarded, including OPTIONS (preflights are answered by CORS first).
    undici: dispatcher,
    // Bodies are parsed by the scope's parser (route.bodyParser), not passed through as streams.
    proxyPayloads: false,
    disableRequestLogging: true,
    replyOptions: {
      // Hop-by-hop headers of the upstream's answer are not relayed (RFC 9110 7.6.1): its
      // `Connection: keep-alive` would override a client's `Connection: close` and keep that
      // connection open.
      rewriteHeaders: (headers: Record<string, unknown>) => {
        delete headers.connection;
        delete headers["keep-alive"];
        return headers;
      },
      // `headers` is reply-from's own copy of the client's headers: set ours in place (no copy).
      rewriteRequestHeaders: (request: FastifyRequest, headers: Record<string, unknown>) => {
        const remote = request.socket.remoteAddress;
        const incoming = headers["x-forwarded-for"];
        let forwardedFor = remote;
        if (route.trustForwardedFor && incoming)
          forwardedFor = remote ? `${incoming}, ${remote}` : String(incoming);
        // `Expect: 100-continue` was answered here (the shared HTTP app); undici refuses to send it.
        delete headers.expect;
        headers[FORWARDED_REQUEST_HEADERS] = request.id;
        headers["x-forwarded-for"] = forwardedFor;
        headers["x-forwarded-proto"] = request.protocol;
        headers["x-forwarded-host"] = request.host;
        return headers;
      },
      // Small bodies with a declared length are read whole and sent with the headers in one write
      // (cheaper than piping a stream for typical JSON answers); anything else streams through.
      onResponse: (request: FastifyRequest, reply: FastifyReply, res: UpstreamResponse) => {
        const length = Number(res.headers["content-length"]);
        const type = res.headers["content-type"];
        const streaming = typeof type === "string" && type.startsWith("text/event-stream");
        const small = length > 0 && length <= BUFFERED_RESPONSE_MAX_BYTES;
        if (small && !streaming && request.method !== "HEAD" && res.stream.arrayBuffer) {
          res.stream.arrayBuffer().then(
            (body) => reply.send(Buffer.from(body)),
            (error: unknown) => reply.send(upstreamError(route.service, error)),
          );
          return;
        }
        reply.send(res.stream);
      },
      onError: (reply: FastifyReply, { error }: { error: unknown }) => {
        const answer = upstreamError(route.service, error);
        if (answer.code === "service_unavailable" && !balancer.reached())
          answerNotYetReachable(reply.request, reply, answer);
        else reply.send(answer);
      },
      // Failover is the balancer's (once, on another replica); reply-from's own retries are off
      // (by default it repeats a GET that answered 503 up to 10 times).
      retryDelay: () => null,
    },
  } as never);
}
