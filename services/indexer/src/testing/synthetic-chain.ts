import {
  applyBuy,
  applySell,
  CURVE_ALLOCATION,
  type CurveState,
  INITIAL_CURVE_STATE,
  LP_ALLOCATION,
  PROTOCOL_VERSION,
  quoteBuy,
  quoteSell,
  TOTAL_SUPPLY,
} from "@tmi/shared/chain";
import type { DecodedArgs } from "../decode/event-decoder.js";
import type { DecodedEvent, EventName } from "../events/index.js";
import type { BlockHeader } from "../rpc/rpc-client.js";

/** A block of a {@link SyntheticChain}: header and decoded logs in chain order. */
export interface SyntheticBlock {
  header: BlockHeader;
  events: DecodedEvent[];
}

const hex = (n: number | bigint, width = 40) => `0x${n.toString(16).padStart(width, "0")}`;

/** An address made from a small number (for readable fixtures). */
export const addr = (n: number) => hex(n);

/**
 * One decoded log of `name` from `address` with `args`, at block 10, log index `logIndex` (one
 * transaction, fixed hashes): for unit tests of selection and the log filter.
 */
export function decodedEvent(name: EventName, address: string, args: object, logIndex = 0): DecodedEvent {
  return {
    name,
    address,
    blockNumber: 10,
    blockHash: `0x${"ab".repeat(32)}`,
    blockTimestamp: 1,
    transactionHash: `0x${"cd".repeat(32)}`,
    transactionIndex: 0,
    logIndex,
    args,
  } as DecodedEvent;
}

/**
 * Decoded V3 platform logs as the chain would produce them (same arguments, log order and curve
 * math as the contracts), without a node: for unit tests of selection and derivations, and for the
 * store's reorg tests. Every call appends one transaction to the current block.
 */
export class SyntheticChain {
  readonly blocks: SyntheticBlock[] = [];
  private readonly curves = new Map<
    string,
    { curve: string; pool: string; state: CurveState; creator: string }
  >();
  private txIndex = 0;
  private logIndex = 0;

  constructor(
    readonly platform: { factory: string; weth: string; feeManager: string; manager: string },
    /** Distinguishes the block and transaction hashes of two branches (see {@link fork}). */
    public branch = 1,
    readonly startTimestamp = 1_800_000_000,
  ) {}

  /** Starts block `number` (its parent is the previous block, or a made-up one). */
  block(number: number, timestamp?: number): this {
    const prev = this.blocks.at(-1);
    this.blocks.push({
      header: {
        number,
        hash: hex(BigInt(this.branch) * 10n ** 12n + BigInt(number), 64),
        parentHash: prev ? prev.header.hash : hex(number - 1, 64),
        timestamp: timestamp ?? this.startTimestamp + number * 12,
      },
      events: [],
    });
    this.txIndex = 0;
    this.logIndex = 0;
    return this;
  }

  /** Blocks started from now on belong to branch `branch` (other hashes than the shared prefix). */
  fork(branch: number): this {
    this.branch = branch;
    return this;
  }

  private tx(): { hash: string; index: number } {
    const b = this.blocks.at(-1)!;
    const index = this.txIndex++;
    return {
      hash: hex(BigInt(this.branch) * 10n ** 15n + BigInt(b.header.number) * 1000n + BigInt(index), 64),
      index,
    };
  }

  private emit(
    tx: { hash: string; index: number },
    address: string,
    name: EventName,
    args: DecodedArgs,
  ): void {
    const b = this.blocks.at(-1)!;
    b.events.push({
      name,
      address,
      blockNumber: b.header.number,
      blockHash: b.header.hash,
      blockTimestamp: b.header.timestamp,
      transactionHash: tx.hash,
      transactionIndex: tx.index,
      logIndex: this.logIndex++,
      args,
      // Synthetic logs carry what the decoder would produce for `name`; impostor logs (`raw`) may not.
    } as DecodedEvent);
  }

  /** `createToken`: mint to the curve, TokenRegistered, LaunchRegistered, TokenLaunchedV3 (last). */
  launch(creator: string, token: string, curve: string, pool: string, factory = this.platform.factory): this {
    const tx = this.tx();
    const { feeManager, manager } = this.platform;
    this.emit(tx, token, "Transfer", { from: addr(0), to: curve, value: TOTAL_SUPPLY });
    this.emit(tx, feeManager, "TokenRegistered", { token, curve, creator, payout: creator });
    const seed = hex(7, 64);
    this.emit(tx, manager, "LaunchRegistered", {
      token,
      curve,
      creator,
      pool,
      launchSeed: seed,
      candidateSalt: hex(1, 64),
      attemptIndex: 0n,
    });
    this.emit(tx, factory, "TokenLaunchedV3", {
      creator,
      token,
      curve,
      protocolVersion: PROTOCOL_VERSION,
      totalSupply: TOTAL_SUPPLY,
      curveAllocation: CURVE_ALLOCATION,
      lpAllocation: LP_ALLOCATION,
      initialCreatorPayout: creator,
      canonicalPool: pool,
      launchSeed: seed,
      candidateSalt: hex(1, 64),
      attemptIndex: 0n,
    });
    if (factory === this.platform.factory)
      this.curves.set(token, { curve, pool, state: { ...INITIAL_CURVE_STATE }, creator });
    return this;
  }

  /**
   * A curve buy of `gross` wei: Transfer curve → buyer, FeesDeposited, [graduation logs], TokensBought.
   * A buy that reaches graduation runs the graduation (custodian/escrow/position made up).
   */
  buy(token: string, buyer: string, gross: bigint): this {
    const c = this.curves.get(token)!;
    const q = quoteBuy(c.state, gross);
    const tx = this.tx();
    this.emit(tx, token, "Transfer", { from: c.curve, to: buyer, value: q.tokensOut });
    this.emit(tx, this.platform.feeManager, "FeesDeposited", {
      token,
      curve: c.curve,
      isBuy: true,
      totalFee: q.totalFee,
      creatorFee: q.creatorFee,
      protocolFee: q.protocolFee,
      communityFee: q.communityFee,
      traderRewardsFee: q.traderRewardsFee,
    });
    c.state = applyBuy(c.state, q);
    if (q.reachesGraduation) {
      const m = this.platform.manager;
      const escrow = addr(0xe5c0);
      this.emit(tx, token, "Transfer", { from: c.curve, to: m, value: LP_ALLOCATION });
      this.emit(tx, token, "Transfer", { from: m, to: c.pool, value: LP_ALLOCATION - 1000n });
      this.emit(tx, token, "Transfer", { from: m, to: escrow, value: 1000n });
      this.emit(tx, escrow, "ResidualDeposited", { launchToken: token, asset: token, amount: 1000n });
      this.emit(tx, m, "GraduatedV3", { token, custodian: addr(0xc057), tokenId: 42n, liquidity: 123_456n });
      this.emit(tx, c.curve, "GraduationReserveForwarded", {
        terminalReserveCoordinate: c.state.reserveCoordinate,
        ethForwarded: c.state.reserveCoordinate,
      });
      this.emit(tx, c.curve, "Graduated", {
        token,
        graduationManager: m,
        tokenAmount: LP_ALLOCATION,
        ethAmount: c.state.reserveCoordinate,
        soldSupply: c.state.soldSupply,
      });
    }
    this.emit(tx, c.curve, "TokensBought", {
      token,
      buyer,
      submittedGross: q.submittedGross,
      acceptedGross: q.acceptedGross,
      netCurveInput: q.netCurveInput,
      tokensOut: q.tokensOut,
      totalFee: q.totalFee,
      creatorFee: q.creatorFee,
      protocolFee: q.protocolFee,
      communityFee: q.communityFee,
      traderRewardsFee: q.traderRewardsFee,
      refund: q.refund,
    });
    return this;
  }

  /** A curve sell: Transfer seller → curve, FeesDeposited, TokensSold. */
  sell(token: string, seller: string, tokensIn: bigint): this {
    const c = this.curves.get(token)!;
    const q = quoteSell(c.state, tokensIn);
    const tx = this.tx();
    this.emit(tx, token, "Transfer", { from: seller, to: c.curve, value: tokensIn });
    this.emit(tx, this.platform.feeManager, "FeesDeposited", {
      token,
      curve: c.curve,
      isBuy: false,
      totalFee: q.totalFee,
      creatorFee: q.creatorFee,
      protocolFee: q.protocolFee,
      communityFee: q.communityFee,
      traderRewardsFee: q.traderRewardsFee,
    });
    c.state = applySell(c.state, q);
    this.emit(tx, c.curve, "TokensSold", {
      token,
      seller,
      tokensIn,
      grossCurveOutput: q.grossCurveOutput,
      netSellerOutput: q.netSellerOutput,
      totalFee: q.totalFee,
      creatorFee: q.creatorFee,
      protocolFee: q.protocolFee,
      communityFee: q.communityFee,
      traderRewardsFee: q.traderRewardsFee,
    });
    return this;
  }

  /** An ERC-20 transfer between wallets. */
  transfer(token: string, from: string, to: string, value: bigint): this {
    this.emit(this.tx(), token, "Transfer", { from, to, value });
    return this;
  }

  /**
   * A pool swap by `sender` (the transaction's sender is recorded in {@link senders}): `tokenDelta`
   * and `wethDelta` from the pool's view (positive = into the pool), with a Transfer of the token.
   */
  swap(
    token: string,
    sender: string,
    tokenDelta: bigint,
    wethDelta: bigint,
    sqrtPriceX96: bigint,
    tokenIsToken0: boolean,
    pool?: string,
  ): this {
    const c = this.curves.get(token)!;
    const p = pool ?? c.pool;
    const tx = this.tx();
    this.senders.set(tx.hash, sender);
    if (tokenDelta < 0n) this.emit(tx, token, "Transfer", { from: p, to: sender, value: -tokenDelta });
    else this.emit(tx, token, "Transfer", { from: sender, to: p, value: tokenDelta });
    this.emit(tx, p, "Swap", {
      sender: addr(0x5e7),
      recipient: sender,
      amount0: tokenIsToken0 ? tokenDelta : wethDelta,
      amount1: tokenIsToken0 ? wethDelta : tokenDelta,
      sqrtPriceX96,
      liquidity: 1n,
      tick: 0n,
    });
    return this;
  }

  /**
   * The token's LP custodian (`GraduatedV3`'s, `0xc057`) collects `amount` of the token from the
   * pool into `vault`: Transfer pool → vault, the vault's `PermanentLPFeesAccrued`, then the
   * custodian's `PermanentFeesCollected`.
   */
  collectLPFees(token: string, vault: string, amount: bigint, custodian = addr(0xc057)): this {
    const c = this.curves.get(token)!;
    const tx = this.tx();
    this.emit(tx, token, "Transfer", { from: c.pool, to: vault, value: amount });
    this.emit(tx, vault, "PermanentLPFeesAccrued", {
      launchToken: token,
      custodian,
      asset: token,
      protocolRecipient: addr(0x7e),
      creatorRecipient: c.creator,
      creatorShare: amount / 2n,
      protocolShare: amount - amount / 2n,
      communityShare: 0n,
      traderRewardsShare: 0n,
    });
    this.emit(tx, custodian, "PermanentFeesCollected", { tokenId: 42n, amount0: amount, amount1: 0n });
    return this;
  }

  /** Any log from any address (impostors). */
  raw(address: string, name: EventName, args: DecodedArgs): this {
    const tx = this.tx();
    this.senders.set(tx.hash, addr(0xbad));
    this.emit(tx, address, name, args);
    return this;
  }

  /** transaction hash → sender of swap transactions. */
  readonly senders = new Map<string, string>();

  /** The events of blocks [from, to], in chain order. */
  events(from: number, to: number): DecodedEvent[] {
    return this.blocks
      .filter((b) => b.header.number >= from && b.header.number <= to)
      .flatMap((b) => b.events);
  }

  /** The headers of blocks [from, to]. */
  headers(from: number, to: number): BlockHeader[] {
    return this.blocks.filter((b) => b.header.number >= from && b.header.number <= to).map((b) => b.header);
  }

  /** Curve state of a token as the contract would report it. */
  curveState(token: string): CurveState {
    return this.curves.get(token)!.state;
  }
}

/** The platform addresses the writer's tests index a {@link SyntheticChain} with. */
export const TEST_PLATFORM = {
  factory: addr(0xfac),
  weth: addr(0xffff),
  feeManager: addr(0xfee),
  manager: addr(0x3a9),
} as const;

/** A test token's curve address (its address + 0x1000). */
export const curveOf = (token: string) => addr(Number(BigInt(token)) + 0x1000);

/** A test token's canonical pool address (its address + 0x2000). */
export const poolOf = (token: string) => addr(Number(BigInt(token)) + 0x2000);
