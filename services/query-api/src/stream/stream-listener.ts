import { INDEXED_CHANNEL } from "@tmi/shared/market";
import type { FastifyBaseLogger } from "fastify";
import pg from "pg";

/** Settings of an {@link IndexedListener}. */
export interface IndexedListenerOptions {
  /** Primary database URL (a replica does not deliver the indexer's NOTIFY). */
  url: string;
  logger: FastifyBaseLogger;
  /** Called with the payload of every `tmi_indexed` notification. */
  onNotification: (payload: string | undefined) => void;
  /** Called after a lost connection is back (to catch up on what was committed meanwhile). */
  onReconnected: () => void;
  /** True once the owner stopped for good: no reconnect then. */
  stopped: () => boolean;
}

/**
 * The stream's dedicated `pg` connection LISTENing on `tmi_indexed` (the indexer's commit
 * notification). A connection that fails or ends is replaced, retried after 0.5 s, doubling up
 * to 10 s, until it is back or the owner stopped.
 */
export class IndexedListener {
  private client: pg.Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: IndexedListenerOptions) {}

  /** Opens the connection and LISTENs; rejects when the database cannot be reached. */
  async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: "query-api-stream-listen",
    });
    client.on("notification", (message) => {
      if (message.channel !== INDEXED_CHANNEL) return;
      this.options.onNotification(message.payload);
    });
    client.on("error", (error) => {
      this.options.logger.warn({ err: error }, "stream listener connection failed");
      this.reconnect(client);
    });
    client.on("end", () => this.reconnect(client));
    await client.connect();
    await client.query(`LISTEN ${INDEXED_CHANNEL}`);
    this.client = client;
  }

  private reconnect(client: pg.Client): void {
    if (this.options.stopped() || this.client !== client) return;
    this.client = null;
    client.removeAllListeners("end");
    client.end().catch(() => {});
    const attempt = (delay: number) => {
      this.reconnectTimer = setTimeout(() => {
        if (this.options.stopped()) return;
        this.connect()
          .then(() => this.options.onReconnected())
          .catch(() => attempt(Math.min(delay * 2, 10_000)));
      }, delay);
      this.reconnectTimer.unref();
    };
    attempt(500);
  }

  /**
   * Cancels a pending reconnect and ends the connection, with no reconnect after it (the
   * cancelling is synchronous; the promise resolves when the connection is closed).
   */
  async close(): Promise<void> {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners("end");
      await client.end().catch(() => {});
    }
  }
}
