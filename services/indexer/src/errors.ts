// The indexer's errors: one base class, `IndexerError`, whose `retryable` says whether the loop may
// try again (after a wait) or must stop, and the five kinds under it. Exit codes (main.ts): a
// non-retryable `FatalIndexerError` 2, `DatabaseOutageError` 3, anything else 1.

/** An error of the indexer: `retryable` = the same work may succeed later (after a wait, a reconnect). */
export abstract class IndexerError extends Error {
  abstract readonly retryable: boolean;
  /** `name` is the subclass's own (`RpcError`, …): the logs name the kind. */
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An RPC failure, classified for the retry and range logic. */
export class RpcError extends IndexerError {
  constructor(
    message: string,
    readonly method: string,
    readonly options: {
      code?: number;
      status?: number;
      retryable: boolean;
      rangeError: boolean;
      /** The client's `signal` aborted the call (shutdown): never retried. */
      aborted?: boolean;
      /** A JSON-RPC batch was answered with one error (batches unsupported or too large). */
      batchRefused?: boolean;
      cause?: unknown;
    },
  ) {
    super(message, { cause: options.cause });
  }
  /** A transport failure, timeout, 429, 5xx or −32603 (after the client's own retries): try later. */
  get retryable(): boolean {
    return this.options.retryable;
  }
  get rangeError(): boolean {
    return this.options.rangeError;
  }
  get aborted(): boolean {
    return this.options.aborted === true;
  }
  get batchRefused(): boolean {
    return this.options.batchRefused === true;
  }
}

/**
 * PostgreSQL cannot be reached now (connection refused, reset, terminated): the caller waits and
 * reconnects (retryable).
 */
export class DatabaseUnavailableError extends IndexerError {
  readonly retryable = true;
}

/**
 * PostgreSQL stayed unreachable longer than `DB_OUTAGE_MAX_MS` (or was lost with
 * `DB_OUTAGE_MAX_MS=0`): the process exits (code 3) and its supervisor restarts it. Not retryable.
 */
export class DatabaseOutageError extends IndexerError {
  readonly retryable = false;
}

/**
 * The chain no longer matches what was fetched or indexed: the reconciler must find the common
 * ancestor, then the work is retried.
 */
export class ChainMismatchError extends IndexerError {
  readonly retryable = true;
}

/**
 * A condition the indexer must not continue from (reorg too deep, below finalized, wrong chain, a
 * failing log with `SKIP_FAILING_LOGS=false`): exit non-zero (code 2). Not retryable.
 */
export class FatalIndexerError extends IndexerError {
  readonly retryable = false;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
]);

/** True when `error` means the database connection is gone (not a bad statement). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (typeof e.code === "string" && (CONNECTION_CODES.has(e.code) || e.code.startsWith("08"))) return true;
  const message = typeof e.message === "string" ? e.message : "";
  return /Connection terminated|connection error|not queryable|Client was closed|timeout exceeded when trying to connect|the database system is (shutting down|starting up)/i.test(
    message,
  );
}

/** An error as one line for logs and `skipped_logs.reason`: `<code>: <message>` when it has a string code. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${typeof code === "string" ? `${code}: ` : ""}${error.message}`;
  }
  return String(error);
}
