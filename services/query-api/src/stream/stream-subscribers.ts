import type { ServerResponse } from "node:http";
import { type CandleInterval, compareStreamPositions, type StreamPosition } from "@tmi/shared/market";
import type { FastifyBaseLogger } from "fastify";
import type { DataEventName, StreamEventData } from "./stream-events.js";

// The clients of the live stream: what one asked for (filters, resume position), which events
// it wants, and how bytes reach it.

/** One connected client. */
export interface StreamSubscriber {
  res: ServerResponse;
  ip: string;
  /** Lowercase token addresses, or null for every token. */
  tokens: Set<string> | null;
  /** Lowercase wallet addresses: `trade` events only of these traders; null for every trader. */
  wallets?: Set<string> | null;
  events: Set<DataEventName>;
  interval: CandleInterval;
  /** Frames held back while a resume is being re-read from the database. */
  queue: (string | Buffer)[] | null;
  /** Filter signature (same filters → same bytes, encoded once per batch); see {@link subscriberKey}. */
  key: string;
  /** Skip data events at or before this position (resume from an id ahead of this process). */
  after: StreamPosition | null;
  closed: boolean;
}

/** Signature of a subscriber's filters: subscribers with equal keys receive identical bytes. */
export function subscriberKey(filters: {
  tokens: Set<string> | null;
  wallets?: Set<string> | null;
  events: Set<string>;
  interval: string;
}): string {
  const tokens = filters.tokens ? [...filters.tokens].sort().join(",") : "*";
  const wallets = filters.wallets ? `|${[...filters.wallets].sort().join(",")}` : "";
  return `${filters.interval}|${[...filters.events].sort().join(",")}|${tokens}${wallets}`;
}

/** True when `sub` wants `event` (control events always). */
export function matches(sub: StreamSubscriber, event: StreamEventData): boolean {
  if (event.name === "reorg" || event.name === "reset") {
    sub.after = null;
    return true;
  }
  if (!sub.events.has(event.name)) return false;
  if (event.name === "candle" && event.interval !== sub.interval) return false;
  if (sub.tokens && (event.token === null || !sub.tokens.has(event.token))) return false;
  if (sub.wallets && event.name === "trade" && !sub.wallets.has(event.data.trader as string)) return false;
  if (sub.after && compareStreamPositions(event.position, sub.after) <= 0) return false;
  return true;
}

/**
 * Writes `chunk` to `sub` (held in its queue while its resume is being read; nothing once
 * closed). A subscriber with more than `maxBufferedBytes` unsent bytes is a slow consumer: it is
 * disconnected (logged) instead.
 */
export function writeTo(
  sub: StreamSubscriber,
  chunk: string | Buffer,
  maxBufferedBytes: number,
  logger: FastifyBaseLogger,
): void {
  if (sub.closed) return;
  if (sub.queue) {
    sub.queue.push(chunk);
    return;
  }
  if (sub.res.writableLength > maxBufferedBytes) {
    logger.info({ ip: sub.ip }, "stream: disconnecting a slow subscriber");
    sub.closed = true;
    sub.res.destroy();
    return;
  }
  sub.res.write(chunk);
}
