import { type Launch, runInPasses, type SelectionScan } from "../events/declaration.js";
import { type DecodedEvent, declarationOf } from "../events/index.js";
import type { KnownState } from "../model/known-state.js";

export type { Launch } from "../events/declaration.js";

/** Result of {@link selectEvents}. */
export interface Selection {
  /** The accepted events, in chain order. */
  events: DecodedEvent[];
  /** Tokens launched in the range (their `name()`/`symbol()` must be read before building). */
  launches: Launch[];
  /** Transaction hashes of accepted pool Swaps (their senders are the traders). */
  swapTransactions: Set<string>;
}

/**
 * Keeps the logs of a block range that come from the platform, registering in `state` the tokens
 * and contracts it discovers. `events` must be in chain order. The logs that name a contract can
 * follow the logs it emits in the same transaction (the launch's `Transfer` mint,
 * `LaunchRegistered` and `TokenRegistered` precede `TokenLaunchedV3`; a graduation's `GraduatedV3`
 * precedes the `Graduated` that names its manager), so each declaration's `learn` runs in its pass
 * (1: launches, graduations, the feed's confirmations; 2: the contracts they name; 3, 4: the
 * contracts those name), every pass over the range in chain order after the one before; then each
 * event is kept when its declaration's `accept` holds (an impostor emitting the same signatures
 * from another address changes nothing). The rules: docs/indexer.md, "Acceptance".
 * @dev mutates `state` (tokens launched, managers, graduation positions); the caller forgets
 * state from the database when the range is not committed.
 */
export function selectEvents(events: DecodedEvent[], state: KnownState): Selection {
  const scan: SelectionScan = {
    launches: [],
    launchTx: new Map(),
    graduationTx: new Map(),
    collectTx: new Map(),
  };
  runInPasses(
    events,
    (e) => declarationOf(e.name).learn,
    (learn, e) => learn.apply(e, state, scan),
  );

  const selected: DecodedEvent[] = [];
  const swapTransactions = new Set<string>();
  for (const e of events) {
    if (!declarationOf(e.name).accept(e, state, scan)) continue;
    selected.push(e);
    if (e.name === "Swap") swapTransactions.add(e.transactionHash);
  }
  return { events: selected, launches: scan.launches, swapTransactions };
}
