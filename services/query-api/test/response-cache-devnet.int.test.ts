// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// No stale answer from the response cache: several routes are polled without pause through the
// cached app while the real indexer follows an automine devnet that gets trades and an
// `anvil_reorg` orphaning the last two blocks. Every answer served from the cache is compared with the answer of
// an uncached app at the same indexed block (number and hash; taken only when the checkpoint
// read just before and just after that request was the same), and no answer to a request sent
// after the indexer committed the reorg carries an orphaned block or transaction.
import { createTrader, type Devnet, rpc, type Trader } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import { waitFor } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import {
  type IndexedDevnetApp,
  type QueryApiApp,
  startIndexedDevnetApp,
  TEST_CURSOR_SECRET,
} from "./harness.js";

const ETH = 10n ** 18n;

let env: IndexedDevnetApp<QueryApiApp>;
let devnet: Devnet;
let uncached: QueryApiApp;
let admin: pg.Pool;
let wallets: [Trader, Trader, Trader, Trader];
let token: `0x${string}`;

const appOf = (reader: pg.Pool, cache: boolean) =>
  buildApp({
    pool: reader,
    config: {
      cursorSecret: TEST_CURSOR_SECRET,
      corsOrigins: "*",
      ...(cache ? { responseCache: { enabled: true, maxBytes: 16 * 1024 * 1024, maxAgeMs: 60_000 } } : {}),
    },
    logger: createLogger({ service: "query-api-test", level: "silent" }),
  });

beforeAll(async () => {
  env = await startIndexedDevnetApp({
    beforeIndex: async (chain) => {
      const creator = createTrader({ rpcUrl: chain.rpcUrl, deployment: chain.deployment, account: 1 });
      token = (await creator.createToken("Cache Reorg", "CREO", { value: ETH / 20n })).token;
    },
    app: (reader) => appOf(reader, true),
  });
  devnet = env.devnet;
  uncached = await appOf(env.reader, false);
  admin = new pg.Pool({ connectionString: env.database.url, max: 2 });
  admin.on("error", () => {});
  wallets = [1, 2, 3, 4].map((account) =>
    createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account }),
  ) as [Trader, Trader, Trader, Trader];
}, 240_000);

afterAll(async () => {
  await uncached?.close();
  await admin?.end();
  await env?.stop();
});

interface Answer {
  route: string;
  afterReorg: boolean;
  status: number;
  /** `<block number>:<block hash>` of the answer's headers. */
  at: string;
  cache: unknown;
  body: string;
}

/** The answer as compared: the detail's `stats` are left out (the uncached app takes them at a checkpoint up to 250 ms old). */
function comparable(route: string, body: string): string {
  if (!route.endsWith(token)) return body;
  const { stats: _stats, ...rest } = JSON.parse(body);
  return JSON.stringify(rest);
}

async function checkpoint(): Promise<string | undefined> {
  const { rows } = await admin.query<{ at: string }>(
    "SELECT block_number::text || ':' || block_hash AS at FROM indexer_checkpoints ORDER BY chain_id LIMIT 1",
  );
  return rows[0]?.at;
}

async function head(): Promise<string> {
  const block = await rpc<{ number: string; hash: string }>(devnet.rpcUrl, "eth_getBlockByNumber", [
    "latest",
    false,
  ]);
  return `${BigInt(block.number)}:${block.hash}`;
}

describe("response cache under a reorg", () => {
  test("default: a steady poll of several routes across trades and an anvil_reorg gets only answers of the indexed block", async () => {
    const [, bob, carol, dave] = wallets;
    await bob.buy(token, ETH / 10n);
    const routes = [
      "/api/v1/tokens?sort=newest&limit=5",
      `/api/v1/tokens/${token}`,
      `/api/v1/tokens/${token}/trades?limit=50`,
      `/api/v1/wallets/${bob.address.toLowerCase()}`,
      `/api/v1/tokens/${token}/holders`,
    ];
    const answers: Answer[] = [];
    /** Uncached answers by `<route> <block>:<hash>`. */
    const reference = new Map<string, string>();
    let afterReorg = false;
    let stop = false;

    const poller = async (offset: number) => {
      for (let i = offset; !stop; i++) {
        const route = routes[i % routes.length]!;
        const sentAfterReorg = afterReorg;
        const res = await env.app.inject({ url: route });
        answers.push({
          route,
          afterReorg: sentAfterReorg,
          status: res.statusCode,
          at: `${res.headers["x-indexed-block"]}:${res.headers["x-indexed-hash"]}`,
          cache: res.headers["x-cache"],
          body: res.body,
        });
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const referee = async () => {
      for (let i = 0; !stop; i++) {
        const route = routes[i % routes.length]!;
        const before = await checkpoint();
        const res = await uncached.inject({ url: route });
        const after = await checkpoint();
        if (res.statusCode === 200 && before !== undefined && before === after)
          reference.set(`${route} ${before}`, res.body);
      }
    };
    /** Resolves once the indexer shows the chain's head and every route was answered (and referenced) there. */
    const settled = async (message: string) => {
      const top = await head();
      await waitFor(
        async () =>
          (await checkpoint()) === top &&
          routes.every(
            (route) =>
              reference.has(`${route} ${top}`) &&
              answers.some((a) => a.route === route && a.at === top && a.cache === "hit"),
          ),
        { timeoutMs: 120_000, intervalMs: 50, message },
      );
      return top;
    };
    const polling = Promise.all([poller(0), poller(1), poller(3), referee()]);
    try {
      await carol.buy(token, ETH / 25n);
      await settled("trades indexed and polled");
      // Two blocks with trades, indexed and polled, then orphaned (empty replacements).
      const orphanTxs = [(await dave.buy(token, ETH / 30n)).hash, (await bob.buy(token, ETH / 40n)).hash];
      const beforeReorg = await settled("trades to orphan indexed and polled");
      const top = BigInt(beforeReorg.split(":")[0]!);
      const orphanBlocks = [beforeReorg];
      const parent = await rpc<{ hash: string }>(devnet.rpcUrl, "eth_getBlockByNumber", [
        `0x${(top - 1n).toString(16)}`,
        false,
      ]);
      orphanBlocks.push(`${top - 1n}:${parent.hash}`);
      await rpc(devnet.rpcUrl, "anvil_reorg", [2, []]);
      const reorged = await head();
      expect(reorged).not.toBe(beforeReorg);
      await waitFor(async () => (await checkpoint()) === reorged, {
        timeoutMs: 120_000,
        intervalMs: 20,
        message: "reorg indexed",
      });
      afterReorg = true;
      await settled("reorg polled");
      await carol.buy(token, ETH / 50n);
      await settled("trade after the reorg indexed and polled");
      stop = true;
      await polling;

      for (const hash of orphanTxs)
        expect(await rpc(devnet.rpcUrl, "eth_getTransactionReceipt", [hash])).toBeNull();
      let compared = 0;
      let comparedAfter = 0;
      for (const answer of answers) {
        // While the indexer rolls back, the token may be gone for a moment (404, as uncached).
        if (answer.afterReorg) expect(answer.status, `${answer.route}: ${answer.body}`).toBe(200);
        // Hits are compared: a miss is computed as the uncached app does (its data may be a
        // block newer than its X-Indexed-Block when the indexer committed meanwhile; such a miss
        // is not kept); a request that found no checkpoint (the indexer's rollback had removed
        // it) was answered uncached, without X-Cache.
        const expected =
          answer.cache !== "hit" || answer.status !== 200
            ? undefined
            : reference.get(`${answer.route} ${answer.at}`);
        if (expected !== undefined) {
          expect(
            comparable(answer.route, answer.body),
            `${answer.route} at ${answer.at} (${answer.cache})`,
          ).toBe(comparable(answer.route, expected));
          compared++;
          if (answer.afterReorg) comparedAfter++;
        }
        if (answer.afterReorg) {
          expect(orphanBlocks).not.toContain(answer.at);
          for (const hash of orphanTxs) expect(answer.body).not.toContain(hash.toLowerCase());
        }
      }
      const hits = answers.filter((a) => a.cache === "hit");
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.some((a) => a.afterReorg)).toBe(true);
      expect(compared).toBeGreaterThan(routes.length * 3);
      expect(comparedAfter).toBeGreaterThan(routes.length);
    } finally {
      stop = true;
      await polling;
    }
  }, 600_000);
});
