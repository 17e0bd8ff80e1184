/**
 * Rule: a token's lifecycle. On the wire (`curve.lifecycle`) it is `active` until the curve's
 * `Graduated` log and `graduated` from then on; `graduation.phase` is `graduated` once present.
 * Stored as `tokens.lifecycle` with the wire's values (the indexer writes {@link lifecycleOf}; the
 * Token object and `pricing.source` read the column).
 */

/** `tokens.lifecycle` and the wire's `curve.lifecycle`. */
export const LIFECYCLES = ["active", "graduated"] as const;

/** A token's lifecycle. */
export type Lifecycle = (typeof LIFECYCLES)[number];

/** The lifecycle of a token whose curve has (`true`) or has not graduated. */
export function lifecycleOf(graduated: boolean): Lifecycle {
  return graduated ? "graduated" : "active";
}
