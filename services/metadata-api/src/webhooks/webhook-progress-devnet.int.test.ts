// `token.progress` webhooks on the devnet with the real indexer: buys and sells on a curve cross
// the subscription's thresholds; each crossing is delivered once in canonical history (a
// re-crossing after a sell is not), an anvil reorg that undoes a crossing delivers its
// `token.progress.removed`, and the re-crossing on the new branch delivers again. The expected
// crossing trade of each threshold is computed from the indexed trades with the REST rule of
// `curve.progress_bps`.
import { createPgPool } from "@tmi/db";
import { createTrader, type Devnet, rpc, startDevnet } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import { progressBps } from "@tmi/shared/market";
import {
  chainHead,
  createTestDatabase,
  devnetIndexerOptions,
  flushPrefix,
  type IndexerProcess,
  indexToHead,
  redisTestPrefix,
  type TestDatabase,
  testRedisUrl,
  waitFor,
} from "@tmi/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { webhookProgressEventSchema } from "../../../../test/src/platform-schemas.js";
import { createHarness, type Harness, testPolicy, testResolver } from "../../test/harness.js";
import { insertApiKey, type Receiver, receivedOn, startReceiver } from "../../test/webhook-receiver.js";
import {
  createDeliveryQueue,
  type DeliveryQueue,
  startWebhookDispatcher,
  type WebhookDispatcher,
} from "./webhook-dispatcher.js";

/** `ether` ETH in wei (up to 6 decimals). */
const parseEther = (ether: string): bigint => BigInt(Math.round(Number(ether) * 1e6)) * 10n ** 12n;

const KEY = `tmi_${"P".repeat(43)}`;
const auth = { authorization: `Bearer ${KEY}` };
const THRESHOLDS = [100, 200, 300, 400];

let devnet: Devnet;
let database: TestDatabase;
let indexer: IndexerProcess;
let h: Harness;
let receiver: Receiver;
let redis: Redis;
let prefix: string;
let queue: DeliveryQueue;
let pool: ReturnType<typeof createPgPool>;
let dispatcher: WebhookDispatcher;
const resolver = testResolver();

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine" });
  database = await createTestDatabase();
  indexer = await indexToHead(devnetIndexerOptions(devnet, database.url));
  receiver = await startReceiver();
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  prefix = redisTestPrefix("webhook-progress");
  queue = createDeliveryQueue(redis, prefix.slice(0, -1));
  h = await createHarness({
    driver: "fs",
    database,
    webhooks: { queue, urlPolicy: { policy: testPolicy, resolver } },
  });
  pool = createPgPool({ url: database.url, max: 4 });
  await insertApiKey(h.sql, "key_progress", KEY);
  dispatcher = startWebhookDispatcher({
    pool,
    connection: redis,
    prefix: prefix.slice(0, -1),
    network: { policy: testPolicy, resolver },
    settings: { backoffBaseMs: 100, backoffMaxMs: 400, pollMs: 30, reconcileMs: 300, timeoutMs: 3000 },
    logger: createLogger({ service: "webhook-progress-test", level: "silent" }),
  });
  await dispatcher.ready();
}, 240_000);

afterAll(async () => {
  await dispatcher?.close();
  await queue?.close();
  await pool?.end();
  await h?.close();
  await indexer?.stop();
  await devnet?.stop();
  await database?.drop();
  if (redis) {
    await flushPrefix(redis, prefix);
    redis.disconnect();
  }
  await receiver?.close();
});

/** POST /api/v1/webhooks with `body` (the receiver's URL unless given). */
function create(body: Record<string, unknown>) {
  return h.app.inject({
    method: "POST",
    url: "/api/v1/webhooks",
    headers: auth,
    payload: { url: `http://img.test:${receiver.port}/progress`, events: ["token.progress"], ...body },
  });
}

/** The first indexed curve trade of `token` whose progress reaches each threshold, by position. */
async function expectedCrossings(token: string): Promise<Map<number, { block: number; log: number }>> {
  const rows = await h.sql.query<{
    block_number: string;
    log_index: number;
    sold: string;
    threshold: string;
  }>(
    `SELECT tr.block_number, tr.log_index, tr.curve_sold_supply::text AS sold, t.graduation_threshold::text AS threshold
     FROM trades tr JOIN tokens t ON t.address = tr.token_address
     WHERE tr.token_address = $1 AND tr.source = 'curve' ORDER BY tr.block_number, tr.log_index`,
    [token],
  );
  const out = new Map<number, { block: number; log: number }>();
  for (const r of rows.rows) {
    const bps = progressBps(BigInt(r.sold), BigInt(r.threshold));
    for (const t of THRESHOLDS)
      if (bps >= t && !out.has(t)) out.set(t, { block: Number(r.block_number), log: r.log_index });
  }
  return out;
}

const progressEvents = () => receivedOn(receiver, "/progress");
/** Distinct delivered events (by id) of `type` and threshold. */
const delivered = (type: string, threshold: number) => [
  ...new Map(
    progressEvents()
      .filter((r) => r.type === type && r.data.threshold_bps === threshold)
      .map((r) => [r.id, r]),
  ).values(),
];

describe("token.progress on the devnet", () => {
  test("error: thresholds are validated (400 invalid_request naming the field)", async () => {
    for (const filters of [
      {},
      { progress_bps: [] },
      { progress_bps: [0] },
      { progress_bps: [10_001] },
      { progress_bps: [50.5] },
      { progress_bps: [500, 500] },
      { progress_bps: "500" },
    ]) {
      const response = await create({ filters });
      expect(response.statusCode, JSON.stringify(filters)).toBe(400);
      expect(response.json().error.code).toBe("invalid_request");
      expect(response.json().error.message).toMatch(/^filters\.progress_bps/);
    }
    const ok = await create({
      url: `http://img.test:${receiver.port}/other`,
      filters: { progress_bps: [300, 100] },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().filters).toEqual({ progress_bps: [100, 300] });
    // A PATCH that leaves token.progress without thresholds is refused; dropping the event is not.
    const id = ok.json().id as string;
    const patch = (payload: Record<string, unknown>) =>
      h.app.inject({ method: "PATCH", url: `/api/v1/webhooks/${id}`, headers: auth, payload });
    expect((await patch({ filters: {} })).statusCode).toBe(400);
    expect((await patch({ events: ["trade"], filters: {} })).statusCode).toBe(200);
    expect(
      (await h.app.inject({ method: "DELETE", url: `/api/v1/webhooks/${id}`, headers: auth })).statusCode,
    ).toBe(204);
  });

  test("behavior: each threshold is delivered once per canonical crossing; a reorg retracts it, a re-crossing delivers again", async () => {
    const created = await create({ filters: { progress_bps: THRESHOLDS } });
    expect(created.statusCode, created.body).toBe(201);
    receiver.secrets.set("/progress", created.json().secret);

    const creator = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 4 });
    const trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 5 });
    const { token } = await creator.createToken("Progress", "PROG");
    // 0 → ~130 bps (100), → ~207 (200), sold back to ~130, up to ~233 (200 again: not a new
    // crossing), → ~334 (300).
    await trader.buy(token, parseEther("0.01"));
    const before = await trader.balanceOf(token);
    await trader.buy(token, parseEther("0.006"));
    await trader.sell(token, (await trader.balanceOf(token)) - before);
    await trader.buy(token, parseEther("0.004"));
    await trader.buy(token, parseEther("0.004"));
    await trader.buy(token, parseEther("0.008"));
    await waitFor(() => delivered("token.progress", 300).length === 1, { timeoutMs: 30_000 });

    const expected = await expectedCrossings(token);
    expect([...expected.keys()]).toEqual([100, 200, 300]);
    for (const event of progressEvents()) webhookProgressEventSchema.parse(event.event);
    for (const t of [100, 200, 300]) {
      const got = delivered("token.progress", t);
      expect(got, `threshold ${t}`).toHaveLength(1);
      expect(got[0]!.data).toMatchObject({
        threshold_bps: t,
        token: { address: token, name: "Progress", symbol: "PROG" },
        block_number: expected.get(t)!.block,
        log_index: expected.get(t)!.log,
      });
      expect(got[0]!.data.progress_bps as number).toBeGreaterThanOrEqual(t);
      expect(got[0]!.data.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    // Indexed with the 300 crossing: the re-crossing of 200 left no second event in the outbox.
    const outbox = await h.sql.query<{ threshold: number; n: number }>(
      `SELECT (payload->>'threshold_bps')::int AS threshold, count(*)::int AS n FROM webhook_outbox
       WHERE type = 'token.progress' AND subject = $1 GROUP BY 1 ORDER BY 1`,
      [`progress:${token}`],
    );
    expect(outbox.rows).toEqual([
      { threshold: 100, n: 1 },
      { threshold: 200, n: 1 },
      { threshold: 300, n: 1 },
    ]);

    // ~334 → ~409 crosses 400; a reorg replaces that block with an empty one.
    const crossing = await trader.buy(token, parseEther("0.006"));
    await waitFor(() => delivered("token.progress", 400).length === 1, { timeoutMs: 30_000 });
    const first = delivered("token.progress", 400)[0]!;
    expect(first.data.block_number).toBe(Number(crossing.receipt.blockNumber));
    await rpc(devnet.rpcUrl, "anvil_reorg", [1, []]);
    // The new branch: the same buy again, crossing 400 again.
    const again = await trader.buy(token, parseEther("0.006"));
    await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 30_000);
    // Every event of the token's outbox (crossings and retractions) delivered.
    await waitFor(
      async () => {
        const ids = await h.sql.query<{ id: string }>(
          "SELECT 'evt_' || id AS id FROM webhook_outbox WHERE subject = $1",
          [`progress:${token}`],
        );
        const got = new Set(progressEvents().map((r) => r.id));
        return ids.rows.length > 0 && ids.rows.every((r) => got.has(r.id));
      },
      { timeoutMs: 30_000 },
    );
    // The undo may reach below the replaced block (a write spanning it is undone whole): every
    // crossing it undid is retracted and, still canonical, delivered again with a new id.
    for (const event of progressEvents()) webhookProgressEventSchema.parse(event.event);
    const removals = progressEvents().filter((r) => r.type === "token.progress.removed");
    const retracted = new Set(removals.map((r) => r.data.retracts));
    expect(retracted.has(first.id)).toBe(true);
    for (const r of removals) {
      const original = progressEvents().find((e) => e.id === r.data.retracts);
      expect(original?.type).toBe("token.progress");
      expect(r.data).toMatchObject({
        threshold_bps: original!.data.threshold_bps,
        block_number: original!.data.block_number,
      });
    }
    const canonical = await expectedCrossings(token);
    expect(canonical.get(400)?.block).toBe(Number(again.receipt.blockNumber));
    for (const t of THRESHOLDS) {
      const live = delivered("token.progress", t).filter((r) => !retracted.has(r.id));
      expect(live, `threshold ${t}`).toHaveLength(1);
      expect(live[0]!.data).toMatchObject({
        block_number: canonical.get(t)!.block,
        log_index: canonical.get(t)!.log,
      });
    }
    expect(receiver.badSignatures).toBe(0);
  });
});
