import { Counter, Gauge, Registry } from "prom-client";

/** Prometheus metrics of the indexer (served on `/metrics`). */
export interface IndexerMetrics {
  registry: Registry;
  head: Gauge;
  indexed: Gauge;
  lagBlocks: Gauge;
  lagSeconds: Gauge;
  /** Seconds since the last successful read of the chain head. */
  headAge: Gauge;
  /** 1 while no head was read for longer than `HEAD_STALE_MS` (a hung or unreachable node). */
  headStale: Gauge;
  eventsPerSecond: Gauge;
  events: Counter;
  rpcErrors: Counter<"method">;
  reorgs: Counter;
  reorgDepth: Gauge;
  standby: Gauge;
  /** Tokens whose `Transfer`s the log filter fetches (size of the emitter set). */
  knownTokens: Gauge;
  /** Tokens whose state is held in memory (at most `KNOWN_TOKENS_CACHE` beyond the last range's). */
  cachedTokens: Gauge;
  /** Token states read from `tokens` (a token first named since start, an eviction or a reorg). */
  tokenReads: Counter;
  /** Token states forgotten to keep the cache within `KNOWN_TOKENS_CACHE`. */
  tokenEvictions: Counter;
  /** `eth_getLogs` requests sent (after range splits). */
  logRequests: Counter;
  /** Logs that could not be indexed and were left out (recorded in `skipped_logs`). */
  skippedLogs: Counter;
  /** 1 while PostgreSQL is unreachable and the indexer waits for it. */
  databaseDown: Gauge;
  /** Immutable views read at the latest block because the node had no state at the log's block. */
  latestFallbacks: Gauge;
}

/** Creates the registry and the indexer's metrics (labelled with `chain_id`). */
export function createMetrics(chainId: number): IndexerMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ chain_id: String(chainId) });
  const r = [registry];
  return {
    registry,
    head: new Gauge({
      name: "indexer_head_block",
      help: "Latest block number seen on the chain",
      registers: r,
    }),
    indexed: new Gauge({
      name: "indexer_indexed_block",
      help: "Last block committed with its read models",
      registers: r,
    }),
    lagBlocks: new Gauge({
      name: "indexer_lag_blocks",
      help: "Head minus indexed block; while the head is stale the head is estimated from the time since it was read and the average block interval",
      registers: r,
    }),
    lagSeconds: new Gauge({
      name: "indexer_lag_seconds",
      help: "0 when caught up with a fresh head; else the larger of (wall clock minus the last indexed block's timestamp) and, while the head is stale, the seconds since the head was last read",
      registers: r,
    }),
    headAge: new Gauge({
      name: "indexer_head_age_seconds",
      help: "Seconds since the last successful read of the chain head",
      registers: r,
    }),
    headStale: new Gauge({
      name: "indexer_head_stale",
      help: "1 while no chain head was read for longer than HEAD_STALE_MS (hung or unreachable node)",
      registers: r,
    }),
    eventsPerSecond: new Gauge({
      name: "indexer_events_per_second",
      help: "Events committed per second over the last batches",
      registers: r,
    }),
    events: new Counter({ name: "indexer_events_total", help: "Events committed", registers: r }),
    rpcErrors: new Counter({
      name: "indexer_rpc_errors_total",
      help: "Failed RPC attempts (retried or not)",
      labelNames: ["method"],
      registers: r,
    }),
    reorgs: new Counter({
      name: "indexer_reorgs_total",
      help: "Chain reorganisations rolled back",
      registers: r,
    }),
    reorgDepth: new Gauge({
      name: "indexer_last_reorg_depth",
      help: "Depth of the last reorg in blocks",
      registers: r,
    }),
    standby: new Gauge({
      name: "indexer_standby",
      help: "1 while waiting for the writer lock",
      registers: r,
    }),
    knownTokens: new Gauge({
      name: "indexer_known_tokens",
      help: "Tokens whose Transfer logs are fetched (the log filter's emitter set)",
      registers: r,
    }),
    cachedTokens: new Gauge({
      name: "indexer_cached_tokens",
      help: "Tokens whose state is held in memory (KNOWN_TOKENS_CACHE)",
      registers: r,
    }),
    tokenReads: new Counter({
      name: "indexer_token_state_reads_total",
      help: "Token states read from the tokens table (first named since start, after an eviction or a reorg)",
      registers: r,
    }),
    tokenEvictions: new Counter({
      name: "indexer_token_evictions_total",
      help: "Token states forgotten to keep the cache within KNOWN_TOKENS_CACHE",
      registers: r,
    }),
    logRequests: new Counter({
      name: "indexer_log_requests_total",
      help: "eth_getLogs requests sent",
      registers: r,
    }),
    skippedLogs: new Counter({
      name: "indexer_skipped_logs_total",
      help: "Logs that could not be indexed, recorded in skipped_logs and left out",
      registers: r,
    }),
    databaseDown: new Gauge({
      name: "indexer_database_down",
      help: "1 while PostgreSQL is unreachable and the indexer waits to reconnect",
      registers: r,
    }),
    latestFallbacks: new Gauge({
      name: "indexer_latest_state_fallbacks",
      help: "Immutable contract views read at the latest block because the node had no state at the log's block",
      registers: r,
    }),
  };
}
