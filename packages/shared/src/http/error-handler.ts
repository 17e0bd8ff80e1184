import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError, type ErrorDetail, errorBody, isAppError } from "../errors/index.js";
import { REQUEST_ID_HEADER } from "./request-id.js";

/** Fastify's own error codes that are client mistakes, mapped to our codes. */
const FASTIFY_CODES: Record<string, ConstructorParameters<typeof AppError>[0]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_request",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
  FST_ERR_VALIDATION: "invalid_request",
  FST_ERR_BAD_URL: "invalid_request",
  FST_ERR_MAX_PARAM_LENGTH: "uri_too_long",
  FST_ERR_ASYNC_CONSTRAINT: "invalid_request",
  FST_REQ_FILE_TOO_LARGE: "payload_too_large",
  FST_PARTS_LIMIT: "payload_too_large",
  FST_FILES_LIMIT: "payload_too_large",
  FST_FIELDS_LIMIT: "payload_too_large",
  FST_INVALID_MULTIPART_CONTENT_TYPE: "unsupported_media_type",
};

/** PostgreSQL `query_canceled`: a statement hit `statement_timeout`. */
const PG_QUERY_CANCELED = "57014";

/**
 * Converts anything thrown by a route into an {@link AppError}: AppErrors pass through; schema
 * validation failures become `invalid_request` with per-field `details`; known Fastify client
 * errors map by code (a malformed URL or percent-encoding is `invalid_request`, an over-long
 * path parameter `uri_too_long`); a database statement that hit its timeout is 503 `timeout`;
 * everything else becomes `internal_error` with a generic message.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const fe = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fe)) {
    const details: ErrorDetail[] = fe.validation.map((v) => ({
      field: fieldName(v.instancePath, (v.params as { issue?: { path?: unknown } } | undefined)?.issue?.path),
      reason: v.message ?? "invalid value",
    }));
    return new AppError("invalid_request", "request validation failed", { details, cause: error });
  }
  if (fe && typeof fe.code === "string" && FASTIFY_CODES[fe.code]) {
    return new AppError(FASTIFY_CODES[fe.code]!, clientMessage(fe), { cause: error });
  }
  if (isStatementTimeout(error)) {
    return new AppError("timeout", "the request took too long; retry shortly", { cause: error });
  }
  if (fe && typeof fe.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError(
      fe.statusCode === 413
        ? "payload_too_large"
        : fe.statusCode === 415
          ? "unsupported_media_type"
          : "invalid_request",
      clientMessage(fe),
      { cause: error },
    );
  }
  return new AppError("internal_error", "internal server error", { cause: error });
}

function isStatementTimeout(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === PG_QUERY_CANCELED) return true;
  }
  return false;
}

function fieldName(instancePath: string | undefined, issuePath: unknown): string {
  if (Array.isArray(issuePath) && issuePath.length > 0) return issuePath.map(String).join(".");
  const trimmed = (instancePath ?? "").replace(/^\//, "").replaceAll("/", ".");
  return trimmed || "request";
}

function clientMessage(error: FastifyError): string {
  // Fastify's client-error messages carry no internals; keep them short and stable.
  return (error.message || "invalid request").split("\n")[0]!.slice(0, 200);
}

/**
 * The one Fastify error handler: logs server errors with their cause, answers with the error
 * envelope, `Cache-Control: no-store` and `X-Request-ID` (also set here: framework errors such
 * as a malformed URL are answered before the `onRequest` hooks run).
 */
export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError.status >= 500) {
    request.log.error({ err: error, code: appError.code }, "request failed");
  } else {
    request.log.info({ code: appError.code, reason: appError.message }, "request rejected");
  }
  if (appError.headers) reply.headers(appError.headers);
  return reply
    .status(appError.status)
    .header(REQUEST_ID_HEADER, request.id)
    .header("cache-control", "no-store")
    .type("application/json; charset=utf-8")
    .send(errorBody(appError, request.id));
}
