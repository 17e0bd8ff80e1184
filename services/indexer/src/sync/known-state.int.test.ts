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
    const bystander = await t1.createToken("Bystander", "BYST", { value: parseEther("0.05") });
    const indexer = await indexToHead({ ...devnetIndexerOptions(devnet, db.url), timeoutMs: 120_000 });
    try {
      await t2.buy(bystander.token, parseEther("0.1"));
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl));
      await t2.buy(token, parseEther("0.2"));
      const orphan = await t2.createToken("Orphan", "ORPH");
      const beforeReorg = await chainHead(devnet.rpcUrl);
      await indexer.waitForBlock(beforeReorg);
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
      // ...and not all of them: a bounded seed, the addresses met looked up in `tokens`.
      expect(loads[0]).toMatchObject({ complete: false });
      expect(loads[0]!.addresses_read).toBeLessThanOrEqual(10_001);
      expect(output).not.toContain('"action":"emitter_set_completed"');
      // The reorg forgot the state of the tokens named above the block it reverted to (the
      // journal may revert a whole write spanning the ancestor), nothing of the 50,000 others.
      const invalidations = lines(output, "known_state_invalidated");
      const reorgInvalidation = invalidations.at(-1);
      expect(reorgInvalidation, JSON.stringify(invalidations)).toBeDefined();
      expect(reorgInvalidation!.above_block).toBeLessThan(beforeReorg);
      expect(
        (reorgInvalidation!.dropped as number) + (reorgInvalidation!.kept as number),
      ).toBeLessThanOrEqual(3);

      const rows = await dumpIndexedTables(db.url);
      expect(rows.tokens!.some((r) => r.includes(orphan.token.toLowerCase()))).toBe(false);
      const trades = rows.trades!.filter((r) => r.includes(token.toLowerCase()));
      expect(trades).toHaveLength(2); // the launch's first buy and the buy after the reorg
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: with a token cache of one token, evicted tokens read back give the same rows as a large cache", {
    timeout: 300_000,
  }, async () => {
    const small = await createTestDatabase();
    const large = await createTestDatabase();
    dbs.push(small, large);
    const t1 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 3 });
    const t2 = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 4 });
    const a = await t1.createToken("Evicted A", "EVA", { value: parseEther("0.05") });
    const b = await t1.createToken("Evicted B", "EVB", { value: parseEther("0.05") });
    const options = { ...devnetIndexerOptions(devnet, small.url), timeoutMs: 120_000 };
    const cached = await indexToHead({ ...options, env: { KNOWN_TOKENS_CACHE: "1" } });
    const reference = await indexToHead({ ...options, databaseUrl: large.url });
    try {
      // Each trade in its own block, indexed before the next: every range names one token, the
      // other is evicted in between and read back from `tokens` when traded again.
      const step = async (trade: () => Promise<unknown>) => {
        await trade();
        const head = await chainHead(devnet.rpcUrl);
        await cached.waitForBlock(head);
        await reference.waitForBlock(head);
      };
      await step(() => t2.buy(a.token, parseEther("0.1")));
      await step(() => t2.buy(b.token, parseEther("0.2")));
      await step(async () => t2.sell(a.token, (await t2.balanceOf(a.token)) / 2n));
      await step(() => t1.buy(b.token, parseEther("0.05")));
      await step(() => t1.buy(a.token, parseEther("0.3")));

      const base = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(cached.output())?.[1];
      expect(base).toBeDefined();
      const metrics = await (await fetch(`${base}/metrics`)).text();
      const value = (name: string) =>
        Number(/\s(\S+)$/.exec(metrics.split("\n").find((l) => l.startsWith(`${name}{`)) ?? "")?.[1]);
      expect(value("indexer_token_evictions_total")).toBeGreaterThanOrEqual(3);
      expect(value("indexer_cached_tokens")).toBeLessThanOrEqual(2);
      await cached.stop();
      await reference.stop();
      expect(await dumpIndexedTables(small.url)).toEqual(await dumpIndexedTables(large.url));
    } finally {
      await cached.stop();
      await reference.stop();
    }
  });
});
