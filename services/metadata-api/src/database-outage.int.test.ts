// A PostgreSQL outage on a cluster of this test's own (never the machine's server): metadata-api
// answers 503 service_unavailable with Retry-After while it is down, and serves again once it is
// back, without a restart.
import { migrate } from "@tmi/db";
import { type PostgresCluster, startPostgresCluster, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BASE_FIELDS, createHarness, errorOf, type Harness, multipart } from "../test/harness.js";
import { pngImage } from "./images/test-images.js";

let cluster: PostgresCluster;
let h: Harness;
let seed = 1;

async function createDraft() {
  const { payload, headers } = await multipart(BASE_FIELDS, [{ bytes: pngImage(2 + seed++, 3) }]);
  const response = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

async function finalize(draft: string) {
  const response = await h.app.inject({
    method: "POST",
    url: `/api/v1/token-metadata/${draft}/finalize`,
    payload: { token_address: `0x${"cd".repeat(20)}`, transaction_hash: `0x${"ab".repeat(32)}` },
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const url = cluster.url("tmi_outage");
  await migrate({ databaseUrl: url });
  h = await createHarness({ driver: "fs", database: { url, name: "tmi_outage", drop: async () => {} } });
});

afterAll(async () => {
  await h?.close();
  await cluster?.destroy();
});

describe("PostgreSQL outage", () => {
  test("behavior: 503 service_unavailable with Retry-After while the database is down, recovery without restart", async () => {
    const before = await createDraft();
    expect(before.status).toBe(201);
    const draft = before.body.draft_id as string;
    // No receipt for this launch: the answer needs the database, then the chain.
    expect((await finalize(draft)).status).toBe(409);

    await cluster.stop();
    for (const answer of [await createDraft(), await finalize(draft)]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(errorOf(answer.body)).toMatchObject({
        code: "service_unavailable",
        request_id: answer.headers["x-request-id"],
      });
      expect(answer.headers["retry-after"]).toBe("5");
    }
    const ready = await h.app.inject({ url: "/readyz" });
    expect(ready.statusCode).toBe(503);
    expect(errorOf(ready.json()).code).toBe("not_ready");
    // Objects do not need the database.
    expect((await h.app.inject({ url: before.body.image_url })).statusCode).toBe(200);

    await cluster.start();
    await waitFor(async () => (await h.app.inject({ url: "/readyz" })).statusCode === 200, {
      timeoutMs: 30_000,
      message: "readyz did not recover",
    });
    expect((await createDraft()).status).toBe(201);
    expect((await finalize(draft)).status).toBe(409);
  });
});
