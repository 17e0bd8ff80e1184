// `pnpm bench webhooks`: webhook delivery from indexed rows to a receiver on the same machine.
// 1,000 subscriptions (each filtered on one of 100 tokens: every trade matches 10 of them), trades
// written to `trades` as the indexer writes them (one transaction per block), the dispatcher of the
// metadata worker in this process, a local HTTP receiver verifying every signature.
// Phase "steady": BENCH_WEBHOOKS_RATE deliveries/s (default 100) for BENCH_WEBHOOKS_SECONDS (default
// 20): the delay from the block's COMMIT to the receipt (p50/p99, goal p99 ≤ 1 s). Phase "burst":
// BENCH_WEBHOOKS_BURST trades (default 500) in one transaction: deliveries/s until all arrived.
// Both report `lost` (deliveries recorded but never received, deduplicated by event id).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { createPgPool } from "@tmi/db";
import { createLogger } from "@tmi/shared/logger";
import { createTestDatabase, flushPrefix, redisTestPrefix, testRedisUrl, waitFor } from "@tmi/testkit";
import { Redis } from "ioredis";
import { Webhook } from "standardwebhooks";
import { startWebhookDispatcher } from "../services/metadata-api/src/webhooks/webhook-dispatcher.js";

const SUBSCRIPTIONS = 1000;
const TOKENS = 100;
const PER_TRADE = SUBSCRIPTIONS / TOKENS;
const RATE = Number(process.env.BENCH_WEBHOOKS_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? 20);
const BURST = Number(process.env.BENCH_WEBHOOKS_BURST ?? 500);
const log = (m: string) => process.stderr.write(`[bench webhooks] ${m}\n`);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};
const tokenOf = (i: number) => `0x${(i + 1).toString(16).padStart(40, "0")}`;

const db = await createTestDatabase();
const pool = createPgPool({ url: db.url, max: 20 });
const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
const prefix = redisTestPrefix("bench-webhooks");
const secrets = new Map<string, string>();
const committedAt = new Map<number, number>();
const received = new Map<string, number>(); // `${path} ${event id}` → receipt time
let badSignatures = 0;
const delays: number[] = [];

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const now = performance.now();
    const path = req.url ?? "/";
    try {
      const event = new Webhook(secrets.get(path) ?? "whsec_AAAA").verify(
        Buffer.concat(chunks).toString("utf8"),
        req.headers as Record<string, string>,
      ) as { id: string; data: { block_number: number } };
      const key = `${path} ${event.id}`;
      if (!received.has(key)) {
        received.set(key, now);
        const committed = committedAt.get(event.data.block_number);
        if (committed !== undefined) delays.push(now - committed);
      }
      res.writeHead(204).end();
    } catch {
      badSignatures++;
      res.writeHead(400).end();
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;

let block = 1;
async function writeBlock(trades: number, tokenStart: number): Promise<void> {
  const n = block++;
  const hash = `0x${n.toString(16).padStart(64, "0")}`;
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO chain_events (block_number, log_index, block_hash, block_timestamp, transaction_index, transaction_hash,
         contract_address, event_name, token_address, decoded)
       SELECT $1, i, $2, 1700000000, i, $2, $2, 'Trade', $2, '{}'::jsonb FROM generate_series(0, $3 - 1) AS i`,
      [n, hash, trades],
    );
    await client.query(
      `INSERT INTO trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address,
         trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price)
       SELECT $1, (t.i - 1)::int, (t.i - 1)::int, $2, 1700000000, t.a, $2, 'buy', 'curve', 5000, 1000, 1000, 0, 0, 1
       FROM unnest($3::text[]) WITH ORDINALITY AS t(a, i)`,
      [n, hash, Array.from({ length: trades }, (_, i) => tokenOf((tokenStart + i) % TOKENS))],
    );
    await client.query("COMMIT");
    committedAt.set(n, performance.now());
  } finally {
    client.release();
  }
}

const dispatcher = startWebhookDispatcher({
  pool,
  connection: redis,
  prefix: prefix.slice(0, -1),
  network: { policy: () => true },
  settings: { pollMs: 20 },
  logger: createLogger({ service: "bench-webhooks", level: "warn" }),
});
try {
  await dispatcher.ready();
  await pool.query(
    "INSERT INTO api_keys (id, name, tier, key_hash, key_start) VALUES ('key_bench', 'bench', 'pro', 'x', 'tmi_x')",
  );
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const secret = `whsec_${Buffer.from(`bench-secret-${i}-`.padEnd(32, "x")).toString("base64")}`;
    secrets.set(`/h/${i}`, secret);
    await pool.query(
      `INSERT INTO webhooks (id, api_key_id, url, events, filters, secret)
       VALUES ($1, 'key_bench', $2, ARRAY['trade'], $3, $4)`,
      [
        `wh_${i.toString(16).padStart(16, "0")}`,
        `http://127.0.0.1:${port}/h/${i}`,
        JSON.stringify({ tokens: [tokenOf(i % TOKENS)] }),
        secret,
      ],
    );
  }
  const expected = async () =>
    Number(
      (await pool.query<{ n: string }>("SELECT count(*)::text AS n FROM webhook_deliveries")).rows[0]!.n,
    );

  // ------------------------------------------------------------ steady
  log(`steady: ${RATE} deliveries/s for ${SECONDS} s (${RATE / PER_TRADE} trades/s)`);
  const tradesPerSecond = Math.max(1, Math.round(RATE / PER_TRADE));
  const started = performance.now();
  for (let s = 0; s < SECONDS; s++) {
    // One block per 100 ms.
    for (let b = 0; b < 10; b++) {
      const due = started + s * 1000 + b * 100;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const trades = Math.floor(((b + 1) * tradesPerSecond) / 10) - Math.floor((b * tradesPerSecond) / 10);
      if (trades > 0) await writeBlock(trades, s * tradesPerSecond + b);
    }
  }
  const steadyWant = tradesPerSecond * SECONDS * PER_TRADE;
  await waitFor(() => received.size >= steadyWant, { timeoutMs: 60_000, intervalMs: 50 }).catch(
    () => undefined,
  );
  const steadyLost = (await expected()) - received.size;
  const steady = {
    bench: "webhooks",
    phase: "steady",
    subscriptions: SUBSCRIPTIONS,
    deliveries: received.size,
    deliveries_per_second_offered: tradesPerSecond * PER_TRADE,
    p50_ms: Math.round(percentile(delays, 50)),
    p99_ms: Math.round(percentile(delays, 99)),
    max_ms: Math.round(Math.max(...delays)),
    lost: steadyLost,
    bad_signatures: badSignatures,
    load_average: os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  };

  // ------------------------------------------------------------ burst
  const before = received.size;
  log(`burst: ${BURST} trades in one block (${BURST * PER_TRADE} deliveries)`);
  const burstStart = performance.now();
  await writeBlock(BURST, 0);
  await waitFor(() => received.size >= before + BURST * PER_TRADE, {
    timeoutMs: 300_000,
    intervalMs: 50,
  }).catch(() => undefined);
  const burstSeconds = (performance.now() - burstStart) / 1000;
  const burst = {
    bench: "webhooks",
    phase: "burst",
    subscriptions: SUBSCRIPTIONS,
    deliveries: received.size - before,
    seconds: Number(burstSeconds.toFixed(2)),
    deliveries_per_second: Math.round((received.size - before) / burstSeconds),
    lost: (await expected()) - received.size,
    bad_signatures: badSignatures,
    load_average: os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  };
  console.log(
    `\nWebhooks benchmark — ${os.cpus().length} cpus, Node ${process.version}, ${new Date().toISOString()}`,
  );
  console.table({
    "steady deliveries/s offered": steady.deliveries_per_second_offered,
    "steady p50 ms (commit → received)": steady.p50_ms,
    "steady p99 ms": steady.p99_ms,
    "burst deliveries": burst.deliveries,
    "burst deliveries/s": burst.deliveries_per_second,
    lost: steady.lost + burst.lost,
    "bad signatures": badSignatures,
  });
  console.log(JSON.stringify(steady));
  console.log(JSON.stringify(burst));
} finally {
  await dispatcher.close();
  server.closeAllConnections();
  server.close();
  await flushPrefix(redis, prefix);
  redis.disconnect();
  await pool.end();
  await db.drop();
}
