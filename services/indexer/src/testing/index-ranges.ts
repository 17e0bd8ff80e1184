import type pg from "pg";
import { type Batch, buildBatch, type TokenLabelInput } from "../build/batch-builder.js";
import type { KnownState } from "../model/known-state.js";
import { prepareWrite } from "../prepare/prepare-write.js";
import { selectEvents } from "../select/select-events.js";
import { executeWrite } from "../write/batch-writer.js";
import type { SyntheticChain } from "./synthetic-chain.js";

/**
 * The batch of blocks `from`–`to` of a {@link SyntheticChain} over `state`, as the indexer builds
 * it; launched tokens without a label in `labels` are named `defaultLabel(token)`. Test helper.
 */
export function buildSyntheticBatch(
  chain: SyntheticChain,
  state: KnownState,
  from: number,
  to: number,
  labels = new Map<string, TokenLabelInput>(),
  defaultLabel = (token: string): TokenLabelInput => ({ name: `N${token.slice(-3)}`, symbol: "S" }),
): Promise<Batch> {
  const selection = selectEvents(chain.events(from, to), state);
  for (const l of selection.launches) if (!labels.has(l.token)) labels.set(l.token, defaultLabel(l.token));
  const headers = chain.headers(from, to);
  return buildBatch(selection.events, state, {
    fromBlock: from,
    toBlock: to,
    endHeader: headers.at(-1)!,
    headers,
    senders: chain.senders,
    timestamps: new Map(),
    labels,
  });
}

/**
 * Indexes `ranges` (inclusive block ranges) of a {@link SyntheticChain} into `pool`'s database
 * as the indexer writes them: each range built into a batch over `state` and written in its own
 * transaction (journaled when within `keepBlocks` of `headBlock`). Test helper.
 */
export async function indexRanges(
  pool: pg.Pool,
  chain: SyntheticChain,
  ranges: [number, number][],
  state: KnownState,
  options: { chainId: number; headBlock: number; keepBlocks?: number },
): Promise<void> {
  const client = await pool.connect();
  try {
    for (const [from, to] of ranges) {
      const batch = await buildSyntheticBatch(chain, state, from, to);
      const prepared = await prepareWrite(batch, state, {
        chainId: options.chainId,
        headBlock: options.headBlock,
        keepBlocks: options.keepBlocks ?? 65,
      });
      await client.query("BEGIN");
      await executeWrite(client, prepared);
      await client.query("COMMIT");
    }
  } finally {
    client.release();
  }
}
