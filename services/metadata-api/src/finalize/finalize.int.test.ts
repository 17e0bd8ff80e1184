import {
  devnetSmartWalletAbi,
  devnetSmartWalletFactoryAbi,
  devnetSmartWalletFactoryBytecode,
} from "@tmi/contracts";
import {
  createTrader,
  type Devnet,
  devnetAccounts,
  localPublicClient,
  localWalletClient,
  rpc,
  startDevnet,
  type Trader,
  waitForReceipt,
} from "@tmi/devnet";
import { zonkFactoryV3Abi } from "@tmi/shared/chain";
import { createLogger } from "@tmi/shared/logger";
import { TOKEN_BY_ADDRESS_SQL } from "@tmi/shared/token";
import {
  devnetIndexerOptions,
  type IndexerProcess,
  indexToHead,
  type RpcProxy,
  type ServiceProcess,
  startRpcProxy,
  startServiceProcess,
  waitFor,
} from "@tmi/testkit";
import type { Job } from "bullmq";
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
  serializeErc6492Signature,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  chainReceipts,
  createHarness,
  errorOf,
  type Harness,
  metadataCli,
  multipart,
} from "../../test/harness.js";
import { bindDraft, markPending } from "../drafts/draft-queries.js";
import { pngImage } from "../images/test-images.js";
import { createFinalizeProcessor, NotIndexedYetError } from "../jobs/finalize.worker.js";
import { type ChainSignatureVerifier, finalizeMessage } from "./finalize-signature.js";
import { createChainSignatureVerifier } from "./wallet-signature.js";

let devnet: Devnet;
let trader: Trader;
let h: Harness;
let indexer: IndexerProcess | null = null;
let worker: ServiceProcess | null = null;
let imageSeed = 1;
/** The node as the finalize route's signature check sees it: a fault-injecting proxy of anvil. */
let proxy: RpcProxy;
/** Gas limit of the signature check's `eth_call` in these tests. */
const SIGNATURE_GAS = 1_500_000n;
/** The production signature check over `proxy`, as main.ts builds it (replaced by the fault tests). */
let chainVerifier: ChainSignatureVerifier;

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
  const json = response.json();
  return {
    status: response.statusCode,
    body: response.statusCode >= 400 ? errorOf(json) : json,
    minBlock: response.headers["x-min-block"],
  };
}

/** The finalize signature of devnet account `account` (1 is the trader that launches). */
async function sign(
  account: number,
  claim: { draft: string; token: string; hash: string; chainId?: number },
): Promise<`0x${string}`> {
  return privateKeyToAccount(devnetAccounts()[account]!.privateKey).signMessage({
    message: finalizeMessage({
      chainId: claim.chainId ?? devnet.chainId,
      draftId: claim.draft,
      tokenAddress: claim.token.toLowerCase() as `0x${string}`,
      transactionHash: claim.hash.toLowerCase() as `0x${string}`,
    }),
  });
}

async function draftRow(id: string) {
  const result = await h.sql.query(
    "SELECT status, token_address, transaction_hash FROM metadata_drafts WHERE id = $1",
    [id],
  );
  return result.rows[0];
}

/** Runs `pnpm metadata <args>` on the test database; resolves with its stdout. */
const cli = (...args: string[]) => metadataCli(h.database.url, ...args);

/** The Token object every route serves for `token` (the shared statement), or undefined when not indexed. */
async function tokenObject(token: string) {
  const rows = (await h.sql.query(TOKEN_BY_ADDRESS_SQL, [token.toLowerCase()])).rows;
  return rows[0] ? JSON.parse(rows[0].token) : undefined;
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
  proxy = await startRpcProxy({ target: devnet.rpcUrl, record: ["eth_call"] });
  chainVerifier = createChainSignatureVerifier(
    createPublicClient({ transport: http(proxy.url, { retryCount: 1, timeout: 10_000 }), cacheTime: 0 }),
    { gas: SIGNATURE_GAS },
  );
  h = await createHarness({
    driver: "fs",
    chainId: devnet.chainId,
    factory: devnet.deployment.contracts.factory,
    backoffDelayMs: 200,
    receipts: { ...chainReceipts(client), verifyMessage: (args) => chainVerifier(args) },
  });
});

afterAll(async () => {
  await worker?.stop();
  await indexer?.stop();
  await h?.close();
  await proxy?.close();
  await devnet?.stop();
});

describe("POST /api/v1/token-metadata/{draft}/finalize", () => {
  test("error: request validation, unknown drafts", async () => {
    const draft = await createDraft("Valid", "VAL");
    const tx = `0x${"ab".repeat(32)}`;
    const token = `0x${"cd".repeat(20)}`;
    expect(await finalize(draft, { token_address: "0x123", transaction_hash: tx })).toMatchObject({
      status: 400,
      body: { code: "invalid_address" },
    });
    expect(await finalize(draft, { token_address: token, transaction_hash: "0x12" })).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(await finalize(draft, { transaction_hash: tx })).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(await finalize(draft, [token, tx])).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(
      await finalize("00000000-0000-4000-8000-000000000000", { token_address: token, transaction_hash: tx }),
    ).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect(await finalize("not-a-draft", { token_address: token, transaction_hash: tx })).toMatchObject({
      status: 404,
    });
    // No receipt for this hash on the chain (yet): the client keeps retrying on not_indexed.
    expect(await finalize(draft, { token_address: token, transaction_hash: tx })).toMatchObject({
      status: 409,
      body: {
        code: "not_indexed",
        details: [{ field: "transaction_hash", reason: "receipt not yet visible" }],
      },
    });
    expect(
      await finalize(draft, { token_address: token, transaction_hash: tx, signature: "0x1234" }),
    ).toMatchObject({ status: 400, body: { code: "invalid_request", details: [{ field: "signature" }] } });
    expect((await draftRow(draft)).status).toBe("draft");
  });

  test("behavior: confirmed but not indexed → 409 not_indexed and a job that binds it while the indexer catches up", async () => {
    // Race setup: the launch is mined, the indexer is not running, the worker waits with backoff.
    const draft = await createDraft("Race Cat", "RACE");
    const launch = await trader.createToken("Race Cat", "RACE");
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const first = await finalize(draft, body);
    expect(first).toMatchObject({
      status: 409,
      body: {
        code: "not_indexed",
        details: [{ field: "token_address", reason: "launch confirmed but not yet indexed" }],
      },
    });
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
      // A short sweep: a pending draft's job waiting out a back-off runs once its launch is indexed.
      env: {
        DATABASE_URL: h.database.url,
        QUEUE_PREFIX: h.prefix.slice(0, -1),
        LOG_LEVEL: "info",
        PENDING_SWEEP_INTERVAL_MS: "500",
      },
    });
    await waitFor(() => worker!.output().includes("metadata worker ready"), {
      timeoutMs: 60_000,
      message: "worker did not start",
    });
    // Let the worker try (and fail) at least once before the indexer catches up.
    await waitFor(() => worker!.output().includes("will retry"), {
      timeoutMs: 30_000,
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
      address: launch.token.toLowerCase(),
      name: "Race Cat",
      symbol: "RACE",
      metadata_verified: false,
      created_at: { transaction_hash: launch.hash.toLowerCase() },
    });
    expect(again.body.image_url).toMatch(/^\/objects\/images\//);
  }, 240_000); // a worker process and an indexer start inside: slow on a loaded machine

  test("default", async () => {
    const draft = await createDraft("Indexed Cat", "ICAT");
    const launch = await trader.createToken("Indexed Cat", "ICAT");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const first = await finalize(draft, body);
    expect(first.status).toBe(200);
    // The Token object of the bound token, metadata at the top level, optional keys absent.
    expect(first.body).toMatchObject({
      address: launch.token.toLowerCase(),
      creator: trader.address.toLowerCase(),
      name: "Indexed Cat",
      symbol: "ICAT",
      initial_supply: SUPPLY,
      metadata_verified: false,
      created_at: { transaction_hash: launch.hash.toLowerCase(), block_number: expect.any(Number) },
      metrics: { latest_trade_timestamp: null },
      curve: { lifecycle: "active" },
    });
    // Read-your-writes through a replica: the block a following read must wait for (min_block).
    expect(first.minBlock).toBe(String(first.body.created_at.block_number));
    expect(first.body.image_url).toMatch(/^\/objects\/images\/[0-9a-f]{64}\.png$/);
    expect(first.body.metadata_url).toMatch(/^\/objects\/metadata\/[0-9a-f]{64}\.json$/);
    expect(first.body).not.toHaveProperty("graduation");
    expect(first.body).not.toHaveProperty("description");
    expect(Object.values(first.body)).not.toContain(null);
    const repeat = await finalize(draft, body);
    expect(repeat).toEqual(first);
  });

  test("error: already_finalized — draft bound to another launch, token bound to another draft", async () => {
    const draft = await createDraft("Twin", "TWIN");
    const a = await trader.createToken("Twin", "TWIN");
    const b = await trader.createToken("Twin Two", "TWIN2"); // the factory refuses a duplicate name
    await index();
    expect((await finalize(draft, { token_address: a.token, transaction_hash: a.hash })).status).toBe(200);
    expect(await finalize(draft, { token_address: b.token, transaction_hash: b.hash })).toMatchObject({
      status: 409,
      body: { code: "already_finalized" },
    });
    const other = await createDraft("Twin", "TWIN");
    expect(await finalize(other, { token_address: a.token, transaction_hash: a.hash })).toMatchObject({
      status: 409,
      body: { code: "already_finalized" },
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
        body: { code: "launch_mismatch" },
      });
      expect((await draftRow(draft)).status).toBe("draft");
    }
    // Indexed: decided from the tokens table.
    await index();
    for (const [name, symbol, supply, hash] of cases) {
      const draft = await createDraft(name, symbol, supply);
      const result = await finalize(draft, { token_address: launch.token, transaction_hash: hash });
      expect(result.status).toBe(422);
      expect(result.body.code).toBe("launch_mismatch");
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
    // Every 200 shows the same binding (the winner's image); everyone else is told already_finalized.
    const images = new Set(results.filter((r) => r.status === 200).map((r) => r.body.image_url));
    expect(images.size).toBe(1);
    for (const r of results) expect([200, 409]).toContain(r.status);
    const bound = await h.sql.query(
      "SELECT id, '/objects/' || image_key AS image_url FROM metadata_drafts WHERE token_address = $1",
      [launch.token.toLowerCase()],
    );
    expect(bound.rows.length).toBe(1);
    expect(drafts).toContain(bound.rows[0].id);
    expect([...images]).toEqual([bound.rows[0].image_url]);
  });

  test("behavior: metadata bound to a launch a reorg removed does not show on a relaunch at the same address, which can be finalized again", async () => {
    const userSalt = toHex(7n, { size: 32 });
    const draft = await createDraft("Reborn", "RBN");
    const first = await trader.createToken("Reborn", "RBN", { userSalt });
    await index();
    const body = { token_address: first.token, transaction_hash: first.hash };
    const bound = await finalize(draft, body);
    expect(bound).toMatchObject({ status: 200, body: { image_url: expect.stringMatching(/^\/objects\//) } });

    // The launch was the last block: a reorg of depth 1 removes it, and the indexer drops the token.
    await rpc(devnet.rpcUrl, "anvil_reorg", [1, []]);
    await waitFor(async () => (await tokenObject(first.token)) === undefined, {
      timeoutMs: 60_000,
      message: "the indexer did not remove the reorged launch",
    });
    // The same creator launches again with the same name, symbol and salt (same address), in another
    // transaction (another nonce).
    await trader.transfer(devnet.deployment.contracts.weth, trader.address, 0n);
    const second = await trader.createToken("Reborn", "RBN", { userSalt });
    expect(second.token).toBe(first.token);
    expect(second.hash).not.toBe(first.hash);
    await index();

    const relaunched = await tokenObject(first.token);
    expect(relaunched.created_at.transaction_hash).toBe(second.hash.toLowerCase());
    for (const key of ["image_url", "metadata_url", "metadata_verified", "description"]) {
      expect(relaunched).not.toHaveProperty(key);
    }
    // The operator command tells the stale binding from a current one.
    expect(await cli("show", first.token)).toContain(
      `${first.hash.toLowerCase()}\tnot current (launch removed by a reorg)`,
    );
    // The old launch's finalize no longer answers with the token's metadata.
    expect(await finalize(draft, body)).toMatchObject({ status: 422, body: { code: "launch_mismatch" } });
    // Another draft binds the relaunch (the stale binding is released) ...
    const relaunchBody = { token_address: second.token, transaction_hash: second.hash };
    const other = await createDraft("Reborn", "RBN");
    const unsigned = await finalize(other, relaunchBody);
    expect(unsigned).toMatchObject({ status: 200, body: { metadata_verified: false } });
    expect(unsigned.body.image_url).not.toBe(bound.body.image_url);
    expect(await draftRow(draft)).toEqual({ status: "draft", token_address: null, transaction_hash: null });
    // ... and the first draft is finalizable again, on the relaunch (signed by the creator: verified).
    const signature = await sign(1, { draft, token: second.token, hash: second.hash });
    const again = await finalize(draft, { ...relaunchBody, signature });
    expect(again).toMatchObject({
      status: 200,
      body: {
        image_url: bound.body.image_url,
        metadata_verified: true,
        created_at: { transaction_hash: second.hash.toLowerCase() },
      },
    });
    expect(await draftRow(draft)).toEqual({
      status: "finalized",
      token_address: first.token.toLowerCase(),
      transaction_hash: second.hash.toLowerCase(),
    });
    expect(await cli("show", first.token)).toContain(`${second.hash.toLowerCase()}\tcurrent`);
  }, 120_000);

  test("behavior: the job retries while not indexed and releases the claim after its last attempt", async () => {
    const draft = await createDraft("Ghost", "GHST");
    const token = `0x${"ef".repeat(20)}`;
    const tx = `0x${"12".repeat(32)}`;
    expect(
      await markPending(h.db, { id: draft, tokenAddress: token, transactionHash: tx, signer: null }),
    ).toMatchObject({ status: "pending" });
    const process = createFinalizeProcessor({
      db: h.db,
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

  test("behavior: a matching launch the indexer commits between the job's bind and its check is bound, its claim never released", async () => {
    const template = await trader.createToken("Template", "TMPL");
    await index();
    const draft = await createDraft("Late Commit", "LATE");
    const token = `0x${"ac".repeat(20)}`;
    const tx = `0x${"ca".repeat(32)}`;
    expect(
      await markPending(h.db, { id: draft, tokenAddress: token, transactionHash: tx, signer: null }),
    ).toMatchObject({ status: "pending" });
    // The indexer's transaction: the draft's launch (an indexed row, moved to this address and
    // transaction, with the draft's name, symbol and supply) inserted and not committed yet.
    const indexerTx = await h.sql.connect();
    try {
      await indexerTx.query("BEGIN");
      // Every column PostgreSQL does not generate (it refuses a value for `address_tie`).
      const { rows: written } = await indexerTx.query<{ name: string }>(
        `SELECT quote_ident(attname) AS name FROM pg_attribute
         WHERE attrelid = 'tokens'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
      );
      const columns = written.map((c) => c.name).join(", ");
      const inserted = await indexerTx.query(
        `INSERT INTO tokens (${columns}) SELECT ${columns} FROM jsonb_populate_record(NULL::tokens, (
           SELECT to_jsonb(t) || jsonb_build_object(
             'address', $1::text, 'curve_address', $1::text, 'pool_address', NULL, 'created_transaction_hash', $2::text,
             'name', 'Late Commit', 'symbol', 'LATE', 'initial_supply', $3::numeric)
           FROM tokens t WHERE t.address = $4))`,
        [token, tx, SUPPLY, template.token.toLowerCase()],
      );
      expect(inserted.rowCount).toBe(1);
      // The indexer commits right after the job's bind read `tokens` (its first read of the table).
      let reads = 0;
      const db = h.db.$extends({
        query: {
          token: {
            async findUnique({ args, query }) {
              const row = await query(args);
              if (reads++ === 0) await indexerTx.query("COMMIT");
              return row;
            },
          },
        },
      }) as unknown as typeof h.db;
      const process = createFinalizeProcessor({
        db,
        logger: createLogger({ service: "test", level: "silent" }),
      });
      const outcome = await process({
        id: draft,
        data: { draft_id: draft, chain_id: devnet.chainId, token_address: token, transaction_hash: tx },
        attemptsMade: 0,
        opts: { attempts: 12 },
      } as unknown as Job);
      // Before the fix: "mismatch", the claim released (back to `draft`), never retried.
      expect(reads).toBeGreaterThan(1);
      expect(outcome).toBe("finalized");
      expect(await draftRow(draft)).toEqual({
        status: "finalized",
        token_address: token,
        transaction_hash: tx,
      });
    } finally {
      indexerTx.release();
    }
  });

  test("behavior: a pending claim whose indexed launch truly differs is released by the worker, and the next finalize is 422 launch_mismatch", async () => {
    const launch = await trader.createToken("Right Name", "WRN");
    await index();
    const draft = await createDraft("Wrong Name", "WRN");
    const token = launch.token.toLowerCase();
    const tx = launch.hash.toLowerCase();
    // A claim taken before the indexer had the launch (the receipt carries no name), now indexed.
    expect(
      await markPending(h.db, { id: draft, tokenAddress: token, transactionHash: tx, signer: null }),
    ).toMatchObject({ status: "pending" });
    await h.jobs.enqueueFinalize({
      draft_id: draft,
      chain_id: devnet.chainId,
      token_address: token,
      transaction_hash: tx,
    });
    // The running worker (or its sweep) compares the indexed launch with the draft: a true mismatch.
    await waitFor(async () => (await draftRow(draft)).status === "draft", {
      timeoutMs: 60_000,
      message: `the mismatching claim was not released\n${worker?.output().slice(-2000) ?? "no worker"}`,
    });
    expect(await draftRow(draft)).toEqual({ status: "draft", token_address: null, transaction_hash: null });
    const line = worker
      ?.output()
      .split("\n")
      .find((l) => l.includes(draft) && l.includes("indexed launch does not match the draft"));
    expect(line).toContain('"mismatch":"name"');
    expect(await finalize(draft, { token_address: token, transaction_hash: tx })).toMatchObject({
      status: 422,
      body: { code: "launch_mismatch", details: [{ field: "token_address", reason: "name" }] },
    });
  });
});

describe("finalize signatures: who may bind metadata", () => {
  async function verifiedRow(id: string) {
    const result = await h.sql.query(
      "SELECT status, token_address, verified, signer FROM metadata_drafts WHERE id = $1",
      [id],
    );
    return result.rows[0];
  }

  test("behavior: a hijacker's unsigned binding is replaced by the creator's signed finalize, which nobody replaces", async () => {
    const launch = await trader.createToken("Hijack", "HJK");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const hijack = await createDraft("Hijack", "HJK");
    const bound = await finalize(hijack, body);
    expect(bound).toMatchObject({ status: 200, body: { metadata_verified: false } });
    const hijackImage = bound.body.image_url;

    // The creator's own draft: unsigned it loses (first caller wins) ...
    const mine = await createDraft("Hijack", "HJK");
    expect(await finalize(mine, body)).toMatchObject({ status: 409, body: { code: "already_finalized" } });
    // ... signed by the creator it replaces the unverified binding.
    const signature = await sign(1, { draft: mine, token: launch.token, hash: launch.hash });
    const verified = await finalize(mine, { ...body, signature });
    expect(verified).toMatchObject({
      status: 200,
      body: { address: launch.token.toLowerCase(), metadata_verified: true },
    });
    expect(verified.body.image_url).not.toBe(hijackImage);
    expect(await verifiedRow(mine)).toEqual({
      status: "finalized",
      token_address: launch.token.toLowerCase(),
      verified: true,
      signer: trader.address.toLowerCase(),
    });
    expect(await verifiedRow(hijack)).toEqual({
      status: "draft",
      token_address: null,
      verified: false,
      signer: null,
    });
    // Identical repeats answer 200 again, signed or not.
    expect(await finalize(mine, { ...body, signature })).toEqual(verified);
    expect((await finalize(mine, body)).body).toEqual(verified.body);
    // The hijacker cannot take it back, and a verified binding is never replaced, not even by the creator.
    expect(await finalize(hijack, body)).toMatchObject({ status: 409, body: { code: "already_finalized" } });
    const later = await createDraft("Hijack", "HJK");
    const laterSignature = await sign(1, { draft: later, token: launch.token, hash: launch.hash });
    expect(await finalize(later, { ...body, signature: laterSignature })).toMatchObject({
      status: 409,
      body: { code: "already_finalized" },
    });
  });

  test("behavior: a verified bind that binds nothing releases nothing (one transaction)", async () => {
    const launch = await trader.createToken("Rollback", "RBK");
    await index();
    const hijack = await createDraft("Rollback", "RBK");
    expect(
      (await finalize(hijack, { token_address: launch.token, transaction_hash: launch.hash })).status,
    ).toBe(200);
    const other = await createDraft("Rollback?", "RBK"); // does not match the launch
    const request = {
      id: other,
      tokenAddress: launch.token.toLowerCase(),
      transactionHash: launch.hash.toLowerCase(),
      signer: trader.address.toLowerCase(),
    };
    expect(await bindDraft(h.db, request)).toBeNull();
    expect(await markPending(h.db, { ...request, id: hijack })).toBeNull();
    expect(await verifiedRow(hijack)).toMatchObject({
      status: "finalized",
      token_address: launch.token.toLowerCase(),
    });
  });

  test("behavior: the creator's signature upgrades its own unverified binding", async () => {
    const launch = await trader.createToken("Upgrade", "UPG");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const draft = await createDraft("Upgrade", "UPG");
    expect(await finalize(draft, body)).toMatchObject({ status: 200, body: { metadata_verified: false } });
    const signature = await sign(1, { draft, token: launch.token, hash: launch.hash });
    expect(await finalize(draft, { ...body, signature })).toMatchObject({
      status: 200,
      body: { metadata_verified: true },
    });
  });

  test("error: a signature by someone other than the creator is refused", async () => {
    const launch = await trader.createToken("Imposter", "IMP");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const hijack = await createDraft("Imposter", "IMP");
    expect((await finalize(hijack, body)).status).toBe(200);
    const draft = await createDraft("Imposter", "IMP");
    const signature = await sign(2, { draft, token: launch.token, hash: launch.hash });
    expect(await finalize(draft, { ...body, signature })).toMatchObject({
      status: 422,
      body: { code: "invalid_signature", details: [{ field: "signature" }] },
    });
    expect(await verifiedRow(draft)).toMatchObject({ status: "draft", verified: false });
    expect(await verifiedRow(hijack)).toMatchObject({ status: "finalized", verified: false });
  });

  test("error: a creator's signature replayed for another draft, token, transaction or chain is refused", async () => {
    const launch = await trader.createToken("Replay", "RPL");
    const other = await trader.createToken("Replay Two", "RPL2");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const signedDraft = await createDraft("Replay", "RPL");
    const victim = await createDraft("Replay", "RPL");
    const forSigned = await sign(1, { draft: signedDraft, token: launch.token, hash: launch.hash });
    const replays = [
      forSigned,
      await sign(1, { draft: victim, token: other.token, hash: launch.hash }),
      await sign(1, { draft: victim, token: launch.token, hash: other.hash }),
      await sign(1, { draft: victim, token: launch.token, hash: launch.hash, chainId: 8453 }),
    ];
    for (const signature of replays) {
      expect(await finalize(victim, { ...body, signature })).toMatchObject({
        status: 422,
        body: { code: "invalid_signature" },
      });
    }
    expect(await verifiedRow(victim)).toMatchObject({ status: "draft", token_address: null });
    // The signature still works for the draft it was made for.
    expect(await finalize(signedDraft, { ...body, signature: forSigned })).toMatchObject({
      status: 200,
      body: { metadata_verified: true },
    });
  });

  test("behavior: a signed finalize before indexing is remembered and binds verified once indexed", async () => {
    await index(); // the indexer process exists (earlier tests); this launch is mined after it caught up
    const draft = await createDraft("Early Bird", "EARLY");
    const launch = await trader.createToken("Early Bird", "EARLY");
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const signature = await sign(1, { draft, token: launch.token, hash: launch.hash });
    const first = await finalize(draft, { ...body, signature });
    if (first.status === 409) {
      expect(first.body.code).toBe("not_indexed");
      expect(await verifiedRow(draft)).toMatchObject({
        status: "pending",
        signer: trader.address.toLowerCase(),
      });
    }
    await index();
    await waitFor(async () => (await verifiedRow(draft)).status === "finalized", {
      // The worker's retries back off exponentially (doubling), but its sweep runs a waiting job as soon
      // as the launch is indexed (PENDING_SWEEP_INTERVAL_MS 500 here).
      timeoutMs: 240_000,
      message: `the pending signed draft was not bound (first answer ${first.status}; worker output:\n${worker?.output().slice(-2000) ?? "no worker"})`,
    });
    expect(await verifiedRow(draft)).toMatchObject({ verified: true, signer: trader.address.toLowerCase() });
    expect(await finalize(draft, body)).toMatchObject({ status: 200, body: { metadata_verified: true } });
  }, 300_000); // waits for the indexer and for the worker's sweep

  test("behavior: the operator command unbinds a token (even a verified binding), which can then be bound again", async () => {
    const launch = await trader.createToken("Unbind", "UNB");
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };
    const draft = await createDraft("Unbind", "UNB");
    const signature = await sign(1, { draft, token: launch.token, hash: launch.hash });
    expect((await finalize(draft, { ...body, signature })).body.metadata_verified).toBe(true);
    expect(await cli("show", launch.token)).toContain(`verified by ${trader.address.toLowerCase()}`);
    expect(await cli("unbind", launch.token.toUpperCase().replace("0X", "0x"))).toBe(
      `unbound ${launch.token.toLowerCase()} (draft ${draft})\n`,
    );
    expect(await verifiedRow(draft)).toEqual({
      status: "draft",
      token_address: null,
      verified: false,
      signer: null,
    });
    expect(await cli("unbind", launch.token)).toContain("no metadata bound");
    const again = await createDraft("Unbind", "UNB");
    expect(await finalize(again, body)).toMatchObject({ status: 200, body: { metadata_verified: false } });
    await expect(cli("unbind", "0x12")).rejects.toMatchObject({ code: 2 });
  });
});

describe("finalize signatures by smart-contract wallets (ERC-1271, ERC-6492)", () => {
  const owner = () => privateKeyToAccount(devnetAccounts()[3]!.privateKey);
  const stranger = () => privateKeyToAccount(devnetAccounts()[4]!.privateKey);
  let walletFactory: `0x${string}`;

  /**
   * Launches a token whose creator is `from`: a deployed wallet through its owner's `execute`, a
   * wallet not deployed yet by sending `createToken` as its address (impersonated).
   */
  async function launchFrom(from: `0x${string}`, name: string, symbol: string, deployed: boolean) {
    const call = {
      address: devnet.deployment.contracts.factory,
      abi: zonkFactoryV3Abi,
      functionName: "createToken",
      args: [name, symbol, toHex(randomSalt(), { size: 32 })],
    } as const;
    let hash: Hex;
    if (deployed) {
      hash = await localWalletClient(devnet.rpcUrl, 3, devnet.chainId).writeContract({
        address: from,
        abi: devnetSmartWalletAbi,
        functionName: "execute",
        args: [call.address, 0n, encodeFunctionData(call)],
      });
    } else {
      await rpc(devnet.rpcUrl, "anvil_impersonateAccount", [from]);
      await rpc(devnet.rpcUrl, "anvil_setBalance", [from, toHex(parseEther("10"))]);
      hash = await createWalletClient({ account: from, transport: http(devnet.rpcUrl) }).writeContract({
        ...call,
        chain: null,
      });
      // Mined first: a nonce reset before the transaction is mined would be undone by it (seen on a
      // busy machine: the wallet kept nonce 1, its CREATE2 deployment collided, the check said false).
      await waitForReceipt(localPublicClient(devnet.rpcUrl, devnet.chainId), hash);
      await rpc(devnet.rpcUrl, "anvil_stopImpersonatingAccount", [from]);
      // A real counterfactual wallet sends nothing before it exists (its first user operation
      // deploys it): back to nonce 0 so that its CREATE2 deployment (simulated by the verifier)
      // is possible, as it is for a wallet whose signature is made before it is deployed.
      await rpc(devnet.rpcUrl, "anvil_setNonce", [from, "0x0"]);
      expect(
        await localPublicClient(devnet.rpcUrl, devnet.chainId).getTransactionCount({ address: from }),
      ).toBe(0);
    }
    const receipt = await waitForReceipt(localPublicClient(devnet.rpcUrl, devnet.chainId), hash);
    const [launched] = parseEventLogs({
      abi: zonkFactoryV3Abi,
      logs: receipt.logs,
      eventName: "TokenLaunchedV3",
    });
    expect(launched!.args.creator.toLowerCase()).toBe(from.toLowerCase());
    return { token: launched!.args.token.toLowerCase() as `0x${string}`, hash };
  }

  let salt = 1n;
  const randomSalt = () => salt++ + 1_000n;

  const message = (draft: string, launch: { token: string; hash: string }) =>
    finalizeMessage({
      chainId: devnet.chainId,
      draftId: draft,
      tokenAddress: launch.token as `0x${string}`,
      transactionHash: launch.hash.toLowerCase() as `0x${string}`,
    });

  /** The CREATE2 address of the owner's wallet with `walletSalt` (deployed or not). */
  const walletAddress = (walletSalt: Hex) =>
    localPublicClient(devnet.rpcUrl, devnet.chainId).readContract({
      address: walletFactory,
      abi: devnetSmartWalletFactoryAbi,
      functionName: "walletAddress",
      args: [owner().address, walletSalt],
    });

  beforeAll(async () => {
    const deployer = localWalletClient(devnet.rpcUrl, 3, devnet.chainId);
    const hash = await deployer.deployContract({
      abi: devnetSmartWalletFactoryAbi,
      bytecode: devnetSmartWalletFactoryBytecode,
    });
    const receipt = await waitForReceipt(localPublicClient(devnet.rpcUrl, devnet.chainId), hash);
    walletFactory = receipt.contractAddress!;
  });

  test("behavior: a deployed ERC-1271 wallet's signature binds verified like an EOA's; a wrong one is refused", async () => {
    const deployer = localWalletClient(devnet.rpcUrl, 3, devnet.chainId);
    const client = localPublicClient(devnet.rpcUrl, devnet.chainId);
    const walletSalt = toHex(11n, { size: 32 });
    const wallet = await walletAddress(walletSalt);
    await waitForReceipt(
      client,
      await deployer.writeContract({
        address: walletFactory,
        abi: devnetSmartWalletFactoryAbi,
        functionName: "deploy",
        args: [owner().address, walletSalt],
      }),
    );
    expect(await client.getCode({ address: wallet })).toMatch(/^0x[0-9a-f]{100,}/);
    const launch = await launchFrom(wallet, "Smart Cat", "SMRT", true);
    await index();
    const body = { token_address: launch.token, transaction_hash: launch.hash };

    // A wrong signature first: the stranger's, and the owner's of another draft.
    const draft = await createDraft("Smart Cat", "SMRT");
    const wrong: Hex[] = [
      await stranger().signMessage({ message: message(draft, launch) }),
      await owner().signMessage({ message: message("00000000-0000-4000-8000-000000000000", launch) }),
    ];
    for (const signature of wrong) {
      expect(await finalize(draft, { ...body, signature })).toMatchObject({
        status: 422,
        body: { code: "invalid_signature" },
      });
    }
    const signature = await owner().signMessage({ message: message(draft, launch) });
    expect(await finalize(draft, { ...body, signature })).toMatchObject({
      status: 200,
      body: { address: launch.token, creator: wallet.toLowerCase(), metadata_verified: true },
    });
    expect(await draftRow(draft)).toMatchObject({
      status: "finalized",
      transaction_hash: launch.hash.toLowerCase(),
    });
  });

  /**
   * An indexed launch whose creator is the owner's wallet with salt `n`, not deployed (it has no
   * code), a draft for it, and `wrap`, the ERC-6492 wrapper of a signature with the wallet's
   * factory call.
   */
  async function counterfactualLaunch(n: bigint, name: string, symbol: string) {
    const walletSalt = toHex(n, { size: 32 });
    const wallet = await walletAddress(walletSalt);
    // The creator is the counterfactual wallet: it has no code (the launch is sent as it, impersonated).
    const launch = await launchFrom(wallet, name, symbol, false);
    expect(
      await localPublicClient(devnet.rpcUrl, devnet.chainId).getCode({ address: wallet }),
    ).toBeUndefined();
    await index();
    const deployCall = encodeFunctionData({
      abi: devnetSmartWalletFactoryAbi,
      functionName: "deploy",
      args: [owner().address, walletSalt],
    });
    return {
      wallet,
      launch,
      body: { token_address: launch.token, transaction_hash: launch.hash },
      draft: await createDraft(name, symbol),
      wrap: (signature: Hex) =>
        serializeErc6492Signature({ address: walletFactory, data: deployCall, signature }),
    };
  }

  test("behavior: an ERC-6492 signature of a wallet not deployed yet binds verified; a wrong one is refused", async () => {
    const client = localPublicClient(devnet.rpcUrl, devnet.chainId);
    const { wallet, launch, body, draft, wrap } = await counterfactualLaunch(12n, "Future Cat", "FUTR");
    const wrong = wrap(await stranger().signMessage({ message: message(draft, launch) }));
    expect(await finalize(draft, { ...body, signature: wrong })).toMatchObject({
      status: 422,
      body: { code: "invalid_signature" },
    });
    // Unwrapped, the owner's signature cannot be checked: the wallet does not exist yet.
    const inner = await owner().signMessage({ message: message(draft, launch) });
    expect(await finalize(draft, { ...body, signature: inner })).toMatchObject({
      status: 422,
      body: { code: "invalid_signature" },
    });
    expect(await finalize(draft, { ...body, signature: wrap(inner) })).toMatchObject({
      status: 200,
      body: { address: launch.token, creator: wallet.toLowerCase(), metadata_verified: true },
    });
    // Verified by simulation: the wallet is still not deployed.
    expect(await client.getCode({ address: wallet })).toBeUndefined();
  });

  test("error: when the node times out, drops the connection or fails, a valid wallet signature is 503 service_unavailable, never invalid_signature", async () => {
    const { wallet, launch, body, draft, wrap } = await counterfactualLaunch(13n, "Patient Cat", "PTNT");
    const signature = wrap(await owner().signMessage({ message: message(draft, launch) }));
    // Short waits for the held requests; the same production check over the same proxy.
    const normal = chainVerifier;
    chainVerifier = createChainSignatureVerifier(
      createPublicClient({ transport: http(proxy.url, { retryCount: 0, timeout: 1_000 }), cacheTime: 0 }),
      { gas: SIGNATURE_GAS },
    );
    try {
      const faults = [{ mode: "hang" }, { mode: "drop" }, { mode: "status", status: 502 }] as const;
      for (const fault of faults) {
        proxy.reset();
        proxy.fail({ ...fault, methods: ["eth_call"] });
        expect(await finalize(draft, { ...body, signature }), fault.mode).toMatchObject({
          status: 503,
          body: { code: "service_unavailable" },
        });
        expect(proxy.faulted, fault.mode).toBeGreaterThan(0);
        expect(await draftRow(draft)).toMatchObject({ status: "draft" });
      }
    } finally {
      proxy.fail(null);
      chainVerifier = normal;
    }
    // The node answers again: the same signature binds verified.
    expect(await finalize(draft, { ...body, signature })).toMatchObject({
      status: 200,
      body: { address: launch.token, creator: wallet.toLowerCase(), metadata_verified: true },
    });
  });

  test("error: an ERC-6492 factory that burns all the gas it gets is invalid_signature, within the check's gas limit", async () => {
    const { launch, body, draft } = await counterfactualLaunch(14n, "Greedy Cat", "GRDY");
    // A "factory" whose code loops forever (JUMPDEST PUSH1 0 JUMP): it burns whatever gas it gets.
    const burner = "0x00000000000000000000000000000000000b0b0b";
    await rpc(devnet.rpcUrl, "anvil_setCode", [burner, "0x5b600056"]);
    const signature = serializeErc6492Signature({
      address: burner,
      data: "0x",
      signature: await owner().signMessage({ message: message(draft, launch) }),
    });
    proxy.reset();
    expect(await finalize(draft, { ...body, signature })).toMatchObject({
      status: 422,
      body: { code: "invalid_signature" },
    });
    const calls = proxy.paramsOf("eth_call") as [{ gas?: string }, ...unknown[]][];
    expect(calls.length).toBeGreaterThan(0);
    for (const [call] of calls) expect(call.gas).toBe(toHex(SIGNATURE_GAS));
  });
});
