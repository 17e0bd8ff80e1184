import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Devnet, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  type IndexerProcess,
  startIndexer,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A JSON-RPC proxy in front of the node that can hold every request (answering none until
 * released): what a hung node looks like to the indexer.
 */
function startHoldingProxy(target: string): Promise<{
  url: string;
  hold(on: boolean): void;
  close(): Promise<void>;
}> {
  let holding = false;
  const held: (() => void)[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const forward = () => {
        fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: Buffer.concat(chunks),
        })
          .then(async (answer) => {
            res.writeHead(answer.status, { "content-type": "application/json" });
            res.end(Buffer.from(await answer.arrayBuffer()));
          })
          .catch(() => res.destroy());
      };
      if (holding) held.push(forward);
      else forward();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        hold(on) {
          holding = on;
          if (!on) for (const release of held.splice(0)) release();
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The value of an unlabelled-but-`chain_id` gauge in Prometheus text. */
function gauge(metrics: string, name: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in\n${metrics}`);
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}

let devnet: Devnet;
let db: TestDatabase;
let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
let indexer: IndexerProcess | null = null;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: 1 });
  db = await createTestDatabase();
  proxy = await startHoldingProxy(devnet.rpcUrl);
});

afterAll(async () => {
  proxy?.hold(false);
  await indexer?.stop();
  await proxy?.close();
  await devnet?.stop();
  await db?.drop();
});

describe("indexer lag while the node hangs", () => {
  it("behavior: a node that holds every request shows within HEAD_STALE_MS: lag grows, /readyz fails, status sees it", async () => {
    const options = devnetIndexerOptions({ ...devnet, rpcUrl: proxy.url }, db.url);
    indexer = startIndexer({
      ...options,
      env: { POLL_INTERVAL_MS: "250", HEAD_STALE_MS: "3000", RPC_TIMEOUT_MS: "60000" },
    });
    await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 120_000);
    const base = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(indexer.output())?.[1];
    expect(base).toBeDefined();
    const metrics = async () => (await fetch(`${base}/metrics`)).text();
    const ready = async () => (await fetch(`${base}/readyz`)).status;
    await waitFor(async () => (await ready()) === 200, { timeoutMs: 60_000, message: "never ready" });
    // The head heartbeat reaches the checkpoint row.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const row = async () =>
      (
        await client.query<{ head: string; age: number; stale_after: number | null }>(
          `SELECT head_block_number::text AS head, extract(epoch FROM now() - head_seen_at)::float AS age,
                  head_stale_after_ms AS stale_after FROM indexer_checkpoints`,
        )
      ).rows[0]!;
    try {
      await waitFor(async () => (await row()).stale_after === 3000, {
        timeoutMs: 30_000,
        message: "no head heartbeat",
      });
      expect((await row()).age).toBeLessThan(3);

      // The block-interval estimate behind indexer_lag_blocks needs two heads seen (the indexer
      // may have caught up on its first): wait for the next head before the node hangs.
      const seen = gauge(await metrics(), "indexer_head_block");
      await waitFor(async () => gauge(await metrics(), "indexer_head_block") > seen, {
        timeoutMs: 60_000,
        message: "no second head seen",
      });

      // The node hangs: the chain goes on (1 s blocks), the indexer hears nothing.
      proxy.hold(true);
      const heldAt = await chainHead(devnet.rpcUrl);
      await waitFor(async () => (await ready()) === 503, {
        timeoutMs: 60_000,
        message: `readiness did not fail while the node hangs\n${await metrics()}`,
      });
      // The lag grows with wall time, in seconds and (estimated from the block interval) in blocks.
      await waitFor(async () => gauge(await metrics(), "indexer_lag_seconds") >= 6, {
        timeoutMs: 60_000,
        message: "indexer_lag_seconds did not grow",
      });
      const text = await metrics();
      expect(gauge(text, "indexer_head_stale")).toBe(1);
      expect(gauge(text, "indexer_head_age_seconds")).toBeGreaterThan(3);
      expect(gauge(text, "indexer_lag_blocks")).toBeGreaterThan(0);
      expect(await chainHead(devnet.rpcUrl)).toBeGreaterThan(heldAt);
      // What /api/v1/status reads: the head seen long ago (stale by the threshold written beside it)
      // and the estimated head beyond the indexed block.
      const stale = await row();
      expect(stale.age * 1000).toBeGreaterThan(3000);
      const indexed = await indexer.indexedBlock();
      expect(Number(stale.head)).toBeGreaterThan(indexed!);

      // The node answers again: the indexer catches up and is ready.
      proxy.hold(false);
      await waitFor(async () => (await ready()) === 200, {
        timeoutMs: 120_000,
        message: `not ready after the node came back\n${indexer.output().slice(-3000)}`,
      });
      expect(gauge(await metrics(), "indexer_head_stale")).toBe(0);
    } finally {
      await client.end();
    }
  }, 300_000);
});
