/** PostgreSQL cannot be reached (connection refused, reset, terminated): the caller waits and reconnects. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
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
