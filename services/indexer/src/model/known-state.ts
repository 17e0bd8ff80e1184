import { CURVE_ALLOCATION, type CurveState, isToken0, TOTAL_SUPPLY } from "@tmi/shared/chain";
import type { TokenPlatformContracts } from "@tmi/shared/market";
import type { DecodedEvent, DecodedEventOf } from "../decode/event-decoder.js";

/** A chain position of a log (block number, log index). */
export interface LogPosition {
  blockNumber: number;
  logIndex: number;
}

/**
 * What the indexer keeps in memory about a launched token: its platform contracts (discovered
 * from the launch and graduation logs, never listed by hand), the running curve state and the
 * graduation position. Read from `tokens` when a range first names the token; forgotten (and read
 * again on demand) after a failed write or a reorg.
 */
export interface TokenInfo extends TokenPlatformContracts {
  address: string;
  creator: string;
  /** The token's own curve (TokenLaunchedV3.curve). */
  curve: string;
  /** Canonical Uniswap V3 pool (TokenLaunchedV3.canonicalPool). */
  pool: string;
  /** The token sorts below WETH: token0 of its pool. */
  tokenIsToken0: boolean;
  initialSupply: bigint;
  graduationThreshold: bigint;
  // feeManager … traderRewardsVault: the platform contracts (TokenPlatformContracts), learned from logs.
  /** Position of the token's `Graduated`; null before. Pool swaps count only after it. */
  graduatedAt: LogPosition | null;
  /** Curve state after the last applied event (soldSupply, reserveCoordinate, graduated). */
  curveState: CurveState;
}

/**
 * The configured ETH/USD feed's contracts (resolved at start: `sync/chain-contracts.ts`).
 */
export interface FeedContracts {
  /**
   * The configured Chainlink proxy (emitter of `AggregatorConfirmed`: it replaced its aggregator),
   * or null when the configured feed is an aggregator itself.
   */
  proxy: string | null;
  /**
   * The emitters of the feed's `AnswerUpdated`: every phase's aggregator of the proxy (or the
   * configured aggregator), lowercase.
   */
  aggregators: readonly string[];
}

/**
 * The address book that decides which logs belong to the platform: the factory (configured), and
 * per token its curve, canonical pool, fee manager and graduation manager, all learned from logs;
 * and the ETH/USD feed's aggregators (configured phases, grown by its proxy's `AggregatorConfirmed`).
 */
export class KnownState {
  /** token address → info */
  readonly tokens = new Map<string, TokenInfo>();
  /** curve address → token address */
  readonly curves = new Map<string, string>();
  /** pool address → token address */
  readonly pools = new Map<string, string>();
  /** LP custodian address → token address */
  readonly custodians = new Map<string, string>();
  /** The feed's proxy (accepted emitter of `AggregatorConfirmed`), or null. */
  readonly feedProxy: string | null;
  /**
   * Accepted emitters of `AnswerUpdated`: the feed's aggregators of every phase, and those its proxy
   * confirmed since (never forgotten: a superset after a reorg, as the emitter set).
   */
  readonly feedAggregators: Set<string>;

  /**
   * @param factory the V3 factory (lowercase): the only accepted emitter of `TokenLaunchedV3`.
   * @param weth wrapped ether (lowercase): decides each token's order in its pool.
   * @param feed the ETH/USD feed whose `AnswerUpdated` is recorded, or null.
   */
  constructor(
    readonly factory: string,
    readonly weth: string,
    feed: FeedContracts | null,
  ) {
    this.feedProxy = feed?.proxy ?? null;
    this.feedAggregators = new Set(feed?.aggregators ?? []);
  }

  /** Registers a token (launch, or read from `tokens`). */
  addToken(info: TokenInfo): void {
    this.tokens.set(info.address, info);
    this.curves.set(info.curve, info.address);
    this.pools.set(info.pool, info.address);
    if (info.custodian !== null) this.custodians.set(info.custodian, info.address);
  }

  /**
   * Forgets one token and its contracts (evicted from the cache, or touched by a range that was
   * not committed or was reverted); read again from `tokens` when a range names it. Returns
   * whether it was held.
   */
  removeToken(address: string): boolean {
    const info = this.tokens.get(address);
    if (!info) return false;
    this.tokens.delete(address);
    if (this.curves.get(info.curve) === address) this.curves.delete(info.curve);
    if (this.pools.get(info.pool) === address) this.pools.delete(info.pool);
    if (info.custodian !== null && this.custodians.get(info.custodian) === address)
      this.custodians.delete(info.custodian);
    return true;
  }

  /** Forgets every token (after a failed write or a reorg: memory may be ahead of the database). */
  clear(): void {
    this.tokens.clear();
    this.curves.clear();
    this.pools.clear();
    this.custodians.clear();
  }
}

/** A launch found in a range: the token row to insert once its name and symbol are read. */
export interface Launch {
  token: string;
  /** The launch event (TokenLaunchedV3). */
  event: DecodedEvent;
}

/** Result of {@link selectEvents}. */
export interface Selection {
  /** The accepted events, in chain order. */
  events: DecodedEvent[];
  /** Tokens launched in the range (their `name()`/`symbol()` must be read before building). */
  launches: Launch[];
  /** Transaction hashes of accepted pool Swaps (their senders are the traders). */
  swapTransactions: Set<string>;
}

const before = (a: LogPosition, b: LogPosition) =>
  a.blockNumber < b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex < b.logIndex);

/**
 * Pass 2 of {@link selectEvents}: true when `e` comes from the contract that `state` (after pass 1)
 * names for it — the acceptance rules listed there.
 * @param launchTx transaction hash → token launched in it (in this range).
 */
function accepted(e: DecodedEvent, state: KnownState, launchTx: Map<string, string>): boolean {
  switch (e.name) {
    case "TokenLaunchedV3":
      return e.address === state.factory && launchTx.get(e.transactionHash) === e.args.token;
    case "LaunchRegistered": {
      const info = state.tokens.get(e.args.token);
      return (
        info !== undefined && launchTx.get(e.transactionHash) === e.args.token && e.args.curve === info.curve
      );
    }
    case "TokenRegistered": {
      const info = state.tokens.get(e.args.token);
      return (
        info !== undefined &&
        info.feeManager === e.address &&
        launchTx.get(e.transactionHash) === info.address
      );
    }
    case "FeesDeposited": {
      const info = state.tokens.get(e.args.token);
      return info !== undefined && info.feeManager === e.address && e.args.curve === info.curve;
    }
    case "TokensBought":
    case "TokensSold":
    case "Graduated": {
      const token = state.curves.get(e.address);
      return token !== undefined && token === e.args.token;
    }
    case "GraduationReserveForwarded":
      return state.curves.has(e.address);
    case "GraduatedV3": {
      const info = state.tokens.get(e.args.token);
      return info !== undefined && info.graduationManager !== null && info.graduationManager === e.address;
    }
    case "ResidualDeposited":
      return state.tokens.get(e.args.launchToken)?.escrow === e.address;
    case "PermanentFeesCollected":
      return state.custodians.has(e.address);
    case "PermanentLPFeesAccrued": {
      const info = state.tokens.get(e.args.launchToken);
      return info !== undefined && info.feeVault === e.address && info.custodian === e.args.custodian;
    }
    case "CommunityLPFeesForwarded":
    case "TraderRewardsLPFeesForwarded": {
      const info = state.tokens.get(e.args.launchToken);
      const vault = e.name === "CommunityLPFeesForwarded" ? info?.communityVault : info?.traderRewardsVault;
      return info !== undefined && info.feeVault === e.address && vault === e.args.vault;
    }
    case "Transfer":
      return state.tokens.has(e.address);
    case "Swap": {
      const token = state.pools.get(e.address);
      const graduatedAt = token === undefined ? null : state.tokens.get(token)!.graduatedAt;
      return graduatedAt !== null && before(graduatedAt, e);
    }
    case "AnswerUpdated":
      return state.feedAggregators.has(e.address);
    case "AggregatorConfirmed":
      return state.feedProxy !== null && e.address === state.feedProxy;
  }
}

/**
 * Keeps the logs of a block range that come from the platform, registering in `state` the tokens
 * and contracts it discovers. `events` must be in chain order. Two passes, because the logs that
 * name a contract can follow the logs it emits in the same transaction (the launch's `Transfer`
 * mint, `LaunchRegistered` and `TokenRegistered` precede `TokenLaunchedV3`; a graduation's
 * `GraduatedV3` precedes the `Graduated` that names its manager).
 *
 * Acceptance (an impostor emitting the same signatures from another address changes nothing):
 * - `TokenLaunchedV3` only from the factory;
 * - `LaunchRegistered`/`TokenRegistered` only in the launch transaction of the token they name;
 * - curve events only from a known curve, for that curve's token;
 * - `GraduatedV3` only from the manager named in the token's `Graduated`;
 * - `FeesDeposited` only from the fee manager that registered the token, for its curve;
 * - `ResidualDeposited` only in the graduation transaction of the token it names (its emitter is
 *   the token's residual escrow from then on);
 * - `PermanentFeesCollected` only from a known LP custodian; `PermanentLPFeesAccrued` only in such
 *   a collection of the token it names, naming that token's custodian (its emitter is the token's
 *   permanent LP fee vault from then on);
 * - `CommunityLPFeesForwarded` / `TraderRewardsLPFeesForwarded` only from the token's fee vault
 *   (the vault they name is the token's community / trader-rewards vault from then on);
 * - `Swap` only from a canonical pool, after its token's `Graduated`;
 * - `Transfer` only from a known token;
 * - `AnswerUpdated` only from an aggregator of the configured feed (any phase's);
 *   `AggregatorConfirmed` only from the feed's proxy, whose new aggregator it adds.
 * @dev mutates `state` (tokens launched, managers, graduation positions); the caller forgets
 * state from the database when the range is not committed.
 */
export function selectEvents(events: DecodedEvent[], state: KnownState): Selection {
  const launches: Launch[] = [];
  const launchTx = new Map<string, string>(); // transaction hash → token launched in it
  const graduationTx = new Map<string, string>(); // transaction hash → token graduated in it
  // Pass 1: launches and graduations (the logs that name the contracts).
  for (const e of events) {
    if (e.name === "TokenLaunchedV3") {
      if (e.address !== state.factory) continue;
      const token = e.args.token;
      if (state.tokens.has(token)) continue;
      const curve = e.args.curve;
      const pool = e.args.canonicalPool;
      if (state.curves.has(curve) || state.pools.has(pool)) continue;
      state.addToken({
        address: token,
        creator: e.args.creator,
        curve,
        pool,
        tokenIsToken0: isToken0(token, state.weth),
        initialSupply: e.args.totalSupply ?? TOTAL_SUPPLY,
        graduationThreshold: e.args.curveAllocation ?? CURVE_ALLOCATION,
        feeManager: null,
        graduationManager: null,
        custodian: null,
        escrow: null,
        feeVault: null,
        communityVault: null,
        traderRewardsVault: null,
        graduatedAt: null,
        curveState: { soldSupply: 0n, reserveCoordinate: 0n, graduated: false },
      });
      launches.push({ token, event: e });
      launchTx.set(e.transactionHash, token);
    } else if (e.name === "Graduated") {
      const token = state.curves.get(e.address);
      if (token === undefined || token !== e.args.token) continue;
      const info = state.tokens.get(token)!;
      if (info.graduatedAt !== null) continue;
      info.graduationManager = e.args.graduationManager;
      info.graduatedAt = { blockNumber: e.blockNumber, logIndex: e.logIndex };
      graduationTx.set(e.transactionHash, token);
    } else if (e.name === "AggregatorConfirmed" && e.address === state.feedProxy) {
      state.feedAggregators.add(e.args.latest);
    }
  }
  // Pass 1b: the contracts named by the logs of pass 1's launches and graduations.
  const accruals: DecodedEventOf<"PermanentLPFeesAccrued">[] = [];
  const forwards: DecodedEventOf<"CommunityLPFeesForwarded" | "TraderRewardsLPFeesForwarded">[] = [];
  const collectTx = new Map<string, string>(); // transaction hash → token whose LP fees it collected
  for (const e of events) {
    switch (e.name) {
      case "TokenRegistered":
        if (launchTx.get(e.transactionHash) === e.args.token) {
          const info = state.tokens.get(e.args.token)!;
          if (info.feeManager === null && e.args.curve === info.curve) info.feeManager = e.address;
        }
        break;
      case "GraduatedV3": {
        const info = state.tokens.get(e.args.token);
        if (info && info.custodian === null && info.graduationManager === e.address) {
          info.custodian = e.args.custodian;
          state.custodians.set(info.custodian, info.address);
        }
        break;
      }
      case "ResidualDeposited": {
        // The escrow deposits inside the graduation, so only in the graduation transaction of a
        // token graduated in this range.
        const token = graduationTx.get(e.transactionHash);
        const info =
          token !== undefined && token === e.args.launchToken ? state.tokens.get(token) : undefined;
        if (info && info.escrow === null) info.escrow = e.address;
        break;
      }
      case "PermanentFeesCollected": {
        const token = state.custodians.get(e.address);
        if (token !== undefined) collectTx.set(e.transactionHash, token);
        break;
      }
      case "PermanentLPFeesAccrued":
        accruals.push(e);
        break;
      case "CommunityLPFeesForwarded":
      case "TraderRewardsLPFeesForwarded":
        forwards.push(e);
        break;
    }
  }
  // The vault that accrues a token's fees in its custodian's collection is its fee vault.
  for (const e of accruals) {
    const token = collectTx.get(e.transactionHash);
    const info = token !== undefined && token === e.args.launchToken ? state.tokens.get(token) : undefined;
    if (info && info.feeVault === null && e.args.custodian === info.custodian) info.feeVault = e.address;
  }
  // A forward by the token's fee vault names the community or trader-rewards vault it funds.
  for (const e of forwards) {
    const info = state.tokens.get(e.args.launchToken);
    if (!info || info.feeVault !== e.address) continue;
    if (e.name === "CommunityLPFeesForwarded") info.communityVault ??= e.args.vault;
    else info.traderRewardsVault ??= e.args.vault;
  }

  // Pass 2: accept.
  const selected: DecodedEvent[] = [];
  const swapTransactions = new Set<string>();
  for (const e of events) {
    if (!accepted(e, state, launchTx)) continue;
    selected.push(e);
    if (e.name === "Swap") swapTransactions.add(e.transactionHash);
  }
  return { events: selected, launches, swapTransactions };
}
