import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTrader, type Devnet, startDevnet } from "@tmi/devnet";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  startIndexer,
  type TestDatabase,
} from "@tmi/testkit";
import pg from "pg";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("a chain whose old state is gone (anvil resumed from a state dump)", () => {
  let devnet: Devnet;
  let db: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), "tmi-resumed-"));
  const launched: { token: string; name: string }[] = [];

  beforeAll(async () => {
    const files = { stateFile: join(dir, "state.json"), deploymentFile: join(dir, "deployment.json") };
    const first = await startDevnet({ port: 0, blockTime: "automine", ...files });
    const t = createTrader({ rpcUrl: first.rpcUrl, deployment: first.deployment, account: 1 });
    for (const name of ["Old State One", "Old State Two"]) {
      const r = await t.createToken(name, name.slice(-3).toUpperCase(), { value: parseEther("0.01") });
      launched.push({ token: r.token, name });
    }
    await first.stop(); // dumps the state; the resumed anvil keeps no state of the old blocks
    devnet = await startDevnet({ port: 0, blockTime: "automine", ...files });
    expect(devnet.resumed).toBe(true);
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await devnet?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("default", async () => {
    // The node refuses calls at the launch blocks ...
    const res = await fetch(devnet.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_call",
        params: [
          { to: launched[0]!.token, data: "0x06fdde03" },
          `0x${devnet.deployment.startBlock.toString(16)}`,
        ],
      }),
    });
    const body = (await res.json()) as { error?: { message: string }; result?: string };
    expect(body.error?.message ?? `answered ${body.result}`).toMatch(/block|state|not found|height/i);
    // ... and the indexer still names every token (read at the latest block), without stalling.
    const indexer = startIndexer(devnetIndexerOptions(devnet, db.url));
    try {
      await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 60_000);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const rows = (
        await client.query<{ address: string; name: string }>(
          "SELECT address, name FROM tokens ORDER BY created_block_number",
        )
      ).rows;
      await client.end();
      expect(rows).toEqual(launched.map((l) => ({ address: l.token, name: l.name })));
      const base = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(indexer.output())?.[1];
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(
        Number(/^indexer_latest_state_fallbacks\{[^}]*\} (\d+)$/m.exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(4);
    } finally {
      await indexer.stop();
    }
  });
});
