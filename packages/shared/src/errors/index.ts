/**
 * The error model of the whole system (docs/api.md "Errors"): one `AppError`, one table of codes
 * to HTTP statuses. Every error body is the envelope
 * `{"error": {"code", "message", "request_id", "details"?}}` (the platform's web client reads
 * `error.code` and `error.message`).
 */

/** Every error code the API can answer with, mapped to its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_address: 400,
  invalid_interval: 400,
  // Metadata creation (the platform's codes): the form, the image and each field.
  invalid_upload: 400,
  invalid_image: 400,
  invalid_name: 400,
  invalid_symbol: 400,
  invalid_description: 400,
  invalid_supply: 400,
  invalid_website_url: 400,
  invalid_x_url: 400,
  invalid_telegram_url: 400,
  invalid_discord_url: 400,
  // The gateway: an `Authorization: Bearer` / `X-API-Key` key that is unknown or revoked.
  invalid_api_key: 401,
  not_found: 404,
  method_not_allowed: 405,
  // The gateway: a request body not received at the minimum rate (the connection is closed).
  request_timeout: 408,
  not_confirmed: 409,
  not_indexed: 409,
  already_finalized: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unsupported_image_type: 415,
  launch_mismatch: 422,
  // Reward trees: the uploaded leaves do not hash to the published root.
  root_mismatch: 422,
  invalid_signature: 422,
  image_unavailable: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  not_ready: 503,
  oracle_unavailable: 503,
  service_unavailable: 503,
  storage_unavailable: 503,
  timeout: 503,
  upstream_timeout: 504,
} as const;

/** A documented error code (key of {@link ERROR_STATUS}). */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** One field-level problem of a validation error: `field` is the input name, `reason` is human text. */
export interface ErrorDetail {
  field: string;
  reason: string;
}

/** The error object inside the envelope. */
export interface ErrorObject {
  code: ErrorCode;
  message: string;
  request_id: string;
  /** Only for field validation. */
  details?: ErrorDetail[];
}

/** The JSON body of every error response: `{"error": {...}}`. */
export interface ErrorBody {
  error: ErrorObject;
}

/**
 * An error that maps to a documented HTTP answer. `status` comes from {@link ERROR_STATUS};
 * `details` are returned to the client, `cause` never is (it is logged).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers, e.g. `Retry-After` for `rate_limited`. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** True when `value` is an {@link AppError} (also across module copies). */
export function isAppError(value: unknown): value is AppError {
  return (
    value instanceof AppError || (value instanceof Error && value.name === "AppError" && "code" in value)
  );
}

/** Builds the JSON error envelope for `error` and the request id of the request it answers. */
export function errorBody(error: AppError, requestId: string): ErrorBody {
  const inner: ErrorObject = { code: error.code, message: error.message, request_id: requestId };
  if (error.details && error.details.length > 0) inner.details = error.details;
  return { error: inner };
}

/**
 * The code of an error answered with a bare HTTP `status` by code that is not ours (a plugin or
 * the HTTP server): the code of the table with that status, else `invalid_request` for 4xx and
 * `internal_error` for 5xx.
 */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 408:
      return "request_timeout";
    case 413:
      return "payload_too_large";
    case 414:
      return "uri_too_long";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "rate_limited";
    case 431:
      return "headers_too_large";
    case 502:
    case 503:
      return "service_unavailable";
    case 504:
      return "upstream_timeout";
    default:
      return status < 500 ? "invalid_request" : "internal_error";
  }
}
