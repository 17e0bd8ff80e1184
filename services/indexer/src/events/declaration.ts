// What one contract event is to the indexer, in one place: a declaration per event (its ABI, how
// the log filter fetches it, the known-state keys it needs, how it grows the known state and the
// emitter set, its acceptance rule and its handler). `events/index.ts` lists them; the decoder,
// the log filter, selection and key loading are loops over that list.
import type { AbiEventName, DecodedEventOf } from "../decode/event-decoder.js";
import type { KnownState } from "../model/known-state.js";
import type { EventPosition, RangeBuilder } from "./handler-context.js";

/** A launch found in a range: the token row to insert once its name and symbol are read. */
export interface Launch {
  token: string;
  /** The launch event (TokenLaunchedV3). */
  event: DecodedEventOf<"TokenLaunchedV3">;
}

/**
 * What selection learned of a range so far (see `selectEvents`): the launches, and which
 * transaction launched, graduated or collected the LP fees of which token.
 */
export interface SelectionScan {
  launches: Launch[];
  /** transaction hash → token launched in it (in this range). */
  launchTx: Map<string, string>;
  /** transaction hash → token graduated in it (in this range). */
  graduationTx: Map<string, string>;
  /** transaction hash → token whose LP fees its custodian collected in it. */
  collectTx: Map<string, string>;
}

/**
 * Where an event's known-state keys go: loading (the keys not in memory are read from `tokens`)
 * and the cache's bookkeeping (the held tokens a range names). Addresses lowercase.
 */
export interface KeySink {
  /** A token the event names (argument or emitter). */
  token(address: string): void;
  /** A curve the event names. */
  curve(address: string): void;
  /** A canonical pool the event names. */
  pool(address: string): void;
  /** A permanent LP fee vault the event comes from (a claim names no token): one token of that vault. */
  feeVault(address: string): void;
  /** A launch: the token it creates, with its curve and pool. */
  launch(token: string, curve: string, pool: string): void;
}

/** The log filter's emitter set as a declaration grows it (see `EmitterSet`). */
export interface EmitterGrowth {
  readonly factory: string;
  readonly feedProxy: string | null;
  /** Adds a token launched by the factory (and remembers its curve and pool); false when held. */
  launched(token: string, curve: string, pool: string): boolean;
  /** Adds the pool of the token of `curve` when `token` is that curve's; false otherwise or when held. */
  graduated(curve: string, token: string): string | null;
  /** Adds an aggregator of the feed; false when held. */
  aggregator(address: string): boolean;
}

/** Context of a handler besides the event: its position and the range's builder. */
export type EventHandler<N extends AbiEventName = AbiEventName> = (
  event: DecodedEventOf<N>,
  position: EventPosition,
  b: RangeBuilder,
) => void;

/**
 * The declaration of contract event `N`.
 * - `abi`: the const ABI of the contract that declares it (the event is found there by name);
 * - `filter`: `platform` when only the platform's contracts emit its signature (fetched by topic,
 *   no address), `emitter` when every ERC-20/pool/aggregator does (fetched from known emitters);
 * - `keys`: the tokens, curves and pools it names, read from `tokens` before selection;
 * - `learn`: what it teaches the known state before acceptance, in a pass (1: launches and
 *   graduations, the logs that name contracts; 2: the contracts they name; 3, 4: the contracts
 *   those name), each pass over the range in chain order after the previous one;
 * - `grow`: what it adds to the log filter's emitter set (pass 1 before 2 before 3);
 * - `accept`: true when it comes from the contract the known state names for it;
 * - `handle`: its rows (through the read models' accumulators).
 */
export interface EventDeclaration<N extends AbiEventName = AbiEventName> {
  abi: readonly unknown[];
  filter: "platform" | "emitter";
  keys?(e: DecodedEventOf<N>, k: KeySink): void;
  learn?: { pass: 1 | 2 | 3 | 4; apply(e: DecodedEventOf<N>, state: KnownState, scan: SelectionScan): void };
  grow?: { pass: 1 | 2 | 3; apply(e: DecodedEventOf<N>, set: EmitterGrowth, added: string[]): void };
  accept(e: DecodedEventOf<N>, state: KnownState, scan: SelectionScan): boolean;
  handle: EventHandler<N>;
}

/**
 * Declarations by on-chain name, each checked against its name's ABI arguments
 * (`declareEvents({ TokensBought: {...} })`).
 */
export function declareEvents<
  T extends { [N in keyof T]: N extends AbiEventName ? EventDeclaration<N> : never },
>(declarations: T): T {
  return declarations;
}

/**
 * Runs each of `events`' stage (a declaration's `learn` or `grow`) in its pass: pass 1 as the
 * events are read, then every later pass over its events, in chain order, after the one before.
 */
export function runInPasses<E, S extends { pass: number }>(
  events: readonly E[],
  stageOf: (e: E) => S | undefined,
  run: (stage: S, e: E) => void,
): void {
  const later: E[][] = [];
  for (const e of events) {
    const stage = stageOf(e);
    if (stage === undefined) continue;
    if (stage.pass === 1) {
      run(stage, e);
      continue;
    }
    const pass = later[stage.pass - 2];
    if (pass) pass.push(e);
    else later[stage.pass - 2] = [e];
  }
  for (const pass of later) if (pass) for (const e of pass) run(stageOf(e)!, e);
}

/** `keys` of an event naming its token and that token's curve (`token`, `curve` arguments). */
export const tokenAndCurveKeys = (e: { args: { token: string; curve: string } }, k: KeySink): void => {
  k.token(e.args.token);
  k.curve(e.args.curve);
};

/** `keys` of a graduation custody event naming its token (`launchToken` argument). */
export const launchTokenKey = (e: { args: { launchToken: string } }, k: KeySink): void =>
  k.token(e.args.launchToken);

/** The known-state map of each contract kind that names its token by emitting. */
const HELD_BY_KIND = {
  token: (state: KnownState) => state.tokens,
  curve: (state: KnownState) => state.curves,
  pool: (state: KnownState) => state.pools,
} as const;

/**
 * `keys` and `accept` of an event whose emitter names its token (a launched token, its curve or
 * its canonical pool): the emitter is the key, and the event is accepted when the known state
 * holds that emitter. A declaration may still give its own `accept` after it (a pool's `Swap`).
 */
export function knownEmitter(kind: keyof typeof HELD_BY_KIND): {
  keys(e: { address: string }, k: KeySink): void;
  accept(e: { address: string }, state: KnownState): boolean;
} {
  const held = HELD_BY_KIND[kind];
  return {
    keys: (e, k) => k[kind](e.address),
    accept: (e, state) => held(state).has(e.address),
  };
}

/**
 * `learn` (its apply) and `accept` of an event by which a token's `emitter` (its fee manager or
 * LP fee vault) funds one of the two ecosystem vaults, naming it (`vault` argument): the event
 * named `community` names the token's community vault, the other its trader-rewards vault. The
 * first such event teaches the vault; only the token's own contract naming the token's vault counts.
 */
export function fundsVault<E extends { address: string; name: string; args: { vault: string } }>(
  emitter: "feeManager" | "feeVault",
  tokenOf: (e: E) => string,
  community: string,
): { learn(e: E, state: KnownState): void; accept(e: E, state: KnownState): boolean } {
  const field = (e: E) => (e.name === community ? "communityVault" : "traderRewardsVault");
  return {
    learn(e, state) {
      const info = state.tokens.get(tokenOf(e));
      if (!info || info[emitter] !== e.address) return;
      info[field(e)] ??= e.args.vault;
    },
    accept(e, state) {
      const info = state.tokens.get(tokenOf(e));
      return info !== undefined && info[emitter] === e.address && info[field(e)] === e.args.vault;
    },
  };
}
