// The write stage: a prepared range (prepare/prepare-write.ts) sent to PostgreSQL in the caller's
// transaction.
import type { PoolClient } from "pg";
import { CHAIN_EVENTS_COPY } from "../prepare/activity.js";
import type { PreparedWrite } from "../prepare/prepare-write.js";
import { TRADES_COPY } from "../prepare/trades.js";
import { copyIn, timed } from "../sql/sql-text.js";

/**
 * Sends a `prepareWrite` result in the caller's open transaction (six round trips at most).
 * With a journal, the transaction's changes to the read models are recorded first-block/last-block
 * tagged (row triggers; `tmi.journal_block`/`tmi.journal_to_block`, local to the transaction).
 */
export async function executeWrite(client: PoolClient, prepared: PreparedWrite): Promise<void> {
  if (prepared.journal) {
    await client.query(
      "SELECT set_config('tmi.journal_block', $1, true), set_config('tmi.journal_to_block', $2, true)",
      [String(prepared.journal.fromBlock), String(prepared.journal.toBlock)],
    );
  }
  await timed("copy_events", () => copyIn(client, CHAIN_EVENTS_COPY, prepared.events));
  // New tokens before their trades: the trades' statement trigger for `token.progress` webhooks
  // (only while a subscription wants them) reads each trade's token row, and the progress highs of
  // before the range (the read-model statement below raises them).
  if (prepared.newTokens) {
    const q = prepared.newTokens;
    await timed("new_tokens", () => client.query(q.text, q.values));
  }
  await timed("copy_trades", () => copyIn(client, TRADES_COPY, prepared.trades));
  await timed("read_models", () => client.query(prepared.readModels.text, prepared.readModels.values));
  if (prepared.riskRefresh) {
    const q = prepared.riskRefresh;
    await timed("risk_refresh", () => client.query(q.text, q.values));
  }
}
