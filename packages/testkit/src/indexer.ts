// Owner: indexer (services/indexer). Starting the indexer for integration tests of other parts.
import type { Devnet } from "@tmi/devnet";
import pg from "pg";
import { readyOrReleased, type ServiceProcess, startServiceProcess, waitFor } from "./process.js";

/** Options of {@link startIndexer}. */
export interface StartIndexerOptions {
  databaseUrl: string;
  rpcUrl: string;
  chainId: number;
  /** The V3 factory (`FACTORY_ADDRESS`); the managers and WETH are read from the chain when not in `env`. */
  factoryAddress: string;
  startBlock: number;
  /** ETH/USD feed to index (`AnswerUpdated` → `eth_usd_answers`); none when omitted. */
  ethUsdFeedAddress?: string;
  /** Extra environment (e.g. `{ TRENDING_WINDOW: "3600" }`); `PORT` defaults to 0 (a free port). */
  env?: Record<string, string | undefined>;
  /** Mirror the indexer's output to stderr. */
  echo?: boolean;
  /** Run the built indexer (`services/indexer/dist`, as deployed) instead of its sources. */
  compiled?: boolean;
}

/**
 * The {@link StartIndexerOptions} that index `devnet` (its chain id, factory and start block)
 * into `databaseUrl`; `ethUsdFeed: true` also indexes the devnet's ETH/USD feed.
 */
export function devnetIndexerOptions(
  devnet: Pick<Devnet, "rpcUrl" | "chainId" | "deployment">,
  databaseUrl: string,
  options: { ethUsdFeed?: boolean } = {},
): StartIndexerOptions {
  return {
    databaseUrl,
    rpcUrl: devnet.rpcUrl,
    chainId: devnet.chainId,
    factoryAddress: devnet.deployment.contracts.factory,
    startBlock: devnet.deployment.startBlock,
    ...(options.ethUsdFeed ? { ethUsdFeedAddress: devnet.deployment.contracts.ethUsdFeed } : {}),
  };
}

/** A running indexer process (see {@link startIndexer}). */
export interface IndexerProcess extends ServiceProcess {
  /**
   * Resolves once `indexer_checkpoints` reaches block `n` (read models of every block up to `n`
   * committed). Rejects after `timeoutMs` (default 30 s) or when the process exits, with its output.
   */
  waitForBlock(n: number | bigint, timeoutMs?: number): Promise<void>;
  /** The committed checkpoint block, or null before the first commit. */
  indexedBlock(): Promise<number | null>;
  /**
   * Resolves once the newest trending snapshot is as of the committed checkpoint (the refresh that
   * follows the last indexed block has run), so a dump of the read models is final. Rejects after
   * `timeoutMs` (default 90 s) or when the process exits.
   */
  waitForTrending(timeoutMs?: number): Promise<void>;
}

/**
 * Starts `services/indexer` as a child process (TypeScript sources via tsx) on a migrated
 * database and a devnet. The process keeps running until `stop()`/`kill()`.
 */
export function startIndexer(options: StartIndexerOptions): IndexerProcess {
  const proc = startServiceProcess({
    service: "indexer",
    echo: options.echo,
    compiled: options.compiled,
    env: {
      PORT: "0",
      DATABASE_URL: options.databaseUrl,
      RPC_URL: options.rpcUrl,
      CHAIN_ID: String(options.chainId),
      FACTORY_ADDRESS: options.factoryAddress,
      // Never the workspace's devnet deployment file: only what the test passes.
      DEPLOYMENT_FILE: "/nonexistent/deployment.json",
      START_BLOCK: String(options.startBlock),
      ETH_USD_FEED_ADDRESS: options.ethUsdFeedAddress,
      POLL_INTERVAL_MS: "100",
      TRENDING_REFRESH_MS: "500",
      // As `pnpm --filter @tmi/indexer start`: larger semi-spaces keep a range's short-lived rows out
      // of the old space; a 2 GB maximum lets V8 grow the old space's next limit by up to 4× its live
      // size (at 256 MB, 1.3×: a mark-compact after about each scavenge; docs/indexer.md, Performance).
      NODE_OPTIONS: [process.env.NODE_OPTIONS, "--max-old-space-size=2048", "--max-semi-space-size=64"]
        .filter(Boolean)
        .join(" "),
      ...options.env,
    },
  });
  const indexedBlock = async (): Promise<number | null> => {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    await client.connect();
    try {
      const res = await client.query<{ b: string }>(
        "SELECT block_number::text AS b FROM indexer_checkpoints WHERE chain_id = $1",
        [options.chainId],
      );
      return res.rows[0] ? Number(res.rows[0].b) : null;
    } finally {
      await client.end().catch(() => {});
    }
  };
  const trendingCaughtUp = async (): Promise<boolean> => {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    await client.connect();
    try {
      const res = await client.query<{ ok: boolean }>(
        `SELECT (SELECT as_of_block_number FROM trending_snapshots ORDER BY id DESC LIMIT 1)
                = (SELECT block_number FROM indexer_checkpoints WHERE chain_id = $1) AS ok`,
        [options.chainId],
      );
      return res.rows[0]?.ok === true;
    } finally {
      await client.end().catch(() => {});
    }
  };
  /** Polls `check` until it holds; fails at once when the process exits, with its output. */
  const waitWhileRunning = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
    await waitFor(
      async () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
          throw new ExitedError(
            `indexer exited (${proc.child.exitCode ?? proc.child.signalCode}):\n${proc.output().slice(-4000)}`,
          );
        }
        return check();
      },
      { timeoutMs, intervalMs: 50, message: `${what}\n${proc.output().slice(-4000)}` },
    ).catch((error) => {
      throw error instanceof ExitedError
        ? error
        : new Error(`${(error as Error).message}\n${proc.output().slice(-4000)}`);
    });
  };
  return {
    ...proc,
    indexedBlock,
    async waitForBlock(n, timeoutMs = 90_000) {
      const target = Number(n);
      await waitWhileRunning(
        async () => {
          const block = await indexedBlock();
          return block !== null && block >= target;
        },
        timeoutMs,
        `indexer did not reach block ${target}`,
      );
    },
    async waitForTrending(timeoutMs = 90_000) {
      await waitWhileRunning(trendingCaughtUp, timeoutMs, "no trending snapshot as of the checkpoint");
    },
  };
}

class ExitedError extends Error {}

/** Current block number of the node at `rpcUrl` (a `ws(s)://` URL is asked over http(s) on the same port, as anvil serves both). */
export async function chainHead(rpcUrl: string): Promise<number> {
  const response = await fetch(rpcUrl.replace(/^ws/, "http"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
  });
  const body = (await response.json()) as { result: string };
  return Number.parseInt(body.result, 16);
}

/** The routes' bodies and, beside them, the same recomputed independently (keys name the parts compared). */
export interface Recomputation {
  api: Record<string, unknown>;
  expected: Record<string, unknown>;
}

/**
 * The acceptance tests' comparison of routes with a recomputation from the chain: waits until the
 * indexer has committed the chain's head (`indexedBlock()` equals `eth_blockNumber` of `rpcUrl`)
 * and `recompute(head)` answers `api` equal to `expected` (as JSON text: key order and values),
 * retrying every 500 ms for up to 120 s (an upload or the response cache may lag the head).
 * Returns the last recomputation, agreeing or not: the caller asserts `api` equals `expected`, so
 * a disagreement fails with the diff of the last attempt; throws waitFor's timeout error when
 * there was none (the head never reached, or `recompute` threw every time). `recompute` is the test's own: the
 * routes' bodies beside the same figures recomputed from the contracts' raw logs up to the block
 * and checked against their views at it.
 */
export async function recomputeAtHead(
  rpcUrl: string,
  indexedBlock: () => Promise<number | null>,
  recompute: (block: bigint) => Promise<Recomputation>,
): Promise<Recomputation> {
  let last: Recomputation | undefined;
  let failure: unknown;
  await waitFor(
    async () => {
      const head = await chainHead(rpcUrl);
      if ((await indexedBlock()) !== head) return false;
      last = await recompute(BigInt(head));
      return JSON.stringify(last.api) === JSON.stringify(last.expected);
    },
    { timeoutMs: 120_000, intervalMs: 500, message: "the routes = their recomputation from the chain" },
  ).catch((error: unknown) => {
    failure = error;
  });
  // Without a recomputation to compare (head never reached, `recompute` threw): waitFor's error.
  if (last === undefined) throw failure;
  return last;
}

/**
 * Starts the indexer ({@link startIndexer}) and waits until it has committed the chain's
 * current head. Returns the running process: `stop()` it when done (or keep it following).
 */
export async function indexToHead(
  options: StartIndexerOptions & { timeoutMs?: number },
): Promise<IndexerProcess> {
  return readyOrReleased(
    startIndexer(options),
    async (indexer) => indexer.waitForBlock(await chainHead(options.rpcUrl), options.timeoutMs ?? 180_000),
    (indexer) => indexer.kill(),
  );
}

const DUMP_TABLES: Record<string, string> = {
  chain_events: "block_number, log_index",
  tokens: "address",
  trades: "block_number, log_index",
  token_balances: "token_address, holder",
  token_traders: "token_address, trader",
  positions: "token_address, trader",
  token_cohorts: "token_address, wallet",
  token_risk: "token_address",
  holder_counts: "token_address, interval, bucket_start",
  candles: "token_address, interval, bucket_start",
  candle_traders: "token_address, interval, bucket_start, trader",
  creators: "address",
  eth_usd_answers: "block_number, log_index",
  token_fees: "token_address",
  token_asset_fees: "token_address, asset",
  creator_lp_fees: "recipient, asset",
  reward_distributions: "distribution_id",
  reward_claims: "distribution_id, claimant",
  eth_usd_buckets: "interval, bucket_start",
  token_progress_highs: "token_address",
  token_search_prefixes: "prefix, created_block_number, created_log_index",
};

/**
 * Every indexer-written table as sorted rows (values as text), for comparing two databases:
 * bookkeeping is left out (the `blocks` window, checkpoint head/reorg/time columns, trending
 * snapshot ids and times; of trending only the newest snapshot's entries are kept).
 */
export async function dumpIndexedTables(databaseUrl: string): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const [table, order] of Object.entries(DUMP_TABLES)) {
      const res = await client.query(`SELECT row_to_json(t)::text AS r FROM ${table} t ORDER BY ${order}`);
      out[table] = res.rows.map((r) => r.r as string);
    }
    const cp = await client.query(
      "SELECT row_to_json(t)::text AS r FROM (SELECT chain_id, block_number, block_hash, block_timestamp FROM indexer_checkpoints ORDER BY chain_id) t",
    );
    out.indexer_checkpoints = cp.rows.map((r) => r.r as string);
    const trending = await client.query(
      `SELECT row_to_json(t)::text AS r FROM (
         SELECT s.window_seconds, s.as_of_block_number, s.as_of_timestamp, e.rank, e.token_address, e.window_volume,
                e.window_trade_count, e.window_unique_traders
         FROM trending_snapshots s JOIN trending_entries e ON e.snapshot_id = s.id
         WHERE s.id = (SELECT max(id) FROM trending_snapshots) ORDER BY e.rank) t`,
    );
    out.trending_latest = trending.rows.map((r) => r.r as string);
    return out;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Inserts synthetic launched tokens into `tokens` until it holds `count` rows (addresses
 * 0x…0001, 0x…0002, …; curves and pools elsewhere in the address space; never traded, never
 * graduated): a launchpad's many quiet tokens, for tests and benchmarks of the known-token state.
 * One INSERT … SELECT generate_series (a million rows in about a minute on a busy machine).
 */
export async function insertSyntheticTokens(
  db: pg.Client | pg.Pool,
  count: number,
  chainId: number,
): Promise<void> {
  await db.query(
    `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
       created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at,
       graduation_threshold, updated_block_number, curve_address, pool_address, pool_token_is_token0,
       virtual_token_reserve, virtual_eth_reserve)
     SELECT '0x' || lpad(to_hex(i), 40, '0'), $2, '0x' || lpad('c', 40, '0'), 'T' || i, 'T' || i, 't' || i, 't' || i,
       10::numeric ^ 27, 1, 0, '0x' || lpad(to_hex(i), 64, '0'), 0, 0, 8 * 10::numeric ^ 26, 1,
       '0x' || lpad(to_hex(i + 300000000), 40, '0'), '0x' || lpad(to_hex(i + 600000000), 40, '0'), true,
       1066666666666666666666666667, 10::numeric ^ 18
     FROM generate_series((SELECT count(*) FROM tokens) + 1, $1) AS i`,
    [count, chainId],
  );
}
