import type { DecodedEvent } from "../decode/event-decoder.js";

/** What the indexer keeps in memory about a launched token (reloaded from `tokens` on start and after rollbacks). */
export interface TokenInfo {
  address: string;
  creator: string;
  initialSupply: bigint;
  /** Pool address once graduated. */
  pool: string | null;
  /** True when the token is token0 of its pool; null until known. */
  tokenIsToken0: boolean | null;
}

/**
 * The address set that decides which logs belong to the indexer: launched tokens (their
 * `Transfer`s) and graduated pools (their `Swap`s). Discovered from the launchpad's own events.
 */
export class KnownState {
  readonly tokens = new Map<string, TokenInfo>();
  /** pool address → token address */
  readonly pools = new Map<string, string>();

  constructor(
    readonly launchpad: string,
    readonly feed: string | null,
  ) {}

  addToken(info: TokenInfo): void {
    this.tokens.set(info.address, info);
    if (info.pool) this.pools.set(info.pool, info.address);
  }

  clear(): void {
    this.tokens.clear();
    this.pools.clear();
  }
}

/** Result of {@link selectEvents}. */
export interface Selection {
  /** The events to store, in chain order. */
  events: DecodedEvent[];
  /** Pools graduated in this range whose token order is not yet known (pool → token). */
  newPools: Map<string, string>;
  /** Transaction hashes of the selected pool Swaps (their senders are the traders). */
  swapTransactions: Set<string>;
}

/**
 * Keeps the logs of a block range that concern the indexer and registers the tokens and pools
 * it discovers in `state` (two passes, so that a token's `Transfer`s that precede its
 * `TokenCreated` in the same transaction, and pools graduated in the range, are kept):
 * launchpad events of the launchpad, `AnswerUpdated` of the feed, `Transfer`s of known
 * tokens, `Swap`s of known pools. `events` must be in chain order.
 */
export function selectEvents(events: DecodedEvent[], state: KnownState): Selection {
  const newPools = new Map<string, string>();
  for (const event of events) {
    if (event.address !== state.launchpad) continue;
    if (event.name === "TokenCreated") {
      const token = event.args.token as string;
      if (!state.tokens.has(token)) {
        state.addToken({
          address: token,
          creator: event.args.creator as string,
          initialSupply: event.args.initialSupply as bigint,
          pool: null,
          tokenIsToken0: null,
        });
      }
    } else if (event.name === "TokenGraduated") {
      const token = event.args.token as string;
      const pool = event.args.pool as string;
      const info = state.tokens.get(token);
      if (info && info.pool !== pool) {
        info.pool = pool;
        info.tokenIsToken0 = null;
        state.pools.set(pool, token);
        newPools.set(pool, token);
      }
    }
  }
  const selected: DecodedEvent[] = [];
  const swapTransactions = new Set<string>();
  for (const event of events) {
    switch (event.name) {
      case "TokenCreated":
      case "TokensBought":
      case "TokensSold":
      case "TokenGraduated":
        if (event.address === state.launchpad) selected.push(event);
        break;
      case "Transfer":
        if (state.tokens.has(event.address)) selected.push(event);
        break;
      case "Swap":
        if (state.pools.has(event.address)) {
          selected.push(event);
          swapTransactions.add(event.transactionHash);
        }
        break;
      case "AnswerUpdated":
        if (state.feed !== null && event.address === state.feed) selected.push(event);
        break;
    }
  }
  return { events: selected, newPools, swapTransactions };
}
