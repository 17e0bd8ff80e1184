// Who wins between two drafts' claims on one token when the launch is indexed between them: the
// first creator-signed claim, pending or bound. Its own devnet and no worker process, so that each
// step (pending, indexed, the other finalize, the pending draft's job) happens exactly when the test
// says: the indexer runs only inside `index()`, and the finalize job is run by the test.
import { createTrader, type Devnet, devnetAccounts, startDevnet, type Trader } from "@tmi/devnet";
import { createLogger } from "@tmi/shared/logger";
import { devnetIndexerOptions, indexToHead } from "@tmi/testkit";
import type { Job } from "bullmq";
import { createPublicClient, http } from "viem";
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
import { pngImage } from "../images/test-images.js";
import { createFinalizeProcessor } from "../jobs/finalize.worker.js";
import { finalizeMessage } from "./finalize-signature.js";

let devnet: Devnet;
let trader: Trader;
let h: Harness;
let imageSeed = 1;

async function createDraft(name: string, symbol: string): Promise<string> {
  const { payload, headers } = await multipart(
    { name, symbol, initial_supply: "1000000000000000000000000000" },
    [{ bytes: pngImage(1 + imageSeed++, 1) }],
  );
  const response = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers });
  expect(response.statusCode).toBe(201);
  return response.json().draft_id;
}

/** A launch of the trader (devnet account 1, the token's creator) and the finalize of a draft for it. */
type Launch = { token: `0x${string}`; hash: `0x${string}` };

/** `POST …/finalize` of `draft` to `launch`, signed by the creator when `signed`. */
async function finalize(draft: string, launch: Launch, signed: boolean) {
  const body: Record<string, string> = { token_address: launch.token, transaction_hash: launch.hash };
  if (signed) {
    body.signature = await privateKeyToAccount(devnetAccounts()[1]!.privateKey).signMessage({
      message: finalizeMessage({
        chainId: devnet.chainId,
        draftId: draft,
        tokenAddress: launch.token.toLowerCase() as `0x${string}`,
        transactionHash: launch.hash.toLowerCase() as `0x${string}`,
      }),
    });
  }
  const response = await h.app.inject({
    method: "POST",
    url: `/api/v1/token-metadata/${draft}/finalize`,
    payload: body,
  });
  const json = response.json();
  return { status: response.statusCode, body: response.statusCode >= 400 ? errorOf(json) : json };
}

async function claim(id: string) {
  const result = await h.sql.query(
    "SELECT status, token_address, verified, signer FROM metadata_drafts WHERE id = $1",
    [id],
  );
  return result.rows[0];
}

/** Indexes the chain up to its head, then stops the indexer: nothing mined later is indexed until the next call. */
async function index(): Promise<void> {
  const indexer = await indexToHead(devnetIndexerOptions(devnet, h.database.url));
  await indexer.stop();
}

/** Runs the draft's finalize job once (first attempt), as the worker would. */
async function runJob(draft: string, launch: Launch) {
  const process = createFinalizeProcessor({
    db: h.db,
    logger: createLogger({ service: "test", level: "silent" }),
  });
  return process({
    id: draft,
    data: {
      draft_id: draft,
      chain_id: devnet.chainId,
      token_address: launch.token.toLowerCase(),
      transaction_hash: launch.hash.toLowerCase(),
    },
    attemptsMade: 0,
    opts: { attempts: 12 },
  } as unknown as Job);
}

/** A launch mined while the indexer is stopped, and draft `a` claiming it: pending, signed or not. */
async function pendingClaim(name: string, symbol: string, signed: boolean) {
  const launch = await trader.createToken(name, symbol);
  const a = await createDraft(name, symbol);
  expect(await finalize(a, launch, signed)).toMatchObject({
    status: 409,
    body: { code: "not_indexed", details: [{ field: "token_address" }] },
  });
  expect(await claim(a)).toEqual({
    status: "pending",
    token_address: launch.token.toLowerCase(),
    verified: false,
    signer: signed ? trader.address.toLowerCase() : null,
  });
  return { launch, a, b: await createDraft(name, symbol) };
}

const creatorBound = (token: string) => ({
  status: "finalized",
  token_address: token.toLowerCase(),
  verified: true,
  signer: trader.address.toLowerCase(),
});
const released = { status: "draft", token_address: null, verified: false, signer: null };

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine" });
  trader = createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account: 1 });
  h = await createHarness({
    driver: "fs",
    chainId: devnet.chainId,
    factory: devnet.deployment.contracts.factory,
    receipts: chainReceipts(createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 })),
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await devnet?.stop();
});

describe("finalize: the first creator-signed claim on a token wins", () => {
  test("behavior: a signed pending claim, then the launch indexed: another signed finalize is 409 already_finalized, the pending draft's job binds it verified", async () => {
    const { launch, a, b } = await pendingClaim("First Signer", "FIRST", true);
    await index();
    // Before the fix: 200, B bound verified and A's signed claim released (back to `draft`).
    expect(await finalize(b, launch, true)).toMatchObject({
      status: 409,
      body: { code: "already_finalized", message: "the token is already bound to another draft" },
    });
    expect(await claim(b)).toEqual(released);
    expect((await claim(a)).status).toBe("pending");
    expect(await runJob(a, launch)).toBe("finalized");
    expect(await claim(a)).toEqual(creatorBound(launch.token));
    expect(await finalize(a, launch, false)).toMatchObject({
      status: 200,
      body: { metadata_verified: true },
    });
    // Bound, the claim is refused to the other draft the same way.
    expect(await finalize(b, launch, true)).toMatchObject({
      status: 409,
      body: { code: "already_finalized" },
    });
  }, 120_000);

  test("behavior: a signed pending claim before the launch is indexed: another signed finalize is 409 already_finalized, the pending draft's job binds it verified", async () => {
    const { launch, a, b } = await pendingClaim("Early Signer", "EARLY", true);
    expect(await finalize(b, launch, true)).toMatchObject({
      status: 409,
      body: { code: "already_finalized", message: "the token is already bound to another draft" },
    });
    expect(await claim(b)).toEqual(released);
    // The operator command names the signer of the pending claim.
    const creator = trader.address.toLowerCase();
    expect(await metadataCli(h.database.url, "show", launch.token)).toContain(
      `\tpending\tsigned by ${creator}\t`,
    );
    await index();
    expect(await runJob(a, launch)).toBe("finalized");
    expect(await claim(a)).toEqual(creatorBound(launch.token));
    expect(await metadataCli(h.database.url, "show", launch.token)).toContain(
      `\tfinalized\tverified by ${creator}\t`,
    );
  }, 120_000);

  test("behavior: an unsigned pending claim is released by the creator's signed finalize, before or after indexing", async () => {
    // After indexing: B binds verified at once; A's job then finds the token taken.
    const indexed = await pendingClaim("Unsigned Late", "ULATE", false);
    await index();
    expect(await finalize(indexed.b, indexed.launch, true)).toMatchObject({
      status: 200,
      body: { address: indexed.launch.token.toLowerCase(), metadata_verified: true },
    });
    expect(await claim(indexed.a)).toEqual(released);
    expect(await runJob(indexed.a, indexed.launch)).toBe("token_taken");
    expect(await claim(indexed.b)).toEqual(creatorBound(indexed.launch.token));

    // Before indexing: B takes the pending claim (signed), and its job binds it verified.
    const early = await pendingClaim("Unsigned Early", "UEARLY", false);
    expect(await finalize(early.b, early.launch, true)).toMatchObject({
      status: 409,
      body: { code: "not_indexed", details: [{ field: "token_address" }] },
    });
    expect(await claim(early.a)).toEqual(released);
    expect((await claim(early.b)).status).toBe("pending");
    await index();
    expect(await runJob(early.b, early.launch)).toBe("finalized");
    expect(await claim(early.b)).toEqual(creatorBound(early.launch.token));
  }, 180_000);
});
