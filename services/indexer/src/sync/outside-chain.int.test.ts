import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createTrader, type Devnet, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  type StartIndexerOptions,
  startIndexer,
  type TestDatabase,
  waitFor,
} from "@tmi/testkit";
import pg from "pg";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

async function query<T = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A JSON-RPC proxy in front of the devnet that can stop answering (a hung node): requests are
 * forwarded until `hang` is set, then held open forever.
 */
function hangingProxy(target: string) {
  const held = new Set<ServerResponse>();
  /** `hang`: hold every request open; `down`: answer 502 (a node behind a failing proxy). */
  const state = { hang: false, down: false, held };
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (state.hang) {
      held.add(res);
      return;
    }
    if (state.down) {
      res.writeHead(502).end("bad gateway");
      return;
    }
    const upstream = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.concat(chunks),
    }).catch(() => null);
    if (!upstream) {
      res.writeHead(502).end();
      return;
    }
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  return {
    state,
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The indexer of an outside chain: only RPC_URL, CHAIN_ID, FACTORY_ADDRESS and START_BLOCK. */
function outsideChainOptions(
  devnet: Devnet,
  db: TestDatabase,
  env: Record<string, string> = {},
): StartIndexerOptions {
  return {
    databaseUrl: db.url,
    rpcUrl: devnet.rpcUrl,
    chainId: 8453,
    factoryAddress: devnet.deployment.contracts.factory,
    startBlock: devnet.deployment.startBlock,
    env,
  };
}

describe("an outside chain (chain id 8453, no devnet of ours)", () => {
  let devnet: Devnet;
  const dbs: TestDatabase[] = [];
  const newDb = async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    return db;
  };

  beforeAll(async () => {
    // Started on its own, as someone else's chain would be: the indexer learns only its URL,
    // chain id, factory and start block.
    devnet = await startDevnet({ port: 0, chainId: 8453, blockTime: "automine" });
  });
  afterAll(async () => {
    await devnet?.stop();
    for (const db of dbs) await db.drop();
  });

  it("default", async () => {
    const alice = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
    const bob = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 2 });
    const a = await alice.createToken("Outside Alpha", "OALP", { value: parseEther("0.2") });
    const b = await bob.createToken("Outside Beta", "OBET");
    await bob.buy(a.token, parseEther("0.1"));
    const graduated = await alice.graduate(b.token);
    await bob.swapExactEthForTokens(b.token, parseEther("0.05"));
    const db = await newDb();
    const indexer = startIndexer(outsideChainOptions(devnet, db));
    try {
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 90_000);
      const tokens = await query<{
        address: string;
        name: string;
        symbol: string;
        curve_address: string;
        pool_address: string;
        lifecycle: string;
      }>(
        db.url,
        "SELECT address, name, symbol, curve_address, pool_address, lifecycle FROM tokens ORDER BY created_block_number",
      );
      expect(tokens).toEqual([
        {
          address: a.token,
          name: "Outside Alpha",
          symbol: "OALP",
          curve_address: a.curve,
          pool_address: a.pool,
          lifecycle: "active",
        },
        {
          address: b.token,
          name: "Outside Beta",
          symbol: "OBET",
          curve_address: b.curve,
          pool_address: graduated.pool,
          lifecycle: "graduated",
        },
      ]);
      const swaps = await query<{ trader: string }>(
        db.url,
        "SELECT trader FROM trades WHERE source = 'uniswap_v3'",
      );
      expect(swaps).toEqual([{ trader: bob.address.toLowerCase() }]);
      // Live: a graduation, then swaps on its pool in later blocks (the pool joins the log filter).
      await alice.graduate(a.token);
      await bob.swapExactEthForTokens(a.token, parseEther("0.01"));
      const last = await alice.swapExactEthForTokens(a.token, parseEther("0.01"));
      await indexer.waitForBlock(last.receipt.blockNumber, 30_000);
      const liveSwaps = await query<{ trader: string }>(
        db.url,
        "SELECT trader FROM trades WHERE source = 'uniswap_v3' AND token_address = $1 ORDER BY block_number",
        [a.token],
      );
      expect(liveSwaps.map((t) => t.trader)).toEqual([
        bob.address.toLowerCase(),
        alice.address.toLowerCase(),
      ]);
      // The managers and WETH were read from the factory (nothing but the four settings given).
      const out = indexer.output();
      expect(out).toContain(
        `"graduationManager":"${devnet.deployment.contracts.graduationManager.toLowerCase()}"`,
      );
      expect(out).toContain(`"weth":"${devnet.deployment.contracts.weth.toLowerCase()}"`);
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: a log that cannot be stored is narrowed down, recorded, reported and skipped; indexing goes on", async () => {
    const db = await newDb();
    // A value this database refuses, as PostgreSQL refuses a NUL in text: the launch of any token
    // named "Poison…" fails to write (SQLSTATE 22P05), whatever the indexer does with it.
    await query(
      db.url,
      `CREATE FUNCTION test_refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.name LIKE 'Poison%' THEN
           RAISE EXCEPTION 'unsupported Unicode escape sequence' USING ERRCODE = '22P05';
         END IF;
         RETURN NEW;
       END $$`,
    );
    await query(
      db.url,
      "CREATE TRIGGER test_refuse_poison BEFORE INSERT ON tokens FOR EACH ROW EXECUTE FUNCTION test_refuse_poison()",
    );
    const carol = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 3 });
    const before = await carol.createToken("Good Before", "GB1", { value: parseEther("0.01") });
    const poison = await carol.createToken("Poison Pill", "PSN", { value: parseEther("0.01") });
    await carol.buy(poison.token, parseEther("0.01"));
    const after = await carol.createToken("Good After", "GB2", { value: parseEther("0.01") });
    const indexer = startIndexer(outsideChainOptions(devnet, db, { RANGE_FAILURES_BEFORE_ISOLATION: "1" }));
    try {
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 90_000);
      const names = (await query<{ name: string }>(db.url, "SELECT name FROM tokens")).map((r) => r.name);
      expect(names).toEqual(expect.arrayContaining(["Good Before", "Good After"]));
      expect(names).not.toContain("Poison Pill");
      const skipped = await query<{
        block_number: string;
        transaction_hash: string;
        contract_address: string;
        reason: string;
      }>(db.url, "SELECT block_number::text, transaction_hash, contract_address, reason FROM skipped_logs");
      expect(skipped).toEqual([
        {
          block_number: String(poison.receipt.blockNumber),
          transaction_hash: poison.hash.toLowerCase(),
          contract_address: devnet.deployment.contracts.factory.toLowerCase(),
          reason: expect.stringContaining("22P05"),
        },
      ]);
      expect(indexer.output()).toMatch(/"action":"log_skipped"/);
      const base = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(indexer.output())?.[1];
      expect(base).toBeDefined();
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^indexer_skipped_logs_total\{[^}]*\} 1$/m);
      const trades = await query<{ token_address: string }>(
        db.url,
        "SELECT DISTINCT token_address FROM trades",
      );
      const traded = trades.map((t) => t.token_address);
      expect(traded).toEqual(expect.arrayContaining([before.token, after.token]));
      expect(traded).not.toContain(poison.token);
      // Live indexing continues past the skipped log.
      const later = await carol.buy(after.token, parseEther("0.01"));
      await indexer.waitForBlock(later.receipt.blockNumber, 30_000);
    } finally {
      await indexer.stop();
    }
  });

  it("behavior: SIGTERM while an RPC call hangs exits 0 at once", async () => {
    const db = await newDb();
    const proxy = hangingProxy(devnet.rpcUrl);
    const url = await proxy.listen();
    const indexer = startIndexer({
      ...outsideChainOptions(devnet, db),
      rpcUrl: url,
      env: { RPC_TIMEOUT_MS: "600000" },
    });
    try {
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 90_000);
      proxy.state.hang = true;
      // The live loop polls the head: wait until a call is held open by the "node".
      await waitFor(() => proxy.state.held.size > 0, { timeoutMs: 10_000, intervalMs: 20 });
      const signalled = performance.now();
      const code = await indexer.stop("SIGTERM");
      // Reported, not asserted (durations depend on the machine's load).
      process.stderr.write(
        `[outside-chain] SIGTERM → exit ${code} after ${Math.round(performance.now() - signalled)} ms\n`,
      );
      expect(code).toBe(0);
      expect(indexer.output()).toContain('"action":"shutdown"');
    } finally {
      await indexer.kill();
      await proxy.close();
    }
  });

  it("behavior: a node that does not answer at start is waited for (no crash loop)", async () => {
    const db = await newDb();
    const proxy = hangingProxy(devnet.rpcUrl);
    const url = await proxy.listen();
    proxy.state.down = true;
    const indexer = startIndexer({
      ...outsideChainOptions(devnet, db),
      rpcUrl: url,
      env: { RPC_TIMEOUT_MS: "2000" },
    });
    try {
      await waitFor(() => indexer.output().includes('"action":"rpc_unavailable"'), {
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      expect(indexer.child.exitCode).toBeNull();
      proxy.state.down = false;
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 90_000);
    } finally {
      await indexer.stop();
      await proxy.close();
    }
  });
});
