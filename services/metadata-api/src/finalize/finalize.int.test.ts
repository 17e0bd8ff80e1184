import { createTrader, type Devnet, startDevnet, type Trader } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import {
  devnetIndexerOptions,
  type IndexerProcess,
  indexToHead,
  type ServiceProcess,
  startServiceProcess,
  waitFor,
} from "@tmi/testkit";
import type { Job } from "bullmq";
import { createPublicClient, http, TransactionReceiptNotFoundError } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, type Harness, multipart } from "../../test/harness.js";
import { pngImage } from "../images/test-images.js";
import { createFinalizeProcessor, NotIndexedYetError } from "../jobs/finalize.worker.js";
import { markPending } from "../queries/draft-queries.js";

let devnet: Devnet;
let trader: Trader;
let h: Harness;
let indexer: IndexerProcess | null = null;
let worker: ServiceProcess | null = null;
let imageSeed = 1;

const SUPPLY = "1000000000000000000000000000";

async function createDraft(name: string, symbol: string, supply = SUPPLY): Promise<string> {
  const { payload, headers } = await multipart({ name, symbol, initial_supply: supply }, [
    { bytes: pngImage(1 + imageSeed++, 1) },
  ]);
  const response = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers });
  expect(response.statusCode).toBe(201);
  return response.json().draft_id;
}

async function finalize(draft: string, body: unknown) {
  const response = await h.app.inject({
    method: "POST",
    url: `/api/v1/token-metadata/${draft}/finalize`,
    payload: body as object,
  });
  return { status: response.statusCode, body: response.json() };
}

async function draftRow(id: string) {
  const result = await h.sql.query(
    "SELECT status, token_address, transaction_hash FROM metadata_drafts WHERE id = $1",
    [id],
  );
  return result.rows[0];
}

async function index(): Promise<void> {
  if (indexer) {
    const head = Number(
      await createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 }).getBlockNumber(),
    );
    await indexer.waitForBlock(head, 60_000);
    return;
  }
  indexer = await indexToHead(devnetIndexerOptions(devnet, h.database.url));
}

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine" });
  trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
  const client = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 });
  h = await createHarness({
    driver: "fs",
    chainId: devnet.chainId,
    launchpad: devnet.deployment.contracts.launchpad.toLowerCase() as `0x${string}`,
    backoffDelayMs: 200,
    receipts: {
      async getReceipt(hash) {
        try {
          return await client.getTransactionReceipt({ hash });
        } catch (error) {
          if (error instanceof TransactionReceiptNotFoundError) return null;
          throw error;
        }
      },
    },
  });
});

afterAll(async () => {
  await worker?.stop();
  await indexer?.stop();
  await h?.close();
  await devnet?.stop();
});

describe("POST /api/v1/token-metadata/{draft}/finalize", () => {
  test("error: request validation, unknown drafts", async () => {
    const draft = await createDraft("Valid", "VAL");
    const tx = `0x${"ab".repeat(32)}`;
    const token = `0x${"cd".repeat(20)}`;
    expect(await finalize(draft, { token_address: "0x123", transaction_hash: tx })).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_address" } },
    });
    expect(await finalize(draft, { token_address: token, transaction_hash: "0x12" })).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request" } },
    });
    expect(await finalize(draft, { transaction_hash: tx })).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request" } },
    });
    expect(await finalize(draft, [token, tx])).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request" } },
    });
    expect(
      await finalize("00000000-0000-4000-8000-000000000000", { token_address: token, transaction_hash: tx }),
    ).toMatchObject({
      status: 404,
      body: { error: { code: "not_found" } },
    });
    expect(await finalize("not-a-draft", { token_address: token, transaction_hash: tx })).toMatchObject({
      status: 404,
    });
    // No receipt for this hash on the chain.
    expect(await finalize(draft, { token_address: token, transaction_hash: tx })).toMatchObject({
      status: 409,
      body: { error: { code: "not_confirmed" } },
    });
    expect((await draftRow(draft)).status).toBe("draft");
  });

  test("behavior: confirmed but not indexed → 409 not_indexed and a job that binds it while the indexer catches up", async () => {
    // Race setup: the launch is mined, the indexer is not running, the worker waits with backoff.
    const draft = await createDraft("Race Cat", "RACE");
    const launch = await trader.createToken("Race Cat", "RACE");
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const first = await finalize(draft, body);
    expect(first).toMatchObject({ status: 409, body: { error: { code: "not_indexed" } } });
    expect(await draftRow(draft)).toEqual({
      status: "pending",
      token_address: launch.token.toLowerCase(),
      transaction_hash: launch.hash.toLowerCase(),
    });
    // Repeats do not pile up jobs: the job id is the draft id.
    expect((await finalize(draft, body)).status).toBe(409);
    const queued = await h.redis.keys(`${h.prefix}metadata-finalize:${draft}`);
    expect(queued.length).toBe(1);

    worker = startServiceProcess({
      service: "metadata-api",
      entry: "worker",
      env: { DATABASE_URL: h.database.url, QUEUE_PREFIX: h.prefix.slice(0, -1), LOG_LEVEL: "info" },
    });
    await waitFor(() => worker!.output().includes("metadata worker ready"), {
      timeoutMs: 30_000,
      message: "worker did not start",
    });
    // Let the worker try (and fail) at least once before the indexer catches up.
    await waitFor(() => worker!.output().includes("will retry"), {
      timeoutMs: 15_000,
      message: `no retry seen\n${worker.output()}`,
    });
    expect((await draftRow(draft)).status).toBe("pending");

    await index();
    // The client does not poll: the worker binds the draft by itself.
    await waitFor(async () => (await draftRow(draft)).status === "finalized", {
      timeoutMs: 30_000,
      message: `job did not bind\n${worker.output()}`,
    });
    const again = await finalize(draft, {
      token_address: launch.token.toUpperCase().replace("0X", "0x"),
      transaction_hash: launch.hash,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      draft_id: draft,
      status: "finalized",
      token_address: launch.token.toLowerCase(),
      transaction_hash: launch.hash.toLowerCase(),
    });
    expect(again.body.finalized_at).toEqual(expect.any(Number));
  });

  test("default", async () => {
    const draft = await createDraft("Indexed Cat", "ICAT");
    const launch = await trader.createToken("Indexed Cat", "ICAT");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const first = await finalize(draft, body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      draft_id: draft,
      status: "finalized",
      name: "Indexed Cat",
      symbol: "ICAT",
      initial_supply: SUPPLY,
    });
    const repeat = await finalize(draft, body);
    expect(repeat).toEqual(first);
  });

  test("error: already_finalized — draft bound to another launch, token bound to another draft", async () => {
    const draft = await createDraft("Twin", "TWIN");
    const a = await trader.createToken("Twin", "TWIN");
    const b = await trader.createToken("Twin", "TWIN");
    await index();
    expect((await finalize(draft, { token_address: a.token, transaction_hash: a.hash })).status).toBe(200);
    expect(await finalize(draft, { token_address: b.token, transaction_hash: b.hash })).toMatchObject({
      status: 409,
      body: { error: { code: "already_finalized" } },
    });
    const other = await createDraft("Twin", "TWIN");
    expect(await finalize(other, { token_address: a.token, transaction_hash: a.hash })).toMatchObject({
      status: 409,
      body: { error: { code: "already_finalized" } },
    });
    expect((await draftRow(other)).status).toBe("draft");
  });

  test("error: launch_mismatch — receipt or indexed launch differs in name, symbol, supply or transaction", async () => {
    const launch = await trader.createToken("Mismatch", "MISS");
    const buy = await trader.buy(launch.token, 10n ** 15n);
    // Not indexed yet: decided from the receipt.
    const cases: [string, string, string, string][] = [
      ["Mismatch!", "MISS", SUPPLY, launch.hash],
      ["Mismatch", "MISX", SUPPLY, launch.hash],
      ["Mismatch", "MISS", "1000", launch.hash],
      ["Mismatch", "MISS", SUPPLY, buy.hash],
    ];
    for (const [name, symbol, supply, hash] of cases) {
      const draft = await createDraft(name, symbol, supply);
      const result = await finalize(draft, { token_address: launch.token, transaction_hash: hash });
      expect(result, `${name} ${symbol} ${supply} ${hash}`).toMatchObject({
        status: 422,
        body: { error: { code: "launch_mismatch" } },
      });
      expect((await draftRow(draft)).status).toBe("draft");
    }
    // Indexed: decided from the tokens table.
    await index();
    for (const [name, symbol, supply, hash] of cases) {
      const draft = await createDraft(name, symbol, supply);
      const result = await finalize(draft, { token_address: launch.token, transaction_hash: hash });
      expect(result.status).toBe(422);
      expect(result.body.error.code).toBe("launch_mismatch");
    }
  });

  test("behavior: concurrent finalize calls and the worker never bind twice", async () => {
    const drafts = [
      await createDraft("Crowd", "CRWD"),
      await createDraft("Crowd", "CRWD"),
      await createDraft("Crowd", "CRWD"),
    ];
    const launch = await trader.createToken("Crowd", "CRWD");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const results = await Promise.all([...drafts, ...drafts].map((d) => finalize(d, body)));
    const winners = new Set(results.filter((r) => r.status === 200).map((r) => r.body.draft_id));
    expect(winners.size).toBe(1);
    for (const r of results) expect([200, 409]).toContain(r.status);
    const bound = await h.sql.query("SELECT id FROM metadata_drafts WHERE token_address = $1", [
      launch.token.toLowerCase(),
    ]);
    expect(bound.rows.map((r) => r.id)).toEqual([...winners]);
  });

  test("behavior: the job retries while not indexed and releases the claim after its last attempt", async () => {
    const draft = await createDraft("Ghost", "GHST");
    const token = `0x${"ef".repeat(20)}`;
    const tx = `0x${"12".repeat(32)}`;
    expect(await markPending(h.sql, draft, token, tx)).toMatchObject({ status: "pending" });
    const process = createFinalizeProcessor({
      sql: h.sql,
      logger: createLogger({ service: "test", level: "silent" }),
    });
    const job = (attemptsMade: number) =>
      ({
        id: draft,
        data: { draft_id: draft, chain_id: devnet.chainId, token_address: token, transaction_hash: tx },
        attemptsMade,
        opts: { attempts: 12 },
      }) as unknown as Job;
    await expect(process(job(0))).rejects.toBeInstanceOf(NotIndexedYetError);
    expect((await draftRow(draft)).status).toBe("pending");
    expect(await process(job(11))).toBe("expired");
    expect(await draftRow(draft)).toEqual({ status: "draft", token_address: null, transaction_hash: null });
    // A stale job (the draft moved on) does nothing.
    expect(await process(job(0))).toBe("stale");
  });
});
