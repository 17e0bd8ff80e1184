import type { CurveState } from "@tmi/shared/chain";
import type { TokenPlatformContracts } from "@tmi/shared/market";

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
  /** Block of the token's `TokenLaunchedV3` (the launch block of the sniper window). */
  launchBlock: number;
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
  /** Permanent LP fee vault → a held token whose vault it is (the vault is shared by the deployment's tokens). */
  readonly feeVaults = new Map<string, string>();
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
   * @param rewardsDistributor the trader-rewards distributor the deployment's trader-rewards vault
   *   is bound to (lowercase; its `distributor()`): the only accepted emitter of
   *   `DistributionPublished` and `RewardClaimed`; null when the deployment has none (none accepted).
   */
  constructor(
    readonly factory: string,
    readonly weth: string,
    feed: FeedContracts | null,
    readonly rewardsDistributor: string | null = null,
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
    if (info.feeVault !== null) this.feeVaults.set(info.feeVault, info.address);
  }

  /** Records `vault` as the token's permanent LP fee vault (learned from its first accrual). */
  setFeeVault(info: TokenInfo, vault: string): void {
    info.feeVault = vault;
    this.feeVaults.set(vault, info.address);
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
    if (info.feeVault !== null && this.feeVaults.get(info.feeVault) === address)
      this.feeVaults.delete(info.feeVault);
    return true;
  }

  /** Forgets every token (after a failed write or a reorg: memory may be ahead of the database). */
  clear(): void {
    this.tokens.clear();
    this.curves.clear();
    this.pools.clear();
    this.custodians.clear();
    this.feeVaults.clear();
  }
}
