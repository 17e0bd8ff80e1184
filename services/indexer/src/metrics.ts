import { Counter, Gauge, Registry } from "prom-client";

/** Prometheus metrics of the indexer (served on `/metrics`). */
export interface IndexerMetrics {
  registry: Registry;
  head: Gauge;
  indexed: Gauge;
  lagBlocks: Gauge;
  lagSeconds: Gauge;
  eventsPerSecond: Gauge;
  events: Counter;
  rpcErrors: Counter<"method">;
  reorgs: Counter;
  reorgDepth: Gauge;
  standby: Gauge;
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
    lagBlocks: new Gauge({ name: "indexer_lag_blocks", help: "Head minus indexed block", registers: r }),
    lagSeconds: new Gauge({
      name: "indexer_lag_seconds",
      help: "Wall clock minus the timestamp of the last indexed block",
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
  };
}
