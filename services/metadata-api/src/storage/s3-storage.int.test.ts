import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BASE_FIELDS, createHarness, errorOf, type Harness, multipart } from "../../test/harness.js";
import { jpegImage, pngImage } from "../images/test-images.js";

let h: Harness;

beforeAll(async () => {
  h = await createHarness({ driver: "s3" });
});
afterAll(async () => {
  await h?.close();
});

describe("s3 storage driver (s3rver)", () => {
  test("default", async () => {
    const png = pngImage(5, 5, { padTo: 300_000 });
    const { payload, headers } = await multipart(BASE_FIELDS, [{ bytes: png }]);
    const created = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    const image = await h.app.inject({ url: body.image_url });
    expect(image.statusCode).toBe(200);
    expect(image.headers["content-type"]).toBe("image/png");
    expect(image.headers["content-length"]).toBe(String(png.length));
    expect(image.rawPayload.equals(png)).toBe(true);
    const meta = await h.app.inject({ url: body.metadata_url });
    expect(meta.headers["content-type"]).toMatch(/^application\/json/);
    expect(meta.json().image).toBe(body.image_url);
    const stat = await h.storage.stat(body.image_url.replace("/objects/", ""));
    expect(stat?.size).toBe(png.length);
  });

  test("behavior: the same image twice is stored once under the same key", async () => {
    const a = await multipart(BASE_FIELDS, [{ bytes: jpegImage() }]);
    const first = (await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", ...a })).json();
    const second = (await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", ...a })).json();
    expect(first.image_url).toBe(second.image_url);
    expect(first.metadata_url).toBe(second.metadata_url);
    expect(first.draft_id).not.toBe(second.draft_id);
  });

  test("error: storage down → 404 not_found on /objects", async () => {
    const { payload, headers } = await multipart(BASE_FIELDS, [{ bytes: pngImage(7, 7) }]);
    const body = (
      await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers })
    ).json();
    expect((await h.app.inject({ url: body.image_url })).statusCode).toBe(200);
    await h.s3!.stop();
    const down = await h.app.inject({ url: body.image_url });
    expect(down.statusCode).toBe(404);
    expect(errorOf(down.json()).code).toBe("not_found");
    const conditional = await h.app.inject({
      url: body.image_url,
      headers: { "if-none-match": `"${body.image_url.slice(15, 79)}"` },
    });
    expect(conditional.statusCode).toBe(404);
    // Creating a draft while storage is down is 503 storage_unavailable (retryable), no draft row.
    const drafts = Number((await h.sql.query("SELECT count(*) AS n FROM metadata_drafts")).rows[0].n);
    const create = await multipart(BASE_FIELDS, [{ bytes: pngImage(9, 9) }]);
    const refused = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", ...create });
    expect(refused.statusCode).toBe(503);
    expect(errorOf(refused.json()).code).toBe("storage_unavailable");
    expect(Number((await h.sql.query("SELECT count(*) AS n FROM metadata_drafts")).rows[0].n)).toBe(drafts);
  });
});
