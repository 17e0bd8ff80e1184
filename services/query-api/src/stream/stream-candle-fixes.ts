import type { CandleInterval } from "@tmi/shared/market";
import { candleSub, type StreamEventData } from "./stream-events.js";
import { type Queryable, readCandles } from "./stream-reader.js";

/** A bucket whose `candle` event carried a trade that a reorg rolled back. */
interface CandleFix {
  token: string;
  interval: CandleInterval;
  bucket: string;
  reorg: { from: bigint; to: bigint };
}

/**
 * The candles a reorg made wrong on the clients: each bucket whose `candle` event carried an
 * orphaned trade is sent again, after the `reorg` event, with its state after the rollback.
 */
export class CandleFixes {
  private readonly fixes = new Map<string, CandleFix>();

  /** Buckets waiting to be sent again. */
  get size(): number {
    return this.fixes.size;
  }

  /** Notes `event` orphaned by `reorg`: a `candle` event's bucket is sent again (other events: nothing). */
  orphaned(event: StreamEventData, reorg: { from: bigint; to: bigint }): void {
    if (event.name !== "candle" || !event.token || !event.interval) return;
    const bucket = String(event.data.bucket_start);
    this.fixes.set(`${event.token}|${event.interval}|${bucket}`, {
      token: event.token,
      interval: event.interval,
      bucket,
      reorg,
    });
  }

  /**
   * `candle` events with the state, after the rollback, of every noted bucket that `events` (the
   * new rows) do not update anyway (an emptied bucket comes with zero counts and null prices), read
   * from `db`; forgets them. They follow the `reorg` event: id
   * `<from>-reorg-<to>-<interval>-<bucket>-<token8>`.
   */
  async take(db: Queryable, events: StreamEventData[]): Promise<StreamEventData[]> {
    const covered = new Set(
      events.filter((e) => e.name === "candle").map((e) => `${e.token}|${e.interval}|${e.data.bucket_start}`),
    );
    const fixes = [...this.fixes.entries()].filter(([key]) => !covered.has(key)).map(([, fix]) => fix);
    this.fixes.clear();
    if (fixes.length === 0) return [];
    const current = await readCandles(db, fixes);
    return fixes.map((fix) => {
      const row = current.get(`${fix.token}|${fix.interval}|${fix.bucket}`);
      return {
        name: "candle" as const,
        id: `${fix.reorg.from}-reorg-${fix.reorg.to}-${fix.interval}-${fix.bucket}-${fix.token.slice(2, 10)}`,
        position: { block: fix.reorg.from, logIndex: -1, sub: candleSub(fix.interval) },
        token: fix.token,
        interval: fix.interval,
        data: row ?? {
          token_address: fix.token,
          interval: fix.interval,
          bucket_start: Number(fix.bucket),
          trade_count: 0,
          buy_count: 0,
          sell_count: 0,
          volume: "0",
          buy_volume: "0",
          sell_volume: "0",
          unique_trader_count: 0,
          open_price: null,
          high_price: null,
          low_price: null,
          close_price: null,
        },
      };
    });
  }

  /** Forgets every noted bucket (idle stop). */
  clear(): void {
    this.fixes.clear();
  }
}
