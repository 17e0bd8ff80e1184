// `pnpm bench api --mix`: the traffic of a launchpad's front end in one run instead of one route at
// a time. Front pages (list, trending, newest), token pages (detail, chart, trades, holders) over
// tokens drawn from a Zipf distribution (a few hot tokens take most of the views), wallets, and
// search terms drawn from the data set's real symbols. Paths come from a seeded generator, so two
// runs ask the same sequence.
import pg from "pg";
import type { ApiSamples } from "./api-samples-lib.js";

/** One kind of request of the mix: its share of the traffic (weights are relative) and its path. */
export interface MixEntry {
  /** Name printed in the per-kind table. */
  kind: string;
  /** Relative weight: the share of requests is weight / Σ weights. */
  weight: number;
  /** Request path, drawing from the shared generator. */
  path: () => string;
}

/** Mulberry32: a small seeded generator of uniform floats in [0, 1) (repeatable runs). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Draws ranks 0..n-1 with probability ∝ 1 / (rank + 1)^exponent (Zipf); `random` uniform in [0, 1).
 * The cumulative table is built once; each draw is a binary search.
 */
export function zipfSampler(n: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let rank = 0; rank < n; rank++) {
    sum += 1 / (rank + 1) ** exponent;
    cumulative[rank] = sum;
  }
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** Search terms a user types: real symbols of the data set, whole or as a 2–4 letter prefix. */
async function readSearchTerms(url: string, count: number): Promise<string[]> {
  const db = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await db.query<{ symbol: string }>(
      "SELECT symbol FROM tokens WHERE symbol <> '' ORDER BY md5(address) LIMIT $1",
      [count],
    );
    return rows.map((row, i) => (i % 2 === 0 ? row.symbol : row.symbol.slice(0, 2 + (i % 3))).toLowerCase());
  } finally {
    await db.end();
  }
}

/**
 * The mix over `samples` of the data set at `url`: token pages pick tokens by Zipf(`exponent`) over
 * the sample tokens (in the data set's random order, so the hot ones are not the oldest), wallets
 * and search terms uniformly. Weights: front pages 30 %, token pages 50 %, wallets 10 %, search 10 %.
 */
export async function trafficMix(
  url: string,
  samples: ApiSamples,
  options: { exponent: number; seed: number },
): Promise<MixEntry[]> {
  const random = seededRandom(options.seed);
  const tokenRank = zipfSampler(samples.tokens.length, options.exponent, random);
  const token = () => samples.tokens[tokenRank()]!;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const terms = await readSearchTerms(url, 500);
  return [
    { kind: "list", weight: 12, path: () => "/api/v1/tokens" },
    { kind: "trending", weight: 10, path: () => "/api/v1/trending" },
    { kind: "newest", weight: 8, path: () => "/api/v1/tokens/newest" },
    { kind: "detail", weight: 15, path: () => `/api/v1/tokens/${token()}` },
    {
      kind: "chart",
      weight: 15,
      path: () => `/api/v1/tokens/${token()}/chart?interval=1m&countback=300&to=${samples.chartTo}`,
    },
    { kind: "trades", weight: 12, path: () => `/api/v1/tokens/${token()}/trades` },
    { kind: "holders", weight: 8, path: () => `/api/v1/tokens/${token()}/holders` },
    { kind: "wallet", weight: 5, path: () => `/api/v1/wallets/${pick(samples.wallets)}` },
    { kind: "holdings", weight: 5, path: () => `/api/v1/wallets/${pick(samples.wallets)}/holdings` },
    { kind: "search", weight: 10, path: () => `/api/v1/tokens?search=${encodeURIComponent(pick(terms))}` },
  ];
}

/** A path generator that picks an entry of `mix` by weight on each call (`random` uniform in [0, 1)). */
export function mixPaths(mix: readonly MixEntry[], random: () => number): () => string {
  const total = mix.reduce((sum, entry) => sum + entry.weight, 0);
  return () => {
    let target = random() * total;
    for (const entry of mix) {
      target -= entry.weight;
      if (target < 0) return entry.path();
    }
    return mix[mix.length - 1]!.path();
  };
}

/**
 * Moves the indexed block's hash every `intervalMs` (as a chain's new block would), so the response
 * cache's answers last one block as in production; the bench data does not move otherwise. Returns
 * the stop function, which puts the original hash back.
 */
export async function simulateBlocks(url: string, intervalMs: number): Promise<() => Promise<void>> {
  const db = new pg.Pool({ connectionString: url, max: 1 });
  const original = (await db.query<{ block_hash: string }>("SELECT block_hash FROM indexer_checkpoints"))
    .rows[0]?.block_hash;
  let blocks = 0;
  let pending: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    blocks += 1;
    const hash = `0x${blocks.toString(16).padStart(64, "0")}`;
    pending = db.query("UPDATE indexer_checkpoints SET block_hash = $1", [hash]);
  }, intervalMs);
  return async () => {
    clearInterval(timer);
    await pending;
    if (original !== undefined) await db.query("UPDATE indexer_checkpoints SET block_hash = $1", [original]);
    await db.end();
  };
}
