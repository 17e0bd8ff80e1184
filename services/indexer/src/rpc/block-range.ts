/**
 * Adaptive `eth_getLogs` block ranges. Providers limit a query by block span and/or by result
 * count/size; this controller shrinks the span on such errors (to the span the provider suggests
 * when its message carries one, else by half) and steers it towards `targetLogs` results per
 * request after every success, widening again gradually.
 */
export class BlockRangeController {
  private span: number;
  /** Largest span known to fail (providers with a hard block-span cap); 0 = none known. */
  private ceiling = 0;

  constructor(
    initialSpan: number,
    private readonly options: { minSpan?: number; maxSpan?: number; targetLogs?: number } = {},
  ) {
    this.span = this.clamp(initialSpan);
  }

  private get min(): number {
    return this.options.minSpan ?? 1;
  }
  private get max(): number {
    return this.options.maxSpan ?? 100_000;
  }

  private clamp(span: number): number {
    let s = Math.max(this.min, Math.min(this.max, Math.floor(span)));
    if (this.ceiling > 0) s = Math.min(s, Math.max(this.min, this.ceiling - 1));
    return s;
  }

  /** Block span to use for the next request. */
  current(): number {
    return this.span;
  }

  /** After a successful request over `span` blocks that returned `logCount` logs. */
  onSuccess(span: number, logCount: number): void {
    const target = this.options.targetLogs ?? 10_000;
    const next =
      logCount === 0 ? span * 2 : Math.min(span * 2, Math.max(span / 2, (span * target) / logCount));
    this.span = this.clamp(next);
  }

  /**
   * After a range/size error on a request over `span` blocks. `suggested` is the span a
   * provider named in its message (see {@link suggestedSpan}). Returns the new span.
   */
  onRangeError(span: number, suggested?: number | null): number {
    if (suggested && suggested > 0 && suggested < span) {
      this.span = this.clamp(suggested);
    } else {
      this.span = this.clamp(Math.min(this.span, Math.floor(span / 2)));
    }
    if (span <= 1) return this.span;
    if (suggested === undefined || suggested === null) {
      // A span-limited provider fails at any size above its cap: remember the smallest failure.
      if (this.ceiling === 0 || span < this.ceiling) this.ceiling = span;
    }
    return this.span;
  }

  /** Forget the span ceiling (e.g. after a long run of successes at the ceiling). */
  resetCeiling(): void {
    this.ceiling = 0;
  }
}

const RANGE_ERROR_PATTERNS = [
  /query returned more than \d+ results/i,
  /log response size exceeded/i,
  /block range/i,
  /range (is )?too (large|wide|big)/i,
  /exceed(s|ed)? (the )?(maximum|max)/i,
  /too many (results|logs|blocks)/i,
  /response (is )?too (large|big)/i,
  /limit(ed)? to (a )?[\d,]+/i,
  /max(imum)? (block )?range/i,
  /query timeout exceeded/i,
  /payload too large/i,
  /\b-32005\b/,
  /result window is too large/i,
  /more than \d+ (logs|results|blocks)/i,
  /ranges? (over|of more than|larger than) [\d,]+ blocks?/i,
];

/** True when an RPC error message says the getLogs range or result was too large. */
export function isRangeError(message: string, code?: number): boolean {
  if (code === -32005) return true;
  return RANGE_ERROR_PATTERNS.some((p) => p.test(message));
}

/**
 * The block span a provider suggests in its error message, when it names one:
 * Alchemy/Infura style `... [0x1, 0x3e8]` ranges or `... up to a N block range` / `limited to N blocks`.
 */
export function suggestedSpan(message: string): number | null {
  const hexRange = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(message);
  if (hexRange) {
    const from = Number.parseInt(hexRange[1]!, 16);
    const to = Number.parseInt(hexRange[2]!, 16);
    if (to >= from) return to - from + 1;
  }
  const blocks =
    /(?:up to|limited to|maximum(?: block range)?(?: is|:)?|max(?:imum)? range(?: is|:)?)\s*(?:a\s*)?(\d[\d,]*)\s*(?:-\s*)?block/i.exec(
      message,
    );
  if (blocks) return Number(blocks[1]!.replace(/,/g, ""));
  return null;
}
