// Webhooks end to end on real PostgreSQL and Redis: rows written to `trades` (as the indexer
// writes them, journaled inside the reorg window) reach the outbox through the triggers; the
// dispatcher delivers them to a local HTTP receiver that checks every signature with the
// standardwebhooks library. The receiver is reached as `img.test` (the harness resolver and
// policy make only that name's loopback address acceptable: the SSRF guard stays on).
import { createPgPool } from "@tmi/db";
import { createLogger } from "@tmi/shared/logger";
import { flushPrefix, redisTestPrefix, testRedisUrl, waitFor } from "@tmi/testkit";
import { Redis } from "ioredis";
import { Registry } from "prom-client";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  errorEnvelopeSchema,
  webhookCreatedSchema,
  webhookDeliveriesSchema,
  webhookSchema,
  webhookTradeEventSchema,
} from "../../../../test/src/platform-schemas.js";
import { createHarness, type Harness, testPolicy, testResolver } from "../../test/harness.js";
import {
  insertApiKey,
  type Receiver,
  receivedOn as receivedOnPath,
  startReceiver,
} from "../../test/webhook-receiver.js";
import { buildWorkerApp } from "../worker-app.js";
import {
  createDeliveryQueue,
  type DeliveryQueue,
  startWebhookDispatcher,
  type WebhookDispatcher,
} from "./webhook-dispatcher.js";
import { createWebhookMetrics } from "./webhook-metrics.js";
import { checkWebhookUrl, webhookAddressPolicy } from "./webhook-url.js";

const KEY = `tmi_${"A".repeat(43)}`;
const OTHER_KEY = `tmi_${"B".repeat(43)}`;
const auth = (key = KEY) => ({ authorization: `Bearer ${key}` });
const TOKEN = `0x${"11".repeat(20)}`;
const W1 = `0x${"a1".repeat(20)}`;
const W2 = `0x${"b2".repeat(20)}`;

let h: Harness;
let receiver: Receiver;
let redis: Redis;
let prefix: string;
let queue: DeliveryQueue;
let dispatcherPool: ReturnType<typeof createPgPool>;
let dispatcher: WebhookDispatcher | null = null;
const registry = new Registry();
let metrics: ReturnType<typeof createWebhookMetrics>;
let nextBlock = 1000;
const resolver = testResolver();

function startDispatcher(): WebhookDispatcher {
  return startWebhookDispatcher({
    pool: dispatcherPool,
    connection: redis,
    prefix: prefix.slice(0, -1),
    network: { policy: testPolicy, resolver },
    settings: { backoffBaseMs: 100, backoffMaxMs: 400, pollMs: 30, reconcileMs: 300, timeoutMs: 3000 },
    logger: createLogger({ service: "webhooks-test", level: "silent" }),
    metrics,
  });
}

/** Sets the reorg journal's block range of the transaction (as the indexer does inside the reorg window). */
async function journalBlock(client: Pick<Harness["sql"], "query">, block: number): Promise<void> {
  await client.query(
    "SELECT set_config('tmi.journal_block', $1, true), set_config('tmi.journal_to_block', $1, true)",
    [String(block)],
  );
}

/** Runs `work` in one transaction of the harness pool (rolled back when it throws). */
async function inTransaction(
  work: (client: Pick<Harness["sql"], "query">) => Promise<unknown>,
): Promise<void> {
  const client = await h.sql.connect();
  try {
    await client.query("BEGIN");
    await work(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

/** Inserts trades (and their chain_events logs) in one transaction; journaled when `journal` is set. */
async function insertTrades(
  trades: { trader?: string; side?: "buy" | "sell"; reserve?: bigint }[],
  options: { block?: number; journal?: boolean } = {},
): Promise<{ block: number; hash: string }> {
  const block = options.block ?? nextBlock++;
  const hash = `0x${block.toString(16).padStart(64, "0")}`;
  await inTransaction(async (client) => {
    if (options.journal) {
      await journalBlock(client, block);
    }
    await client.query(
      `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
         contract_address, event_name, token_address, decoded)
       SELECT $1, i, $2, 1700000000, i, $2, $3, 'Trade', $3, '{}'::jsonb FROM generate_series(0, $4 - 1) AS i`,
      [block, hash, TOKEN, trades.length],
    );
    await client.query(
      `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address,
         trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
       SELECT $1, i - 1, i - 1, $2, 1700000000, $3, t.trader, t.side, 'curve', 5000, t.reserve, t.reserve, 0, 0, 1
       FROM unnest($4::text[], $5::text[], $6::numeric[]) WITH ORDINALITY AS t(trader, side, reserve, i)`,
      [
        block,
        hash,
        TOKEN,
        trades.map((t) => t.trader ?? W1),
        trades.map((t) => t.side ?? "buy"),
        trades.map((t) => String(t.reserve ?? 1000n)),
      ],
    );
  });
  return { block, hash };
}

async function createWebhook(
  path: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const response = await h.app.inject({
    method: "POST",
    url: "/api/v1/webhooks",
    headers: auth(),
    payload: { url: `http://img.test:${receiver.port}${path}`, events: ["trade"], ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  const created = webhookCreatedSchema.parse(response.json());
  receiver.secrets.set(path, created.secret);
  return created;
}

const receivedOn = (path: string, status = 200) => receivedOnPath(receiver, path, status);

beforeAll(async () => {
  receiver = await startReceiver();
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  prefix = redisTestPrefix("webhooks");
  queue = createDeliveryQueue(redis, prefix.slice(0, -1));
  h = await createHarness({ driver: "fs", webhooks: { queue, urlPolicy: { policy: testPolicy, resolver } } });
  dispatcherPool = createPgPool({ url: h.database.url, max: 4 });
  metrics = createWebhookMetrics({
    registry,
    pool: dispatcherPool,
    connection: redis,
    prefix: prefix.slice(0, -1),
  });
  await insertApiKey(h.sql, "key_test_one", KEY);
  await insertApiKey(h.sql, "key_test_two", OTHER_KEY);
  dispatcher = startDispatcher();
  await dispatcher.ready();
});

afterAll(async () => {
  await dispatcher?.close();
  await metrics?.close();
  await queue?.close();
  await dispatcherPool?.end();
  await h?.close();
  if (redis) {
    await flushPrefix(redis, prefix);
    redis.disconnect();
  }
  await receiver?.close();
});

describe("webhooks", () => {
  test("default: a trade is delivered once, signed, with the Trade fields and its block", async () => {
    const hook = await createWebhook("/plain");
    const { block, hash } = await insertTrades([{ reserve: 12345n }]);
    await waitFor(() => receivedOn("/plain").length === 1, { timeoutMs: 20_000 });
    const got = receivedOn("/plain")[0]!;
    webhookTradeEventSchema.parse(got.event);
    expect(got.type).toBe("trade");
    expect(got.id).toMatch(/^evt_[0-9]+$/);
    expect(got.data).toMatchObject({
      token_address: TOKEN,
      trader: W1,
      side: "buy",
      reserve_amount: "12345",
      token_amount: "5000",
      block_number: block,
      block_hash: hash,
      log_index: 0,
      transaction_hash: hash,
    });
    expect(receiver.badSignatures).toBe(0);
    // The signature is over this body with this secret only.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify("{}", {
        "webhook-id": got.id,
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      }),
    ).toThrow();
    const deliveries = await h.app.inject({
      method: "GET",
      url: `/api/v1/webhooks/${hook.id}/deliveries`,
      headers: auth(),
    });
    expect(deliveries.statusCode).toBe(200);
    await waitFor(async () => {
      const page = await h.app.inject({
        method: "GET",
        url: `/api/v1/webhooks/${hook.id}/deliveries`,
        headers: auth(),
      });
      return page.json().items[0]?.status === "delivered";
    });
    const page = await h.app.inject({
      method: "GET",
      url: `/api/v1/webhooks/${hook.id}/deliveries`,
      headers: auth(),
    });
    webhookDeliveriesSchema.parse(page.json());
    expect(page.json().items).toEqual([
      expect.objectContaining({
        event_id: got.id,
        type: "trade",
        status: "delivered",
        attempts: 1,
        last_status: 200,
      }),
    ]);
  });

  test("behavior: failed attempts are retried with backoff until a 2xx", async () => {
    receiver.rules.set("/flaky", (n) => (n <= 2 ? 500 : 204));
    const hook = await createWebhook("/flaky");
    await insertTrades([{}]);
    await waitFor(() => receivedOn("/flaky", 204).length === 1, { timeoutMs: 20_000 });
    const attempts = receiver.received.filter((r) => r.path === "/flaky");
    expect(attempts.map((r) => r.status)).toEqual([500, 500, 204]);
    expect(new Set(attempts.map((r) => r.id)).size).toBe(1);
    await waitFor(async () => {
      const rows = await h.sql.query(
        "SELECT status, attempts FROM webhook_deliveries WHERE webhook_id = $1",
        [hook.id],
      );
      return rows.rows[0]?.status === "delivered" && rows.rows[0]?.attempts === 3;
    });
  });

  test("behavior: the worker's /metrics count attempts by outcome, the delivery latency and the queue depths", async () => {
    const worker = buildWorkerApp({
      logger: createLogger({ service: "webhooks-test", level: "silent" }),
      registry,
    });
    const scrape = async () => {
      const response = await worker.inject({ url: "/metrics" });
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toMatch(/^text\/plain/);
      const values = new Map<string, number>();
      for (const line of response.body.split("\n"))
        if (line && !line.startsWith("#")) {
          const at = line.lastIndexOf(" ");
          values.set(line.slice(0, at), Number(line.slice(at + 1)));
        }
      return values;
    };
    const before = await scrape();
    for (const gauge of [
      "webhook_outbox_pending",
      "webhook_deliveries_pending",
      "webhook_deliveries_due",
      'webhook_queue_jobs{state="waiting"}',
      'webhook_queue_jobs{state="delayed"}',
    ])
      expect(before.get(gauge), gauge).toBeGreaterThanOrEqual(0);
    receiver.rules.set("/metered", (n) => (n === 1 ? 503 : 200));
    await createWebhook("/metered");
    await insertTrades([{}]);
    await waitFor(() => receivedOn("/metered").length === 1, { timeoutMs: 20_000 });
    await waitFor(async () => {
      const after = await scrape();
      const grew = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0) >= 1;
      return (
        grew('webhook_delivery_attempts_total{outcome="retry"}') &&
        grew('webhook_delivery_attempts_total{outcome="delivered"}') &&
        grew('webhook_delivery_latency_seconds_count{type="trade"}') &&
        grew('webhook_block_delivery_latency_seconds_count{type="trade"}')
      );
    });
    await worker.close();
  });

  test("behavior: 410 Gone disables the webhook and says why", async () => {
    receiver.rules.set("/gone", () => 410);
    const hook = await createWebhook("/gone");
    await insertTrades([{}]);
    await waitFor(async () => {
      const got = await h.app.inject({ method: "GET", url: `/api/v1/webhooks/${hook.id}`, headers: auth() });
      return got.json().enabled === false;
    });
    const got = await h.app.inject({ method: "GET", url: `/api/v1/webhooks/${hook.id}`, headers: auth() });
    expect(got.json().disabled_reason).toMatch(/410/);
    expect(receivedOn("/gone", 410)).toHaveLength(1);
  });

  test("behavior: a webhook failing for longer than the limit (24 h) is disabled with the reason", async () => {
    receiver.rules.set("/down", () => 503);
    const hook = await createWebhook("/down");
    await h.sql.query("UPDATE webhooks SET failing_since = now() - interval '25 hours' WHERE id = $1", [
      hook.id,
    ]);
    await insertTrades([{}]);
    await waitFor(async () => {
      const row = await h.sql.query("SELECT enabled, disabled_reason FROM webhooks WHERE id = $1", [hook.id]);
      return row.rows[0]?.enabled === false;
    });
    const row = await h.sql.query("SELECT disabled_reason FROM webhooks WHERE id = $1", [hook.id]);
    expect(row.rows[0]?.disabled_reason).toMatch(/^failing since .*HTTP 503/);
  });

  test("behavior: trade filters (wallets, side, min_reserve_amount) select the trades delivered", async () => {
    const hook = await createWebhook("/filtered", {
      filters: { wallets: [W1.toUpperCase().replace("0X", "0x")], side: "buy", min_reserve_amount: "1000" },
    });
    await insertTrades([
      { trader: W1, side: "buy", reserve: 2000n },
      { trader: W1, side: "sell", reserve: 2000n },
      { trader: W2, side: "buy", reserve: 2000n },
      { trader: W1, side: "buy", reserve: 999n },
    ]);
    await insertTrades([{ trader: W1, side: "buy", reserve: 1000n }]);
    await waitFor(() => receivedOn("/filtered").length === 2, { timeoutMs: 20_000 });
    expect(receivedOn("/filtered").map((r) => r.data.reserve_amount)).toEqual(
      expect.arrayContaining(["2000", "1000"]),
    );
    const rows = await h.sql.query(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1",
      [hook.id],
    );
    expect(rows.rows[0]?.n).toBe(2);
  });

  test("behavior: a reorg delivers the trade's retraction carrying the retracted event id", async () => {
    await createWebhook("/reorg");
    const { block } = await insertTrades([{}], { block: 900_000, journal: true });
    await waitFor(() => receivedOn("/reorg").some((r) => r.type === "trade"), { timeoutMs: 20_000 });
    const trade = receivedOn("/reorg").find((r) => r.type === "trade")!;
    expect(trade.data.block_number).toBe(block);
    // The indexer's reorg undo (the journal), in one transaction.
    await inTransaction((client) => client.query("SELECT tmi_journal_undo($1)", [block - 1]));
    await waitFor(() => receivedOn("/reorg").some((r) => r.type === "trade.removed"), { timeoutMs: 20_000 });
    const removed = receivedOn("/reorg").find((r) => r.type === "trade.removed")!;
    webhookTradeEventSchema.parse(removed.event);
    expect(removed.data.retracts).toBe(trade.id);
    expect(removed.data).toMatchObject({
      block_number: block,
      log_index: 0,
      transaction_hash: trade.data.transaction_hash,
    });
    expect(removed.id).not.toBe(trade.id);
    const left = await h.sql.query("SELECT count(*)::int AS n FROM trades WHERE block_number = $1", [block]);
    expect(left.rows[0]?.n).toBe(0);
  });

  test("behavior: a dispatcher restart and a Redis wipe lose no event (each seen once after dedup)", async () => {
    // Every event fails its first attempt: retries are pending in Redis when it is wiped.
    receiver.rules.set("/durable", (n) => (n === 1 ? 500 : 200));
    const hook = await createWebhook("/durable");
    for (let i = 0; i < 5; i++) await insertTrades([{}, {}]);
    await waitFor(() => receiver.received.filter((r) => r.path === "/durable").length >= 4, {
      timeoutMs: 20_000,
    });
    // Kill the dispatcher mid-way, wipe this test's Redis keys, write more while it is down.
    await dispatcher!.close();
    dispatcher = null;
    expect(await flushPrefix(redis, prefix)).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 5; i++) await insertTrades([{}, {}]);
    dispatcher = startDispatcher();
    await dispatcher.ready();
    for (let i = 0; i < 3; i++) await insertTrades([{}]);
    const expected = await h.sql.query<{ id: string }>(
      `SELECT 'evt_' || o.id AS id FROM webhook_outbox o JOIN webhook_deliveries d ON d.event_id = o.id
       WHERE d.webhook_id = $1`,
      [hook.id],
    );
    expect(expected.rows.length).toBeGreaterThanOrEqual(10);
    await waitFor(
      async () => {
        const all = await h.sql.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_outbox o WHERE o.type = 'trade' AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.webhook_id = $1) AND o.created_at >= (SELECT created_at FROM webhooks WHERE id = $1)",
          [hook.id],
        );
        const delivered = new Set(receivedOn("/durable").map((r) => r.id));
        return all.rows[0]?.n === 0 && delivered.size === 23;
      },
      { timeoutMs: 30_000 },
    );
    const delivered = new Set(receivedOn("/durable").map((r) => r.id));
    const all = await h.sql.query<{ id: string }>(
      "SELECT 'evt_' || event_id AS id FROM webhook_deliveries WHERE webhook_id = $1",
      [hook.id],
    );
    expect(new Set(all.rows.map((r) => r.id))).toEqual(delivered);
    expect(receiver.badSignatures).toBe(0);
  });

  test("behavior: token.launched, token.graduated and, on a reorg, token.removed retracting the launch", async () => {
    await createWebhook("/tokens", { events: ["token.launched", "token.graduated"] });
    const token = `0x${"77".repeat(20)}`;
    const block = 950_000;
    const hash = `0x${block.toString(16).padStart(64, "0")}`;
    await inTransaction(async (client) => {
      await journalBlock(client, block);
      await client.query(
        `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
           contract_address, event_name, token_address, decoded)
         VALUES ($1, 3, $2, 1700000000, 0, $2, $3, 'TokenCreated', $3, '{}'::jsonb)`,
        [block, hash, token],
      );
      await client.query(
        `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
           created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at,
           graduation_threshold, updated_block_number, curve_address, virtual_token_reserve, virtual_eth_reserve)
         VALUES ($1, 31337, $2, 'Hook', 'HOOK', 'hook', 'hook', 1000, $3, 0, $4, 3, 1700000000, 800, $3, $5, 1, 1)`,
        [token, W1, block, hash, `0x${"78".repeat(20)}`],
      );
    });
    await inTransaction(async (client) => {
      await journalBlock(client, block + 1);
      await client.query(
        `UPDATE tokens SET lifecycle = 'graduated', graduated_block_number = $2, graduated_log_index = 9,
           graduated_transaction_hash = $3 WHERE address = $1`,
        [token, block + 1, hash],
      );
    });
    await waitFor(() => receivedOn("/tokens").length === 2, { timeoutMs: 20_000 });
    const launched = receivedOn("/tokens").find((r) => r.type === "token.launched")!;
    expect(launched.data).toMatchObject({
      token: { address: token, creator: W1, name: "Hook", initial_supply: "1000" },
      block_number: block,
      block_hash: hash,
      log_index: 3,
    });
    expect(receivedOn("/tokens").find((r) => r.type === "token.graduated")!.data).toMatchObject({
      token: { address: token, lifecycle: "graduated" },
      block_number: block + 1,
      log_index: 9,
    });
    await inTransaction((client) => client.query("SELECT tmi_journal_undo($1)", [block - 1]));
    await waitFor(() => receivedOn("/tokens").some((r) => r.type === "token.removed"), { timeoutMs: 20_000 });
    expect(receivedOn("/tokens").find((r) => r.type === "token.removed")!.data).toMatchObject({
      token: { address: token },
      retracts: launched.id,
    });
  });

  test("behavior: metadata.finalized when a draft is bound, filtered by tokens", async () => {
    const token = `0x${"99".repeat(20)}`;
    await createWebhook("/metadata", { events: ["metadata.finalized"], filters: { tokens: [token] } });
    for (const [id, address] of [
      ["00000000-0000-4000-8000-000000000001", `0x${"98".repeat(20)}`],
      ["00000000-0000-4000-8000-000000000002", token],
    ]) {
      await h.sql.query(
        `INSERT INTO metadata_drafts (id, chain_id, name, symbol, initial_supply, image_key, metadata_key, description)
         VALUES ($1, 31337, 'Meta', 'META', 1000, 'i', 'm', 'about')`,
        [id],
      );
      await h.sql.query(
        "UPDATE metadata_drafts SET status = 'finalized', token_address = $2, finalized_at = now() WHERE id = $1",
        [id, address],
      );
    }
    await waitFor(() => receivedOn("/metadata").length === 1, { timeoutMs: 20_000 });
    expect(receivedOn("/metadata")[0]).toMatchObject({
      type: "metadata.finalized",
      data: { token_address: token, name: "Meta", symbol: "META", description: "about" },
    });
    const events = await h.sql.query(
      "SELECT count(*)::int AS n FROM webhook_outbox WHERE type = 'metadata.finalized'",
    );
    expect(events.rows[0]?.n).toBe(2);
  });

  test("behavior: POST /{id}/test delivers a signed webhook.test event", async () => {
    const hook = await createWebhook("/ping");
    const response = await h.app.inject({
      method: "POST",
      url: `/api/v1/webhooks/${hook.id}/test`,
      headers: auth(),
    });
    expect(response.statusCode).toBe(202);
    await waitFor(() => receivedOn("/ping").length === 1, { timeoutMs: 20_000 });
    expect(receivedOn("/ping")[0]).toMatchObject({ type: "webhook.test", id: response.json().event_id });
  });

  test("behavior: CRUD is per key; 401 without a valid key; 404 for another key's webhook", async () => {
    const hook = await createWebhook("/crud", { events: ["token.launched", "trade"] });
    expect((await h.app.inject({ method: "GET", url: "/api/v1/webhooks" })).json().error.code).toBe(
      "invalid_api_key",
    );
    const wrong = await h.app.inject({
      method: "GET",
      url: "/api/v1/webhooks",
      headers: auth(`tmi_${"C".repeat(43)}`),
    });
    expect(wrong.statusCode).toBe(401);
    const other = await h.app.inject({
      method: "GET",
      url: `/api/v1/webhooks/${hook.id}`,
      headers: auth(OTHER_KEY),
    });
    expect(other.statusCode).toBe(404);
    const list = await h.app.inject({ method: "GET", url: "/api/v1/webhooks", headers: auth() });
    for (const item of list.json().items) webhookSchema.parse(item);
    errorEnvelopeSchema.parse((await h.app.inject({ method: "GET", url: "/api/v1/webhooks" })).json());
    expect(list.json().items.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(JSON.stringify(list.json())).not.toContain(hook.secret);
    const patched = await h.app.inject({
      method: "PATCH",
      url: `/api/v1/webhooks/${hook.id}`,
      headers: auth(),
      payload: { enabled: false, filters: { side: "sell" } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      enabled: false,
      filters: { side: "sell" },
      disabled_reason: "disabled by its owner",
    });
    const bad = await h.app.inject({
      method: "PATCH",
      url: `/api/v1/webhooks/${hook.id}`,
      headers: auth(),
      payload: { filters: { wallets: Array.from({ length: 101 }, () => W1) } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe("invalid_request");
    const badEvent = await h.app.inject({
      method: "POST",
      url: "/api/v1/webhooks",
      headers: auth(),
      payload: { url: `http://img.test:${receiver.port}/x`, events: ["token.progress"] },
    });
    expect(badEvent.statusCode).toBe(400);
    const deleted = await h.app.inject({
      method: "DELETE",
      url: `/api/v1/webhooks/${hook.id}`,
      headers: auth(),
    });
    expect(deleted.statusCode).toBe(204);
    expect(
      (await h.app.inject({ method: "GET", url: `/api/v1/webhooks/${hook.id}`, headers: auth() })).statusCode,
    ).toBe(404);
  });

  test("behavior: target URLs pass the SSRF guard (private and loopback refused)", async () => {
    for (const url of [
      `http://127.0.0.1:${receiver.port}/x`,
      "http://10.0.0.1/x",
      "http://[::1]/x",
      "http://169.254.169.254/latest",
      "http://private.test/x",
      "http://mixed.test/x".replace("mixed", "rebind"),
      "ftp://img.test/x",
      "http://user:pw@img.test/x",
      "http://0x7f.1/x",
    ]) {
      const response = await h.app.inject({
        method: "POST",
        url: "/api/v1/webhooks",
        headers: auth(),
        payload: { url, events: ["trade"] },
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code).toBe("invalid_request");
    }
    // WEBHOOK_ALLOW_PRIVATE=true accepts them (local use and tests).
    await expect(
      checkWebhookUrl("http://127.0.0.1:9/x", { policy: webhookAddressPolicy(true) }),
    ).resolves.toBe("http://127.0.0.1:9/x");
    await expect(
      checkWebhookUrl("http://127.0.0.1:9/x", { policy: webhookAddressPolicy(false) }),
    ).rejects.toThrow(/not a public address/);
  });
});
