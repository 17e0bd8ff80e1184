import { type EmitterGrowth, runInPasses } from "../events/declaration.js";
import {
  type DecodedEvent,
  declarationOf,
  EVENT_NAMES,
  EVENTS,
  type EventName,
  TOPIC0,
} from "../events/index.js";
import type { FeedContracts } from "../model/known-state.js";

/**
 * The log filter scheme (docs/indexer.md, "Log filter"). Two kinds of `eth_getLogs` per block range:
 *
 * 1. **Platform topics, no address**: every event whose signature only the platform's contracts
 *    emit (launch, registrations, fee deposits, curve trades and graduation, settlement). Their
 *    emitters are many (one curve per token) but their volume is the platform's own activity, so
 *    one topic-only query per range fetches them all, whatever the number of tokens; the handlers'
 *    emitter checks drop an impostor's copies.
 * 2. **Generic topics by emitter**: `Transfer` (every ERC-20 of the chain emits it), `Swap` (every
 *    Uniswap V3 pool) and `AnswerUpdated` (every Chainlink aggregator) are fetched only from the
 *    platform's own emitters: known tokens, canonical pools of graduated tokens, the ETH/USD feed,
 *    in address chunks of `LOG_ADDRESS_CHUNK`. One query per chunk carries all three topic0s
 *    (a token emits no `Swap`, a pool no `Transfer`: nothing extra is fetched).
 *
 * The emitter set grows from the range's own platform logs before its generic query (a token's
 * mint `Transfer` is in its launch transaction; a pool's first swaps may follow its graduation in
 * the same range), and from ranges dispatched earlier (see {@link EmitterSet}).
 */

/**
 * Events fetched by emitter address (their signatures are not the platform's alone): the
 * declarations with filter `emitter`.
 */
export const GENERIC_EVENTS: readonly EventName[] = EVENT_NAMES.filter(
  (name) => EVENTS[name].filter === "emitter",
);

/** topic0 of every event fetched without an address filter (the declarations with filter `platform`). */
export const PLATFORM_TOPICS: readonly string[] = EVENT_NAMES.filter(
  (name) => EVENTS[name].filter === "platform",
).map((name) => TOPIC0[name]);

/** topic0 of the events fetched by emitter address. */
export const GENERIC_TOPICS: readonly string[] = GENERIC_EVENTS.map((name) => TOPIC0[name]);

/** An `eth_getLogs` filter without its block range. */
export interface LogFilter {
  address?: string[];
  topics: (string[] | string | null)[];
}

/** The platform-topic filter (kind 1). */
export function platformFilter(): LogFilter {
  return { topics: [[...PLATFORM_TOPICS]] };
}

/** The generic topics without an address (the `topics` strategy: filtered in memory by {@link EmitterSet.has}). */
export function genericTopicFilter(): LogFilter {
  return { topics: [[...GENERIC_TOPICS]] };
}

/** The generic-topic filters (kind 2) for `addresses`, `chunk` addresses each (none when empty). */
export function emitterFilters(addresses: Iterable<string>, chunk: number): LogFilter[] {
  const list = [...addresses];
  const out: LogFilter[] = [];
  for (let i = 0; i < list.length; i += chunk) {
    out.push({ address: list.slice(i, i + chunk), topics: [[...GENERIC_TOPICS]] });
  }
  return out;
}

/** Addresses remembered as no emitter before that memory is cleared (~100 bytes each). */
const ABSENT_MAX = 200_000;

/** A token as the emitter set knows it. */
export interface EmitterToken {
  token: string;
  curve: string;
  pool: string;
  graduated: boolean;
}

/**
 * The addresses whose generic events are fetched: tokens (their `Transfer`s), the canonical pools
 * of graduated tokens (their `Swap`s) and the feed's aggregators (their `AnswerUpdated`). Seeded from the indexed tokens (addresses only:
 * a million tokens cost about 100 MB here), then grown in dispatch order by every fetched range's
 * platform logs, through their declarations' `grow` (events/*):
 * - `TokenLaunchedV3` from the factory adds the token (and remembers its curve and pool);
 * - `AggregatorConfirmed` from the feed's proxy adds its new aggregator;
 * - `Graduated` from a known curve, for that curve's token, adds the token's pool.
 * Only these emitter checks matter here: an impostor's `TokenLaunchedV3` naming a popular token
 * must not make the indexer pull that token's transfers. The full acceptance rules are the
 * handlers' (`selectEvents`).
 */
export class EmitterSet implements EmitterGrowth {
  readonly tokens = new Set<string>();
  readonly pools = new Set<string>();
  /** curve → token, pool (to resolve `Graduated`). */
  private readonly curves = new Map<string, { token: string; pool: string }>();

  /**
   * True when the set holds every indexed token and graduated pool (seeded in full): `has` is
   * then exact and `addresses` lists every emitter. False when seeded with part of a large set
   * (start-up reads no more than a bounded number of addresses): `has` is exact only for the
   * addresses {@link resolve}d before.
   */
  complete = true;
  /** Indexed tokens when incomplete (an estimate; the planner's cost of the emitter queries). */
  private indexedTokens = 0;
  /** Addresses looked up and found to be no emitter (cleared when it exceeds {@link ABSENT_MAX}). */
  private readonly absent = new Set<string>();

  /** The feed's proxy (its `AggregatorConfirmed` adds an aggregator), or null. */
  readonly feedProxy: string | null;
  /** The feed's aggregators: every phase's, and those confirmed since. */
  readonly feedAggregators: Set<string>;

  constructor(
    readonly factory: string,
    feed: FeedContracts | null,
  ) {
    this.feedProxy = feed?.proxy ?? null;
    this.feedAggregators = new Set(feed?.aggregators ?? []);
  }

  /**
   * Marks the set as holding only part of the `count` indexed tokens: addresses met in topic
   * queries are then {@link resolve}d against the database.
   */
  partial(count: number): void {
    this.complete = false;
    this.indexedTokens = count;
  }

  /**
   * Of `addresses`, asks `lookup` (the database) about those neither held nor known to be absent,
   * and adds what it finds (tokens, graduated pools). Nothing to do when complete. Returns the
   * number of addresses asked about.
   */
  async resolve(
    addresses: Iterable<string>,
    lookup: (addresses: string[]) => Promise<{ tokens: string[]; pools: string[] }>,
  ): Promise<number> {
    if (this.complete) return 0;
    const ask = new Set<string>();
    for (const a of addresses) if (!this.has(a) && !this.absent.has(a)) ask.add(a);
    if (ask.size === 0) return 0;
    const found = await lookup([...ask]);
    for (const t of found.tokens) {
      this.tokens.add(t);
      ask.delete(t);
    }
    for (const p of found.pools) {
      this.pools.add(p);
      ask.delete(p);
    }
    if (this.absent.size + ask.size > ABSENT_MAX) this.absent.clear();
    for (const a of ask) this.absent.add(a);
    return found.tokens.length + found.pools.length + ask.size;
  }

  /** Tokens indexed (exact when complete, else the larger of the estimate and those held). */
  get tokenCount(): number {
    return this.complete ? this.tokens.size : Math.max(this.indexedTokens, this.tokens.size);
  }

  /** Adds an indexed (or discovered) token. */
  add(t: EmitterToken): void {
    this.tokens.add(t.token);
    this.curves.set(t.curve, { token: t.token, pool: t.pool });
    if (t.graduated) this.pools.add(t.pool);
  }

  /** Adds indexed tokens and graduated pools by address only (their curves are looked up when needed). */
  seed(tokens: Iterable<string>, pools: Iterable<string>): void {
    for (const t of tokens) this.tokens.add(t);
    for (const p of pools) this.pools.add(p);
  }

  /**
   * Tokens of `events`' `Graduated` logs whose curve this set does not know (seeded by address
   * only) and whose pool is not yet fetched: their curve and pool must be added ({@link add})
   * before {@link discover} can accept the graduation.
   */
  unresolved(events: readonly DecodedEvent[]): string[] {
    const out = new Set<string>();
    for (const e of events) {
      if (e.name !== "Graduated" || this.curves.has(e.address)) continue;
      const token = e.args.token as string;
      if (this.tokens.has(token) || !this.complete) out.add(token);
    }
    return [...out];
  }

  /** Number of addresses a generic query covers (an estimate when incomplete). */
  get size(): number {
    return this.tokenCount + this.pools.size + this.feedAggregators.size;
  }

  /** True when `address` (lowercase) is a known token, graduated pool or aggregator of the feed. */
  has(address: string): boolean {
    return this.tokens.has(address) || this.pools.has(address) || this.feedAggregators.has(address);
  }

  /**
   * Every address of the generic queries: tokens, graduated pools, the feed's aggregators.
   * @dev only when {@link complete}: an incomplete set lists the addresses it holds.
   */
  addresses(): string[] {
    return [...this.tokens, ...this.pools, ...this.feedAggregators];
  }

  /**
   * Grows the set from a range's platform events (chain order), each declaration's `grow` in its
   * pass (launches before the feed's confirmations before graduations); returns the addresses added.
   * @dev idempotent: the same range seen twice adds nothing the second time.
   */
  discover(events: readonly DecodedEvent[]): string[] {
    const added: string[] = [];
    runInPasses(
      events,
      (e) => declarationOf(e.name).grow,
      (grow, e) => grow.apply(e, this, added),
    );
    return added;
  }

  /** {@link EmitterGrowth.launched}: a token launched by the factory, unless held. */
  launched(token: string, curve: string, pool: string): boolean {
    if (this.tokens.has(token)) return false;
    this.add({ token, curve, pool, graduated: false });
    return true;
  }

  /** {@link EmitterGrowth.aggregator}: an aggregator of the feed, unless held. */
  aggregator(address: string): boolean {
    if (this.feedAggregators.has(address)) return false;
    this.feedAggregators.add(address);
    return true;
  }

  /** {@link EmitterGrowth.graduated}: the pool of `curve`'s token when it is `token`, unless held. */
  graduated(curve: string, token: string): string | null {
    const known = this.curves.get(curve);
    if (!known || known.token !== token || this.pools.has(known.pool)) return null;
    this.pools.add(known.pool);
    return known.pool;
  }

  /** A copy (a fetch pipeline grows its own; the committed state seeds the next). */
  clone(): EmitterSet {
    const copy = new EmitterSet(this.factory, {
      proxy: this.feedProxy,
      aggregators: [...this.feedAggregators],
    });
    if (!this.complete) copy.partial(this.indexedTokens);
    for (const a of this.absent) copy.absent.add(a);
    for (const t of this.tokens) copy.tokens.add(t);
    for (const p of this.pools) copy.pools.add(p);
    for (const [c, v] of this.curves) copy.curves.set(c, v);
    return copy;
  }
}
