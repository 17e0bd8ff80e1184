import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@tmi/shared/logger";
import { flushPrefix, freeTcpPort, startServiceProcess, testRedisUrl, waitFor } from "@tmi/testkit";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BASE_FIELDS, createHarness, type Harness, multipart } from "../../test/harness.js";
import { markPending } from "../drafts/draft-queries.js";
import { pngImage } from "../images/test-images.js";
import { createPendingSweep } from "./pending-sweep.js";

let h: Harness;
let seed = 1;

async function pendingDraft(): Promise<{ id: string; token: string; tx: string }> {
  const { payload, headers } = await multipart(BASE_FIELDS, [{ bytes: pngImage(7 + seed++, 2) }]);
  const response = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers });
  expect(response.statusCode).toBe(201);
  const id = response.json().draft_id as string;
  const n = (seed * 7919).toString(16).padStart(4, "0");
  const token = `0x${n.repeat(10)}`;
  const tx = `0x${n.repeat(16)}`;
  expect(
    await markPending(h.db, { id, tokenAddress: token, transactionHash: tx, signer: null }),
  ).toMatchObject({
    status: "pending",
  });
  return { id, token, tx };
}

/** A `tokens` row as the indexer writes it for a launch of `token` in transaction `tx` (the columns a draft's binding reads). */
async function indexLaunch(token: string, tx: string): Promise<void> {
  await h.db.token.create({
    data: {
      address: token,
      chainId: 31337,
      creator: `0x${"11".repeat(20)}`,
      name: "Swept",
      symbol: "SWEPT",
      searchName: "swept",
      searchSymbol: "swept",
      initialSupply: "1000000000000000000000000000",
      createdBlockNumber: 1n,
      createdTransactionIndex: 0,
      createdTransactionHash: tx,
      createdLogIndex: 0,
      createdAt: 1n,
      curveAddress: `0x${token.slice(4)}cc`,
      virtualTokenReserve: "1",
      virtualEthReserve: "1",
      graduationThreshold: "1",
      updatedBlockNumber: 1n,
    },
  });
}

const jobKey = (id: string) => `${h.prefix}metadata-finalize:${id}`;

beforeAll(async () => {
  h = await createHarness({ driver: "fs" });
});

afterAll(async () => {
  await h?.close();
});

describe("sweep of pending drafts", () => {
  test("default", async () => {
    const sweep = createPendingSweep({
      db: h.db,
      jobs: h.jobs,
      logger: createLogger({ service: "test", level: "silent" }),
      batch: 2,
    });
    const drafts = [await pendingDraft(), await pendingDraft(), await pendingDraft()];
    for (const d of drafts.slice(0, 2)) {
      await h.jobs.enqueueFinalize({
        draft_id: d.id,
        chain_id: 31337,
        token_address: d.token,
        transaction_hash: d.tx,
      });
    }
    // Two have their job; the third lost it before it was ever queued.
    expect(await sweep()).toEqual({ checked: 3, requeued: [drafts[2]!.id], promoted: [] });
    expect(await h.jobs.finalizeJobState(drafts[2]!.id)).toBe("waiting");
    expect(await sweep()).toEqual({ checked: 3, requeued: [], promoted: [] });

    // Redis loses every job (deleted from Redis): all three are queued again.
    await flushPrefix(h.redis, h.prefix);
    expect(await h.redis.exists(jobKey(drafts[0]!.id))).toBe(0);
    const result = await sweep();
    expect(result.checked).toBe(3);
    expect([...result.requeued].sort()).toEqual(drafts.map((d) => d.id).sort());
    for (const d of drafts) expect(await h.jobs.finalizeJobState(d.id)).toBe("waiting");
    await flushPrefix(h.redis, h.prefix);
  });

  test("behavior: a job waiting out a back-off runs now once its draft's launch is indexed", async () => {
    const sweep = createPendingSweep({
      db: h.db,
      jobs: h.jobs,
      logger: createLogger({ service: "test", level: "silent" }),
    });
    const draft = await pendingDraft();
    // The job as the worker leaves it after a failed attempt: delayed by its back-off (an hour here).
    const queue = new Queue("metadata-finalize", { connection: h.redis, prefix: h.prefix.slice(0, -1) });
    try {
      await queue.add(
        "finalize",
        { draft_id: draft.id, chain_id: 31337, token_address: draft.token, transaction_hash: draft.tx },
        { jobId: draft.id, delay: 3_600_000 },
      );
      expect(await h.jobs.finalizeJobState(draft.id)).toBe("delayed");
      // Not indexed yet: the job keeps its back-off (earlier drafts of this database may be re-queued).
      expect(await sweep()).toMatchObject({ promoted: [] });
      expect(await h.jobs.finalizeJobState(draft.id)).toBe("delayed");
      // Another launch of the token indexed (another transaction): still not this draft's launch.
      await indexLaunch(draft.token, `0x${"ab".repeat(32)}`);
      expect(await sweep()).toMatchObject({ promoted: [] });
      await h.db.$executeRaw`DELETE FROM tokens WHERE address = ${draft.token}`;
      // Its launch indexed: the job runs now.
      await indexLaunch(draft.token, draft.tx);
      expect(await sweep()).toMatchObject({ promoted: [draft.id] });
      expect(await h.jobs.finalizeJobState(draft.id)).toBe("waiting");
    } finally {
      await h.db.$executeRaw`DELETE FROM tokens WHERE address = ${draft.token}`;
      await queue.close();
      await flushPrefix(h.redis, h.prefix);
    }
  });

  test("behavior: the worker process re-queues a pending draft whose job was deleted from Redis", async () => {
    const draft = await pendingDraft();
    await h.jobs.enqueueFinalize({
      draft_id: draft.id,
      chain_id: 31337,
      token_address: draft.token,
      transaction_hash: draft.tx,
    });
    await h.redis.del(jobKey(draft.id)); // the job's hash is gone: BullMQ no longer knows the job
    expect(await h.jobs.finalizeJobState(draft.id)).toBeNull();
    const worker = startServiceProcess({
      service: "metadata-api",
      entry: "worker",
      env: {
        DATABASE_URL: h.database.url,
        QUEUE_PREFIX: h.prefix.slice(0, -1),
        PENDING_SWEEP_INTERVAL_MS: "200",
      },
    });
    try {
      await waitFor(() => worker.output().includes("pending draft had no finalize job; re-queued"), {
        timeoutMs: 90_000,
        message: `no re-queue\n${worker.output()}`,
      });
      expect(worker.output()).toContain(draft.id);
      // The re-queued job runs (the launch is not indexed: it waits for its next attempt).
      await waitFor(async () => (await h.redis.exists(jobKey(draft.id))) === 1, {
        timeoutMs: 10_000,
        message: "job not in Redis",
      });
      expect(worker.output()).toContain("Redis has no persistence");
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  });
});

describe("Redis persistence at start", () => {
  let dir: string;
  let aofRedis: ChildProcess | null = null;
  let aofPort = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tmi-meta-redis-"));
    aofPort = await freeTcpPort();
    // A Redis of this test's own with AOF on (the machine's Redis is never reconfigured).
    aofRedis = spawn(
      "redis-server",
      ["--port", String(aofPort), "--bind", "127.0.0.1", "--appendonly", "yes", "--save", "", "--dir", dir],
      { stdio: "ignore" },
    );
  });

  afterAll(async () => {
    if (aofRedis?.pid) aofRedis.kill("SIGTERM");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("error: in production the worker refuses to start on a Redis without AOF", async () => {
    const worker = startServiceProcess({
      service: "metadata-api",
      entry: "worker",
      env: { DATABASE_URL: h.database.url, QUEUE_PREFIX: h.prefix.slice(0, -1), NODE_ENV: "production" },
    });
    await waitFor(() => worker.child.exitCode !== null, { timeoutMs: 90_000, message: worker.output() });
    expect(worker.child.exitCode).toBe(1);
    expect(worker.output()).toContain("Redis has no persistence (appendonly no)");
    expect(worker.output()).toContain("refuses to start in production");
  });

  for (const [title, env] of [
    [
      "behavior: in production the worker starts on a Redis with AOF",
      () => ({ REDIS_URL: `redis://127.0.0.1:${aofPort}` }),
    ],
    [
      "behavior: in production the worker starts on a Redis without AOF when REDIS_REQUIRE_AOF=false, with a warning",
      () => ({ REDIS_URL: testRedisUrl(), REDIS_REQUIRE_AOF: "false" }),
    ],
  ] as const) {
    test(title, async () => {
      const settings: Record<string, string> = env();
      const worker = startServiceProcess({
        service: "metadata-api",
        entry: "worker",
        env: {
          DATABASE_URL: h.database.url,
          QUEUE_PREFIX: h.prefix.slice(0, -1),
          NODE_ENV: "production",
          ...settings,
        },
      });
      try {
        await waitFor(() => worker.output().includes("metadata worker ready"), {
          timeoutMs: 90_000,
          message: `did not start\n${worker.output()}`,
        });
        if (settings.REDIS_REQUIRE_AOF) expect(worker.output()).toContain("Redis has no persistence");
        else expect(worker.output()).not.toContain("Redis has no persistence");
      } finally {
        expect(await worker.stop()).toBe(0);
      }
    });
  }
});
