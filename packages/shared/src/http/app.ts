import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import FindMyWay, { type HTTPMethod } from "find-my-way";
import type { Logger } from "pino";
import { AppError, codeForStatus, errorBody } from "../errors/index.js";
import { answerClientError, answerConnect } from "./client-error.js";
import { errorHandler } from "./error-handler.js";
import { REQUEST_ID_HEADER, requestIdFrom } from "./request-id.js";

/** The Fastify instance type every service builds on (zod schemas for validation and serialization). */
export type HttpApp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger, ZodTypeProvider>;

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  /** Service name, returned by `/health` and `/readyz` and logged on every line. */
  service: string;
  logger: Logger;
  /** Readiness probe for `/readyz`: resolves when ready, throws (or rejects) when not. */
  readiness?: () => Promise<void>;
  /** Trust `X-Forwarded-*` from proxies (true, a hop count or a list of addresses). */
  trustProxy?: boolean | string | string[];
  /** Request body limit in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Whole-request timeout in milliseconds (default 30 s; 0 disables). */
  requestTimeout?: number;
  /** Skip registering `/health` and `/readyz` (the gateway answers them itself). */
  withoutHealthRoutes?: boolean;
}

const METHODS: HTTPMethod[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Creates a Fastify app with the house plumbing: request ids (`X-Request-ID` kept or made and
 * sent on every response), zod validation, the one error handler (docs/api.md "Errors"), 404
 * `not_found` for unknown routes and 405 `method_not_allowed` (with `Allow`) for known paths
 * with another method, and `/health` (no I/O) and `/readyz` (the `readiness` probe, 503 `not_ready`).
 * Every error answers in the envelope `{"error": {"code", "message", "request_id", "details"?}}`
 * with `X-Request-ID`, the HTTP server's own included: malformed URL or percent-encoding (400
 * `invalid_request`), over-long path parameter (414 `uri_too_long`), headers or URL over the size
 * limit (431 `headers_too_large`), request not received in time (503 `timeout`), requests during
 * shutdown (503 `service_unavailable`), `CONNECT` (405 `method_not_allowed`), and any bare error
 * body a plugin sends (e.g. a CORS preflight without `Origin`), rewritten by status.
 * `Expect: 100-continue` is answered (or, over `bodyLimit`, refused with the final status).
 * No side effects beyond the returned instance: call `listen` yourself.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = Fastify<Server, IncomingMessage, ServerResponse, Logger>({
    loggerInstance: options.logger,
    genReqId: requestIdFrom,
    logController: new LogController({ requestIdLogLabel: "request_id", disableRequestLogging: true }),
    trustProxy: options.trustProxy ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestTimeout: options.requestTimeout ?? 30_000,
    connectionTimeout: 60_000,
    keepAliveTimeout: 72_000,
    // Requests arriving while closing are answered by the onRequest hook below (in the envelope).
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Every response, errors and 404s included, carries the request id.
  // Callback-style hooks: an async hook costs a promise on every request of every service.
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) {
      reply.header("connection", "close");
      done(new AppError("service_unavailable", "the service is shutting down; retry shortly"));
      return;
    }
    done();
  });
  // A bare error body sent by code that is not ours (a plugin answering by itself, e.g.
  // @fastify/cors' "Invalid Preflight Request") is rewritten into the envelope, status kept.
  // Streams (proxied bodies) and bodies already in the envelope pass through.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (reply.statusCode < 400 || !isBareBody(payload)) {
      done(null, payload);
      return;
    }
    const text = payload === null || payload === undefined ? "" : String(payload);
    const message = text.length > 0 && text.length <= 200 && !text.startsWith("{") ? text : undefined;
    const error = new AppError(codeForStatus(reply.statusCode), message ?? `HTTP ${reply.statusCode}`);
    reply
      .header(REQUEST_ID_HEADER, request.id)
      .header("cache-control", "no-store")
      .header("content-type", "application/json; charset=utf-8")
      .removeHeader("content-length");
    done(null, JSON.stringify(errorBody(error, request.id)));
  });
  if (options.logger.isLevelEnabled("debug")) {
    app.addHook("onResponse", (request, reply, done) => {
      request.log.debug(
        {
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        "request done",
      );
      done();
    });
  }

  // A shadow router of every registered route, to tell 405 from 404.
  const shadow = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 200 });
  app.addHook("onRoute", (route) => {
    // A catch-all (e.g. @fastify/cors' `OPTIONS *` preflight route) does not make every path known.
    if (route.url === "*" || route.url === "/*") return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (METHODS.includes(method as HTTPMethod)) shadow.on(method as HTTPMethod, route.url, () => {});
    }
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const allowed = METHODS.filter((m) => m !== request.method && shadow.find(m, path) !== null);
    if (allowed.length > 0) {
      reply.header("allow", allowed.join(", "));
      throw new AppError("method_not_allowed", `method ${request.method} is not allowed on ${path}`);
    }
    throw new AppError("not_found", `no route for ${request.method} ${path}`);
  });

  const allowedOn = (path: string) => METHODS.filter((m) => shadow.find(m, path) !== null);
  answerServerEvents(app.server, options.bodyLimit ?? 1024 * 1024, allowedOn);

  if (!options.withoutHealthRoutes) registerHealthRoutes(app, options.service, options.readiness);
  return app as unknown as HttpApp;
}

/**
 * Requests Node's HTTP server does not hand to Fastify by itself:
 * - `Expect: 100-continue` (curl sends it for bodies over 1 MB): `100 Continue` is sent unless the
 *   declared `Content-Length` is over `bodyLimit`; then the final answer (413) comes without it and
 *   the connection closes after it (the body was never sent, so it cannot be reused).
 * - any other `Expect` value: ignored (RFC 9110 allows it), the request is served.
 * - `CONNECT`: 405 `method_not_allowed` in the envelope (see {@link answerConnect}).
 */
function answerServerEvents(server: Server, bodyLimit: number, allowedOn: (path: string) => string[]): void {
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers["content-length"]);
    if (declared > bodyLimit) res.setHeader("connection", "close");
    else res.writeContinue();
    server.emit("request", req, res);
  });
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    server.emit("request", req, res);
  });
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    answerConnect(req, socket, allowedOn((req.url ?? "").split("?")[0] ?? ""));
  });
}

const ENVELOPE_PREFIX = '{"error":{';

/** True for a string/Buffer/empty error payload that is not already the error envelope. */
function isBareBody(payload: unknown): boolean {
  if (payload === null || payload === undefined) return true;
  if (typeof payload === "string") return !payload.startsWith(ENVELOPE_PREFIX);
  if (Buffer.isBuffer(payload))
    return payload.subarray(0, ENVELOPE_PREFIX.length).toString() !== ENVELOPE_PREFIX;
  return false;
}

/** Registers `/health` (process liveness, no I/O) and `/readyz` (runs `readiness`, 503 `not_ready` on failure). */
export function registerHealthRoutes(
  app: FastifyInstance | HttpApp,
  service: string,
  readiness?: () => Promise<void>,
): void {
  const a = app as FastifyInstance;
  a.get("/health", async (request, reply) => {
    reply.header("cache-control", "no-store");
    return { status: "ok", service, request_id: request.id };
  });
  a.get("/readyz", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (readiness) {
      try {
        await readiness();
      } catch (error) {
        throw new AppError("not_ready", "service is not ready", { cause: error });
      }
    }
    return { status: "ready", service, request_id: request.id };
  });
}
