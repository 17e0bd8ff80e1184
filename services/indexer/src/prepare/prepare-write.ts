// The prepare stage: a built range (`Batch`) turned into the text PostgreSQL is sent (COPY text of
// the activity log and trades, the insert of launched tokens, one statement for the other read
// models). Pure CPU work; the write stage (write/batch-writer.ts) sends it.
import { setImmediate as yieldToIo } from "node:timers/promises";
import { formatIndexedNotification, INDEXED_CHANNEL } from "@tmi/shared/market";
import type { Batch } from "../model/batch.js";
import type { KnownState } from "../model/known-state.js";
import { copyChunks, type SqlParams, sqlParams, unnestRows } from "../sql/sql-text.js";
import { CHAIN_EVENTS_COPY } from "./activity.js";
import { candlesCtes } from "./candles.js";
import { creatorsCtes } from "./creators.js";
import { ethUsdCtes } from "./eth-usd.js";
import { feesCtes } from "./fees.js";
import { holderHistoryCtes } from "./holder-history.js";
import { holdersCtes } from "./holders.js";
import { positionsCtes } from "./positions.js";
import { progressCtes } from "./progress.js";
import { rewardsCtes } from "./rewards.js";
import { riskCtes, riskRefreshStatement } from "./risk.js";
import { newTokensStatement, tokensUpdateCtes } from "./tokens.js";
import { tradersCtes } from "./traders.js";
import { hiddenTradesCte, TRADES_COPY } from "./trades.js";

/** Options of {@link prepareWrite}. */
export interface WriteOptions {
  chainId: number;
  /** Latest head seen (the checkpoint row records it). */
  headBlock: number;
  /** Blocks kept in `blocks` and in the reorg journal below the range's end (REORG_DEPTH + 1). */
  keepBlocks: number;
  reorg?: { fromBlock: number; toBlock: number };
  /**
   * Record the range's changes in the reorg journal. Default: when the range ends within
   * `keepBlocks` of `headBlock` (the blocks a reorg can still orphan).
   */
  journal?: boolean;
}

/** A batch turned into what is sent to PostgreSQL (see {@link prepareWrite}). */
export interface PreparedWrite {
  /** Set when the range's changes are journaled: its block range. */
  journal: { fromBlock: number; toBlock: number } | null;
  /** COPY text of `chain_events` (UTF-8 chunks of {@link copyChunks}). */
  events: Buffer[];
  /** COPY text of `trades` (UTF-8 chunks). */
  trades: Buffer[];
  newTokens: { text: string; values: unknown[] } | null;
  readModels: { text: string; values: unknown[] };
  /** Sent after `readModels` (reads what it wrote): the touched tokens' recomputed risk figures (prepare/risk.ts). */
  riskRefresh: { text: string; values: unknown[] } | null;
}

/** True when a range ending at `toBlock` may still be orphaned by a reorg (journal it). */
export function inReorgWindow(toBlock: number, headBlock: number, keepBlocks: number): boolean {
  return toBlock > headBlock - keepBlocks;
}

/**
 * Formats a range for writing (pure CPU work, done while the previous range is being written):
 * COPY text of the activity log and trades, the insert of launched tokens, and one statement for
 * every other read model (each read model's own CTEs: traders, holders, holder counts, positions, risk, progress highs, candles,
 * tokens, creators, ETH/USD), the risk refresh that follows it, the blocks kept for reorg checks, the journal pruning, the checkpoint and the
 * `tmi_indexed` NOTIFY.
 */
export async function prepareWrite(
  batch: Batch,
  state: KnownState,
  options: WriteOptions,
): Promise<PreparedWrite> {
  const events = await copyChunks(batch.events, CHAIN_EVENTS_COPY);
  await yieldToIo();
  const trades = await copyChunks(batch.trades, TRADES_COPY);
  const newTokens = newTokensStatement(batch.newTokens, options.chainId);
  await yieldToIo();
  const journal =
    (options.journal ?? inReorgWindow(batch.toBlock, options.headBlock, options.keepBlocks))
      ? { fromBlock: batch.fromBlock, toBlock: batch.toBlock }
      : null;
  return {
    journal,
    events,
    trades,
    newTokens,
    readModels: readModelStatement(batch, state, options),
    riskRefresh: riskRefreshStatement(batch.risk),
  };
}

/** `blocks` (headers kept for reorg checks), pruning of blocks and journal, the checkpoint. */
function chainPositionCtes(batch: Batch, q: SqlParams, options: WriteOptions): string[] {
  const end = batch.endHeader;
  const keepFrom = batch.toBlock - options.keepBlocks;
  return [
    `bi AS (
    INSERT INTO blocks (number, hash, parent_hash, timestamp)
    SELECT * FROM ${unnestRows(q, batch.headers, "d", {
      number: ["bigint", (x) => x.number],
      hash: ["text", (x) => x.hash],
      parent_hash: ["text", (x) => x.parentHash],
      timestamp: ["bigint", (x) => x.timestamp],
    })}
    ON CONFLICT (number) DO UPDATE SET hash = excluded.hash, parent_hash = excluded.parent_hash, timestamp = excluded.timestamp)`,
    // Keep the header before every journaled write: a reorg may revert to it.
    `bp AS (DELETE FROM blocks WHERE number < LEAST(${q.p(keepFrom, "bigint")},
      (SELECT min(block_number) - 1 FROM reorg_journal WHERE to_block >= ${q.p(keepFrom, "bigint")})))`,
    `jp AS (DELETE FROM reorg_journal WHERE to_block < ${q.p(keepFrom, "bigint")})`,
    `cp AS (
    INSERT INTO indexer_checkpoints (chain_id, block_number, block_hash, block_timestamp, head_block_number, head_seen_at, updated_at)
    VALUES (${q.p(options.chainId, "int")}, ${q.p(end.number, "bigint")}, ${q.p(end.hash, "text")}, ${q.p(end.timestamp, "bigint")},
            ${q.p(options.headBlock, "bigint")}, now(), now())
    ON CONFLICT (chain_id) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash,
      block_timestamp = excluded.block_timestamp, head_block_number = excluded.head_block_number,
      head_seen_at = excluded.head_seen_at, updated_at = excluded.updated_at)`,
  ];
}

/**
 * One statement (one round trip) for every read model of a range besides the COPYs and new
 * tokens, then blocks, journal pruning, checkpoint and NOTIFY. Data-modifying CTEs all run; later
 * ones see earlier ones only through what those offer (relations of the range's own rows): each
 * read model names only its own CTEs, and this composer hands the relations one offers to those
 * that read them (the traders' new and already-counted traders to tokens and candles, the
 * holders' count change to tokens and their balances before the range to the holder counts).
 */
function readModelStatement(
  batch: Batch,
  state: KnownState,
  options: WriteOptions,
): { text: string; values: unknown[] } {
  const q = sqlParams();
  const traders = tradersCtes(batch.tokenTraders, q);
  const holders = holdersCtes(batch.balances, q);
  const supplyOf = (token: string) => state.tokens.get(token)?.initialSupply ?? 0n;
  const ctes = [
    ...traders.ctes,
    ...holders.ctes,
    ...holderHistoryCtes(batch.holderHours, holders.oldBalances, q),
    ...positionsCtes(batch.positions, q),
    ...riskCtes(batch.risk, q),
    ...progressCtes(batch.progressHighs, q),
    ...candlesCtes(batch.candles, batch.candleTraders, traders.countedTraders, q),
    ...tokensUpdateCtes(
      batch.tokenDeltas,
      supplyOf,
      { newTraders: traders.newTraders, holderChange: holders.holderChange },
      q,
    ),
    ...creatorsCtes(batch.creators, q),
    ...ethUsdCtes(batch.ethUsd, q),
    ...feesCtes(batch.fees, q),
    ...rewardsCtes(batch.rewards, q),
    ...(batch.trades.length > 0 ? [hiddenTradesCte(batch.fromBlock, batch.toBlock, q)] : []),
    ...chainPositionCtes(batch, q, options),
  ];
  const payload = formatIndexedNotification({
    from_block: batch.fromBlock,
    to_block: batch.toBlock,
    ...(options.reorg
      ? { reorg: { from_block: options.reorg.fromBlock, to_block: options.reorg.toBlock } }
      : {}),
  });
  return {
    text: `WITH ${ctes.join(",\n")}\nSELECT pg_notify(${q.p(INDEXED_CHANNEL, "text")}, ${q.p(payload, "text")})`,
    values: q.values,
  };
}
