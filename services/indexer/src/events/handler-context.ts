// What an event handler sees while a range is built: its types only, so that the handlers
// (events/*) and the builder that calls them (build/batch-builder.ts) do not import each other.

import type { Batch } from "../model/batch.js";
import type { CreatorDelta } from "../model/creators.js";
import type { AssetFeeDelta, CreatorLpDelta, TokenFeeDelta } from "../model/fees.js";
import type { KnownState, TokenInfo } from "../model/known-state.js";
import type { TokenDelta } from "../model/tokens.js";
import type { TradeRow } from "../model/trades.js";
import type { BlockHeader } from "../rpc/rpc-client.js";

/** Name and symbol as read from the token (`name()`/`symbol()`); null when unreadable. */
export interface TokenLabelInput {
  name: string | null;
  symbol: string | null;
}

/** Inputs besides the events that {@link buildBatch} needs. */
export interface BatchContext {
  fromBlock: number;
  toBlock: number;
  endHeader: BlockHeader;
  headers: BlockHeader[];
  /** transaction hash → sender, for pool Swaps (the trader). */
  senders: Map<string, string>;
  /** block number → timestamp, for logs returned without `blockTimestamp`. */
  timestamps: Map<number, number>;
  /** token → name/symbol, for the tokens launched in the range. */
  labels: Map<string, TokenLabelInput>;
}

/** Position fields of an event as stored in trades and activity. */
export interface EventPosition {
  blockNumber: number;
  logIndex: number;
  transactionIndex: number;
  transactionHash: string;
  blockTimestamp: number;
}

/**
 * What a handler sees while a range is built: the known state (mutable: curve state, managers)
 * and the accumulators of every read model. Each accumulator is the read model's one rule for
 * turning an event's effect into its rows.
 */
export interface RangeBuilder {
  readonly state: KnownState;
  readonly ctx: BatchContext;
  readonly batch: Batch;
  /** The token's delta of this range (created on first use). */
  token(address: string, block: number): TokenDelta;
  /** The creator's delta of this range. */
  creator(address: string, block: number): CreatorDelta;
  /** The token's `token_fees` delta of this range (model/fees). */
  tokenFees(token: string, block: number): TokenFeeDelta;
  /** The (token, asset)'s `token_asset_fees` delta of this range (model/fees). */
  assetFees(token: string, asset: string, block: number): AssetFeeDelta;
  /** The (LP creator recipient, asset)'s `creator_lp_fees` delta of this range (model/fees). */
  creatorLp(recipient: string, asset: string, block: number): CreatorLpDelta;
  /**
   * A `Transfer` of the token with `info`: the balance changes of both sides (platform contracts of
   * the token are not holders and are skipped) and the risk figures (holders' and platform
   * contracts' sums, the creator's transfers out and insiders).
   */
  transfer(info: TokenInfo, from: string, to: string, value: bigint): void;
  /** A trade: the trades row, token metrics (counts, volume = Σ curve_value, fees, latest trade), traders, creator volume. */
  trade(trade: TradeRow): void;
  /** The activity row of the event being handled, under its on-chain name; `token` is added to the arguments when given. */
  activity(token: string | null, withTokenArg?: boolean): void;
}
