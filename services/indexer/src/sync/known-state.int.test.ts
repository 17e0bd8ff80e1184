import { createTrader, type Devnet, rpc, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  dumpIndexedTables,
  indexToHead,
  insertSyntheticTokens,
  type TestDatabase,
} from "@tmi/testkit";
import pg from "pg";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const KNOWN = 50_000;

/** The JSON lines of `output` with `"action":"<action>"`. */
const lines = (output: string, action: string) =>
  output
    .split("\n")
    .filter((l) => l.includes(`"action":"${action}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("known-token state", () => {
  let devnet: Devnet;
  const dbs: TestDatabase[] = [];

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockTime: "automine" });
  });
  afterAll(async () => {
    await devnet?.stop();
    for (const db of dbs) await db.drop();
  });

  it("behavior: a reorg with 50,000 known tokens touches only what it reverted (no reload)", {
    timeout: 300_000,
  }, async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await insertSyntheticTokens(client, KNOWN, devnet.chainId);
    await client.end();

    const t1 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
    const t2 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
    const { token } = await t1.createToken("Many", "MANY", { value: parseEther("0.05") });
    const indexer = await indexToHead({ ...devnetIndexerOptions(devnet, db.url), timeoutMs: 120_000 });
    try {
      await t2.buy(token, parseEther("0.2"));
      const orphan = await t2.createToken("Orphan", "ORPH");
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      // Replace the last 2 blocks (the buy and the second launch) with empty ones, then trade on.
      await rpc(devnet.rpcUrl, "anvil_reorg", [2, []]);
      await t1.buy(token, parseEther("0.07"));
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      await indexer.stop();

      const output = indexer.output();
      expect(output).toContain("rolled back orphaned blocks");
      // The known tokens were read once, at start, and never again.
      const loads = lines(output, "known_state_loaded");
      expect(loads).toHaveLength(1);
      expect(loads[0]!.tokens).toBe(KNOWN);

      const rows = await dumpIndexedTables(db.url);
      expect(rows.tokens!.some((r) => r.includes(orphan.token.toLowerCase()))).toBe(false);
      const trades = rows.trades!.filter((r) => r.includes(token.toLowerCase()));
      expect(trades).toHaveLength(2); // the launch's first buy and the buy after the reorg
    } finally {
      await indexer.stop();
    }
  });
});
