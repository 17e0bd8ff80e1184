/**
 * The error model of the whole system (DESIGN.md §6): one `AppError`, one table of codes to
 * HTTP statuses. Error bodies are `{ code, message, request_id, details? }`.
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
  not_found: 404,
  method_not_allowed: 405,
  not_confirmed: 409,
  not_indexed: 409,
  already_finalized: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_image_type: 415,
  launch_mismatch: 422,
  invalid_signature: 422,
  image_unavailable: 422,
  rate_limited: 429,
  internal_error: 500,
  not_ready: 503,
  oracle_unavailable: 503,
  service_unavailable: 503,
  storage_unavailable: 503,
  upstream_timeout: 504,
} as const;

/** A documented error code (key of {@link ERROR_STATUS}). */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** One field-level problem of a validation error: `field` is the input name, `reason` is human text. */
export interface ErrorDetail {
  field: string;
  reason: string;
}

/** The JSON body of every error response. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  request_id: string;
  details?: ErrorDetail[];
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

/** Builds the JSON error body for `error` and the request id of the request it answers. */
export function errorBody(error: AppError, requestId: string): ErrorBody {
  const body: ErrorBody = { code: error.code, message: error.message, request_id: requestId };
  if (error.details && error.details.length > 0) body.details = error.details;
  return body;
}
