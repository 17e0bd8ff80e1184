import { AppError } from "@tmi/shared/errors";

/** Seconds a client is told to wait (`Retry-After`) while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// Socket errors of a lost or refused connection.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);
// SQLSTATEs of a server that is going away, starting or full: admin/crash shutdown, cannot
// connect now, too many connections (class 08 = connection exceptions is matched by prefix).
const SERVER_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
// Prisma's codes of an unreachable database or an exhausted pool.
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const MESSAGES =
  /connection terminated|connection error|server closed the connection|terminating connection|the database system is (starting up|shutting down)|can't reach database server|timeout exceeded when trying to connect/i;

function isUnavailable(error: unknown, depth: number): boolean {
  if (!error || typeof error !== "object" || depth > 6) return false;
  const e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; meta?: unknown };
  const code = typeof e.code === "string" ? e.code : "";
  if (NETWORK_CODES.has(code) || SERVER_STATES.has(code) || code.startsWith("08") || PRISMA_CODES.has(code))
    return true;
  if (e.name === "PrismaClientInitializationError") return true;
  if (typeof e.message === "string" && MESSAGES.test(e.message)) return true;
  const meta = e.meta as { driverAdapterError?: unknown } | undefined;
  return isUnavailable(e.cause, depth + 1) || isUnavailable(meta?.driverAdapterError, depth + 1);
}

/**
 * Maps an error that means "the database cannot be reached right now" (refused or dropped
 * connections, a server shutting down or starting, an exhausted pool; from `pg`, Prisma or its
 * pg adapter, through `cause` chains) to 503 `service_unavailable` with `Retry-After`; null for
 * any other error. The pools reconnect by themselves, so the service recovers without a restart.
 */
export function databaseUnavailable(error: unknown): AppError | null {
  if (!isUnavailable(error, 0)) return null;
  return new AppError("service_unavailable", "the database is unavailable; try again later", {
    cause: error,
    headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}
