import { ensureDatabase, migrate } from "@tmi/db";
import { createTrader, type Devnet, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  devnetIndexerOptions,
  type PostgresCluster,
  startIndexer,
  startPostgresCluster,
  waitFor,
} from "@tmi/testkit";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("PostgreSQL outage (a cluster of the test's own, stopped and started)", () => {
  let devnet: Devnet;
  let cluster: PostgresCluster;
  let n = 0;
  /** A new migrated database on the test's cluster. */
  const newDatabase = async () => {
    const url = cluster.url(`tmi_outage_${n++}`);
    await ensureDatabase(url);
    await migrate({ databaseUrl: url });
    return url;
  };

  beforeAll(async () => {
    [devnet, cluster] = await Promise.all([
      startDevnet({ port: 0, blockTime: "automine" }),
      startPostgresCluster(),
    ]);
    const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
    await t.createToken("Outage Token", "OUT", { value: parseEther("0.05") });
  });
  afterAll(async () => {
    await devnet?.stop();
    await cluster?.destroy();
  });

  it("default", async () => {
    const url = await newDatabase();
    const indexer = startIndexer(devnetIndexerOptions(devnet, url));
    try {
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 60_000);
      await cluster.stop();
      await waitFor(() => indexer.output().includes('"action":"db_outage"'), {
        timeoutMs: 30_000,
        message: "no db_outage log line",
      });
      // The chain moves on while the database is down.
      const t = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
      const created = await t.createToken("During Outage", "DUR", { value: parseEther("0.01") });
      expect(indexer.child.exitCode).toBeNull();
      await cluster.start();
      await waitFor(() => indexer.output().includes('"action":"db_recovered"'), {
        timeoutMs: 30_000,
        message: "no db_recovered log line",
      });
      await indexer.waitForBlock(created.firstBuy!.receipt.blockNumber, 60_000);
      expect(indexer.child.exitCode).toBeNull();
      expect(indexer.output()).not.toMatch(/EPIPE[\s\S]*uncaught|Unhandled/i);
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: DB_OUTAGE_MAX_MS=0 exits at once with a fatal line", async () => {
    if (!cluster) throw new Error("no cluster");
    await cluster.start().catch(() => {});
    const url = await newDatabase();
    const indexer = startIndexer({ ...devnetIndexerOptions(devnet, url), env: { DB_OUTAGE_MAX_MS: "0" } });
    try {
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 60_000);
      await cluster.stop();
      const code = await new Promise<number | null>((resolve) =>
        indexer.child.once("exit", (c) => resolve(c)),
      );
      expect(code).toBe(3);
      expect(indexer.output()).toMatch(
        /"level":60[^\n]*"action":"db_unavailable"|"action":"db_unavailable"[^\n]*"level":60/,
      );
    } finally {
      await indexer.kill();
      await cluster.start().catch(() => {});
    }
  });
});
