/**
 * How the generic events (`Transfer`, `Swap`, `AnswerUpdated`) of a block range are queried
 * (docs/indexer.md, "Log filter"):
 *
 * - `emitters`: by the known emitters, `LOG_ADDRESS_CHUNK` addresses per request: ⌈emitters /
 *   chunk⌉ requests, each returning only the platform's logs. Cheap while the known set is small,
 *   and over long historical ranges (one request covers many blocks).
 * - `topics`: by the three topic0s alone, one request per range (split to stay under
 *   `TARGET_LOGS_PER_REQUEST`): every `Transfer`/`Swap` of the chain comes back and is filtered in
 *   memory against the known set. Costs the chain's generic logs, whatever the number of tokens:
 *   cheap at the head (one block at a time), dear over long ranges.
 *
 * `auto` picks the cheaper per range by a cost in milliseconds, from what the queries measured:
 *   cost(emitters) = ⌈emitters / chunk⌉ × requestMs
 *   cost(topics)   = ⌈L / TARGET_LOGS_PER_REQUEST⌉ × requestMs + L × logMs,  L = logsPerBlock × blocks
 * where `requestMs` is the fixed cost of an `eth_getLogs` round trip, `logMs` the cost of one more
 * log returned (transfer and JSON parsing), both fitted by least squares over the recent requests,
 * and `logsPerBlock` the chain's generic logs per block as the topic queries saw them (a Base-like
 * prior of 1,500 until measured, re-measured by one topic query every 64 ranges when emitters win).
 */

/** The generic-log query of one range. */
export type LogQueryStrategy = "emitters" | "topics";

/** The setting: a fixed strategy or `auto` (by measured cost). */
export type LogQuerySetting = LogQueryStrategy | "auto";

/** Options of {@link LogQueryPlanner}. */
export interface LogQueryPlannerOptions {
  setting: LogQuerySetting;
  /** `LOG_ADDRESS_CHUNK`. */
  addressChunk: number;
  /** `TARGET_LOGS_PER_REQUEST`: logs a topic query may return before it is split. */
  targetLogs: number;
}

/** Prior of the chain's generic logs per block (Base: hundreds to thousands of `Transfer`s). */
export const PRIOR_LOGS_PER_BLOCK = 1_500;
/** Prior fixed cost of one `eth_getLogs` (ms) and of one log returned (ms). */
export const PRIOR_REQUEST_MS = 20;
export const PRIOR_LOG_MS = 0.01;
/** Ranges queried by emitters between two topic probes (keeps `logsPerBlock` current). */
const PROBE_EVERY = 64;
/** Requests kept for the cost fit. */
const WINDOW = 128;

/** A cost estimate of one range, both ways (ms). */
export interface StrategyCosts {
  emitters: number;
  topics: number;
}

/**
 * Chooses the query of each range by measured cost (see the module comment) and learns from every
 * `eth_getLogs` it is told about. One per range fetcher.
 */
export class LogQueryPlanner {
  private readonly samples: { ms: number; logs: number }[] = [];
  private logsPerBlock = PRIOR_LOGS_PER_BLOCK;
  private measuredDensity = false;
  private sinceProbe = 0;
  /** Ranges fetched by each strategy (for stats and the benchmark). */
  readonly chosen = { emitters: 0, topics: 0 };

  constructor(private readonly options: LogQueryPlannerOptions) {}

  /** Fixed cost per request and cost per log (ms), least squares over the recent requests. */
  costModel(): { requestMs: number; logMs: number } {
    const n = this.samples.length;
    if (n < 8) return { requestMs: PRIOR_REQUEST_MS, logMs: PRIOR_LOG_MS };
    let sx = 0;
    let sy = 0;
    for (const s of this.samples) {
      sx += s.logs;
      sy += s.ms;
    }
    const mx = sx / n;
    const my = sy / n;
    let sxx = 0;
    let sxy = 0;
    for (const s of this.samples) {
      sxx += (s.logs - mx) ** 2;
      sxy += (s.logs - mx) * (s.ms - my);
    }
    // Too little spread in the log counts (σ < 10 logs) to separate the two terms: the prior per log.
    const logMs = sxx / n >= 100 ? Math.max(1e-4, sxy / sxx) : PRIOR_LOG_MS;
    const requestMs = Math.max(0.5, my - logMs * mx);
    return { requestMs, logMs };
  }

  /** The estimated cost of `blocks` blocks with `emitters` known emitters, both ways. */
  costs(blocks: number, emitters: number): StrategyCosts {
    const { requestMs, logMs } = this.costModel();
    const logs = this.logsPerBlock * blocks;
    return {
      emitters: Math.ceil(emitters / this.options.addressChunk) * requestMs,
      topics: Math.max(1, Math.ceil(logs / this.options.targetLogs)) * requestMs + logs * logMs,
    };
  }

  /** The query for a range of `blocks` blocks when `emitters` addresses are known. */
  choose(blocks: number, emitters: number): LogQueryStrategy {
    let strategy: LogQueryStrategy;
    if (this.options.setting !== "auto") strategy = this.options.setting;
    else if (emitters === 0)
      strategy = "emitters"; // nothing to ask for
    else {
      const c = this.costs(blocks, emitters);
      strategy = c.topics < c.emitters ? "topics" : "emitters";
      // Emitters win on the prior or an old measure: probe the chain's density now and then, on a
      // short range (a probe over a long one would cost what the rule avoids).
      if (strategy === "emitters" && emitters > this.options.addressChunk && blocks <= 16) {
        if (!this.measuredDensity || ++this.sinceProbe >= PROBE_EVERY) strategy = "topics";
      }
    }
    if (strategy === "topics") this.sinceProbe = 0;
    this.chosen[strategy]++;
    return strategy;
  }

  /** After an `eth_getLogs` that took `ms` and returned `logs` logs. */
  observeRequest(ms: number, logs: number): void {
    this.samples.push({ ms, logs });
    if (this.samples.length > WINDOW) this.samples.shift();
  }

  /** After a topic query of a range: the chain's generic logs over `blocks` blocks. */
  observeDensity(blocks: number, logs: number): void {
    const density = logs / Math.max(1, blocks);
    this.logsPerBlock = this.measuredDensity ? this.logsPerBlock * 0.7 + density * 0.3 : density;
    this.measuredDensity = true;
  }

  /** The chain's generic logs per block as last measured (the prior before any topic query). */
  get density(): number {
    return this.logsPerBlock;
  }
}
