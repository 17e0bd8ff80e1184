import { IndexerError } from "../errors.js";
import type { DecodedEvent } from "../events/index.js";

/**
 * Finds the first item whose inclusion makes `attempt` fail, by bisecting over prefixes:
 * `attempt(items[0..k])` is tried for O(log n) values of k, and the smallest k whose prefix
 * fails is returned with that attempt's error. Returns null when the whole list succeeds (the
 * failure was not caused by the items, e.g. a transient one).
 * An error for which `isFailure` is false (a lost connection) ends the search: it is thrown.
 * @dev assumes failure is monotone in the prefix (a prefix that contains the culprit fails):
 * true for a range write, where each log's rows are applied in chain order.
 */
export async function findFirstFailing<T>(
  items: readonly T[],
  attempt: (prefix: readonly T[]) => Promise<void>,
  isFailure: (error: unknown) => boolean = () => true,
): Promise<{ index: number; error: unknown } | null> {
  const fails = async (n: number): Promise<unknown> => {
    try {
      await attempt(items.slice(0, n));
      return undefined;
    } catch (error) {
      // Not the items' doing (e.g. the database went away): stop, blame nothing.
      if (!isFailure(error)) throw error;
      return error ?? new Error("failed");
    }
  };
  if (items.length === 0) return null;
  const whole = await fails(items.length);
  if (whole === undefined) return null;
  // Invariant: prefix of length `hi` fails, prefix of length `lo` succeeds (lo = 0: empty succeeds
  // or the failure is not the items' own — then the first item is blamed only if prefix 1 fails).
  let lo = 0;
  let hi = items.length;
  let error = whole;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    const e = await fails(mid);
    if (e === undefined) lo = mid;
    else {
      hi = mid;
      error = e;
    }
  }
  if (hi === 1) {
    // The empty prefix was never tried: when it fails too, no single item is to blame.
    const empty = await fails(0);
    if (empty !== undefined) return null;
  }
  return { index: hi - 1, error };
}

/** Identity of a log in `skipped_logs` and in the skip set: block hash and log index. */
export function logKey(e: Pick<DecodedEvent, "blockHash" | "logIndex">): string {
  return `${e.blockHash}:${e.logIndex}`;
}

/**
 * True when `error` is the content of a log (a value the write or the read-model code cannot
 * take), not the transport: PostgreSQL data/constraint/program errors (SQLSTATE classes 22, 23,
 * 2B, 42, 54, XX excluded), or a plain JavaScript error from building the rows. Connection
 * failures and the indexer's own errors (`IndexerError`: RPC failures, chain mismatches, fatal
 * conditions, database outages) are never isolated.
 */
export function isDataError(error: unknown): boolean {
  if (error instanceof IndexerError) return false;
  const e = error as { code?: unknown; name?: string } | null;
  if (!e || typeof e !== "object") return false;
  if (typeof e.code === "string") {
    if (/^[0-9A-Z]{5}$/.test(e.code)) return /^(22|23|2B|42|54)/.test(e.code);
    return false; // ECONNRESET, EPIPE, …
  }
  return (
    error instanceof RangeError ||
    error instanceof TypeError ||
    error instanceof SyntaxError ||
    e.name === "Error"
  );
}
