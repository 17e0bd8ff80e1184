import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { type AddressInfo, connect } from "node:net";
import { join } from "node:path";
import { waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  BASE_FIELDS,
  createHarness,
  errorOf,
  type Harness,
  type ImageServer,
  multipart,
  startImageServer,
} from "../../test/harness.js";
import { createImageFetcher } from "../images/image-fetcher.js";
import {
  gifAnimationBomb,
  gifFrameBomb,
  gifImage,
  gifScriptPolyglot,
  htmlDocument,
  jpegImage,
  jpegWithTrailingHtml,
  pngBomb,
  pngHeadedHtml,
  pngImage,
  pngWithTrailingHtml,
  svgDocument,
  webpImage,
} from "../images/test-images.js";

const MB5 = 5 * 1024 * 1024;
let server: ImageServer;
let h: Harness;

async function create(fields: Record<string, string>, files: Parameters<typeof multipart>[1] = []) {
  const { payload, headers } = await multipart(fields, files);
  const response = await h.app.inject({ method: "POST", url: "/api/v1/token-metadata", payload, headers });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

beforeAll(async () => {
  server = await startImageServer();
  server.routes.set("/ok.png", (res) =>
    res.writeHead(200, { "content-type": "image/png" }).end(pngImage(4, 4)),
  );
  server.routes.set("/ok.gif", (res) => res.writeHead(200, { "content-type": "image/gif" }).end(gifImage()));
  server.routes.set("/svg.png", (res) =>
    res.writeHead(200, { "content-type": "image/png" }).end(svgDocument()),
  );
  server.routes.set("/bomb.png", (res) => res.writeHead(200).end(pngBomb()));
  server.routes.set("/big-declared", (res) =>
    res.writeHead(200, { "content-length": String(MB5 + 1) }).end(Buffer.alloc(MB5 + 1)),
  );
  server.routes.set("/big-chunked", (res) => {
    res.writeHead(200, { "transfer-encoding": "chunked" });
    const chunk = Buffer.alloc(64 * 1024);
    for (let i = 0; i < 82; i++) res.write(chunk); // 5.125 MiB, no Content-Length
    res.end();
  });
  server.routes.set("/missing", (res) => res.writeHead(404).end());
  server.routes.set("/slow", () => {}); // never answers
  for (let n = 1; n <= 5; n++) {
    server.routes.set(`/r/${n}`, (res) =>
      res.writeHead(302, { location: n === 1 ? "/ok.png" : `/r/${n - 1}` }).end(),
    );
  }
  server.routes.set("/redirect", (res, req) => {
    const to = new URL(req.url!, "https://x").searchParams.get("to")!;
    res.writeHead(307, { location: to }).end();
  });
  h = await createHarness({ driver: "fs", imageServer: server });
});

afterAll(async () => {
  await h?.close();
  await server?.close();
});

describe("POST /api/v1/token-metadata", () => {
  test("default", async () => {
    const png = pngImage(8, 8);
    const { status, body } = await create(
      {
        ...BASE_FIELDS,
        name: "  Moon Cat  ",
        description: "The cat\non the moon",
        website_url: "https://Example.com/cat",
        x_url: "https://x.com/mooncat",
        telegram_url: "https://t.me/mooncat",
        discord_url: "https://discord.gg/mooncat",
      },
      [{ bytes: png, filename: "cat.png", type: "image/png" }],
    );
    expect(status).toBe(201);
    const sha = createHash("sha256").update(png).digest("hex");
    expect(body).toMatchObject({
      status: "draft",
      chain_id: 31337,
      name: "Moon Cat",
      symbol: "MCAT",
      initial_supply: "1000000000000000000000000000",
      description: "The cat\non the moon",
      website_url: "https://example.com/cat",
      x_url: "https://x.com/mooncat",
      telegram_url: "https://t.me/mooncat",
      discord_url: "https://discord.gg/mooncat",
      image_url: `/objects/images/${sha}.png`,
    });
    expect(Object.values(body)).not.toContain(null);
    expect(body.draft_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.metadata_url).toMatch(/^\/objects\/metadata\/[0-9a-f]{64}\.json$/);

    const image = await h.app.inject({ url: body.image_url });
    expect(image.statusCode).toBe(200);
    expect(image.headers["content-type"]).toBe("image/png");
    expect(image.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(image.headers.etag).toBe(`"${sha}"`);
    expect(image.rawPayload.equals(png)).toBe(true);

    const meta = await h.app.inject({ url: body.metadata_url });
    expect(meta.statusCode).toBe(200);
    expect(meta.headers["content-type"]).toMatch(/^application\/json/);
    expect(meta.json()).toEqual({
      name: "Moon Cat",
      symbol: "MCAT",
      description: "The cat\non the moon",
      image: body.image_url,
      initial_supply: "1000000000000000000000000000",
      links: {
        website_url: "https://example.com/cat",
        x_url: "https://x.com/mooncat",
        telegram_url: "https://t.me/mooncat",
        discord_url: "https://discord.gg/mooncat",
      },
    });
    const row = await h.sql.query(
      "SELECT status, image_key, initial_supply::text AS s FROM metadata_drafts WHERE id = $1",
      [body.draft_id],
    );
    expect(row.rows[0]).toEqual({
      status: "draft",
      image_key: `images/${sha}.png`,
      s: "1000000000000000000000000000",
    });
  });

  test("behavior: each allowed image type, typed by magic bytes not by name or client type", async () => {
    const cases = [
      { bytes: pngImage(), ext: "png", type: "image/png" },
      { bytes: jpegImage(), ext: "jpg", type: "image/jpeg" },
      { bytes: webpImage(), ext: "webp", type: "image/webp" },
      { bytes: gifImage(), ext: "gif", type: "image/gif" },
    ];
    for (const c of cases) {
      const { status, body } = await create(BASE_FIELDS, [
        { bytes: c.bytes, filename: "pic.txt", type: "text/plain" },
      ]);
      expect(status, c.ext).toBe(201);
      expect(body.image_url).toMatch(new RegExp(`^/objects/images/[0-9a-f]{64}\\.${c.ext}$`));
      const got = await h.app.inject({ url: body.image_url });
      expect(got.headers["content-type"]).toBe(c.type);
      expect(got.rawPayload.equals(c.bytes)).toBe(true);
    }
  });

  test("behavior: a browser's empty file input with image_url counts as no file", async () => {
    const { status, body } = await create({ ...BASE_FIELDS, image_url: server.url("img.test", "/ok.png") }, [
      { bytes: Buffer.alloc(0), filename: "", type: "application/octet-stream" },
    ]);
    expect(status).toBe(201);
    expect(body.image_url).toMatch(/\.png$/);
  });

  test("behavior: description is always a string and unset links are absent", async () => {
    const { status, body } = await create(BASE_FIELDS, [{ bytes: pngImage(3, 5) }]);
    expect(status).toBe(201);
    expect(body.description).toBe("");
    for (const key of ["website_url", "x_url", "telegram_url", "discord_url"])
      expect(body).not.toHaveProperty(key);
    expect(body.image_url).toMatch(/^\/objects\/images\/[0-9a-f]{64}\.png$/);
    expect(body.metadata_url).toMatch(/^\/objects\/metadata\/[0-9a-f]{64}\.json$/);
  });

  test("error: every field rule answers 400 with the field's code and details", async () => {
    const png = [{ bytes: pngImage() }];
    const cases: [Record<string, string>, string][] = [
      [{ symbol: "A", initial_supply: "1" }, "name"],
      [{ ...BASE_FIELDS, name: " " }, "name"],
      [{ ...BASE_FIELDS, name: "n".repeat(65) }, "name"],
      [{ ...BASE_FIELDS, name: "é".repeat(33) }, "name"],
      [{ name: "A", initial_supply: "1" }, "symbol"],
      [{ ...BASE_FIELDS, symbol: "S".repeat(17) }, "symbol"],
      [{ ...BASE_FIELDS, symbol: "😀😀😀😀😀" }, "symbol"],
      [{ name: "A", symbol: "A" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: "0" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: "-5" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: "+5" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: "1e27" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: "1.5" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: "007" }, "initial_supply"],
      [{ ...BASE_FIELDS, initial_supply: (2n ** 256n).toString() }, "initial_supply"],
      [{ ...BASE_FIELDS, description: "d".repeat(1001) }, "description"],
      [{ ...BASE_FIELDS, website_url: "ftp://example.com" }, "website_url"],
      [{ ...BASE_FIELDS, website_url: "javascript:alert(1)" }, "website_url"],
      [{ ...BASE_FIELDS, x_url: "https://evil.com/x" }, "x_url"],
      [{ ...BASE_FIELDS, x_url: "https://x.com.evil.com/x" }, "x_url"],
      [{ ...BASE_FIELDS, telegram_url: "https://telegram.org/x" }, "telegram_url"],
      [{ ...BASE_FIELDS, discord_url: "https://discord.io/x" }, "discord_url"],
      [{ ...BASE_FIELDS, color: "red" }, "color"],
    ];
    const codes: Record<string, string> = {
      name: "invalid_name",
      symbol: "invalid_symbol",
      initial_supply: "invalid_supply",
      description: "invalid_description",
      website_url: "invalid_website_url",
      x_url: "invalid_x_url",
      telegram_url: "invalid_telegram_url",
      discord_url: "invalid_discord_url",
      color: "invalid_upload",
    };
    for (const [fields, field] of cases) {
      const { status, body: raw } = await create(fields, png);
      const body = errorOf(raw);
      expect(status, JSON.stringify(fields)).toBe(400);
      expect(body.code, JSON.stringify(fields)).toBe(codes[field]);
      expect(body.request_id).toBeTruthy();
      expect(
        body.details.map((d: { field: string }) => d.field),
        JSON.stringify(fields),
      ).toContain(field);
    }
    // description of exactly 1,000 bytes and 64-byte names are fine
    expect(
      (await create({ ...BASE_FIELDS, name: "n".repeat(64), description: "d".repeat(1000) }, png)).status,
    ).toBe(201);
  });

  test("error: image and image_url are exclusive, one is required", async () => {
    const none = await create(BASE_FIELDS);
    expect(none.status).toBe(400);
    expect(errorOf(none.body)).toMatchObject({
      code: "invalid_image",
      details: [{ field: "image", reason: "an image file or image_url is required" }],
    });
    const both = await create({ ...BASE_FIELDS, image_url: server.url("img.test", "/ok.png") }, [
      { bytes: pngImage() },
    ]);
    expect(both.status).toBe(400);
    expect(errorOf(both.body).details[0].field).toBe("image");
    const two = await create(BASE_FIELDS, [{ bytes: pngImage() }, { bytes: gifImage() }]);
    expect(two.status).toBe(400);
    const http = await create({ ...BASE_FIELDS, image_url: "http://img.test/ok.png" });
    expect(http.status).toBe(400);
    expect(errorOf(http.body)).toMatchObject({ code: "invalid_image" });
    expect(errorOf(http.body).details[0].field).toBe("image_url");
  });

  test("error: not multipart, or malformed multipart, is 400 invalid_upload", async () => {
    const json = await h.app.inject({
      method: "POST",
      url: "/api/v1/token-metadata",
      payload: { name: "x" },
    });
    expect(json.statusCode).toBe(400);
    expect(errorOf(json.json()).code).toBe("invalid_upload");
    const xml = await h.app.inject({
      method: "POST",
      url: "/api/v1/token-metadata",
      payload: "<a/>",
      headers: { "content-type": "application/xml" },
    });
    expect(xml.statusCode).toBe(400);
    const noBoundary = await h.app.inject({
      method: "POST",
      url: "/api/v1/token-metadata",
      payload: "x",
      headers: { "content-type": "multipart/form-data" },
    });
    expect(noBoundary.statusCode).toBe(400);
    expect(errorOf(noBoundary.json()).code).toBe("invalid_upload");
    const { payload, headers } = await multipart(BASE_FIELDS, [{ bytes: pngImage() }]);
    const truncated = await h.app.inject({
      method: "POST",
      url: "/api/v1/token-metadata",
      payload: payload.subarray(0, payload.length - 60),
      headers,
    });
    expect(truncated.statusCode).toBe(400);
    expect(errorOf(truncated.json()).code).toBe("invalid_upload");
  });

  test("error: a multipart boundary of 253 or more characters is 400 invalid_upload, not 500", async () => {
    for (const length of [70, 252, 253, 254, 300, 1000]) {
      const boundary = "b".repeat(length);
      const payload = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nCat\r\n--${boundary}--\r\n`,
      );
      const response = await h.app.inject({
        method: "POST",
        url: "/api/v1/token-metadata",
        payload,
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      expect(response.statusCode, `boundary of ${length}`).toBe(400);
      const body = errorOf(response.json());
      // Short boundaries parse, and the form then misses its fields; long ones are refused as uploads.
      expect(body.code, `boundary of ${length}`).toBe(length < 253 ? "invalid_symbol" : "invalid_upload");
      expect(body.request_id).toBe(response.headers["x-request-id"]);
    }
  });

  test("error: SVG and HTML are 415 unsupported_image_type; polyglots disguised as PNG are 400 invalid_image", async () => {
    for (const bytes of [svgDocument(), htmlDocument()]) {
      const { status, body } = await create(BASE_FIELDS, [{ bytes, filename: "cat.png", type: "image/png" }]);
      expect(status).toBe(415);
      expect(errorOf(body).code).toBe("unsupported_image_type");
    }
    for (const bytes of [
      pngHeadedHtml(),
      pngWithTrailingHtml(),
      gifScriptPolyglot(),
      jpegWithTrailingHtml(),
    ]) {
      const { status, body } = await create(BASE_FIELDS, [{ bytes, filename: "cat.png", type: "image/png" }]);
      expect(status).toBe(400);
      expect(errorOf(body)).toMatchObject({ code: "invalid_image", details: [{ field: "image" }] });
    }
    const count = await h.sql.query(
      "SELECT count(*)::int AS n FROM metadata_drafts WHERE image_key LIKE '%.svg'",
    );
    expect(count.rows[0].n).toBe(0);
  });

  test("error: decompression bombs are refused: the header's size, a GIF frame's, all GIF frames'", async () => {
    const drafts = async () =>
      (await h.sql.query("SELECT count(*)::int AS n FROM metadata_drafts")).rows[0].n;
    const before = await drafts();
    for (const bytes of [pngBomb(), gifFrameBomb(), gifAnimationBomb()]) {
      const { status, body } = await create(BASE_FIELDS, [{ bytes }]);
      expect(status).toBe(400);
      expect(errorOf(body).code).toBe("invalid_image");
      expect(errorOf(body).message).toMatch(/pixels/);
    }
    expect(await drafts()).toBe(before);
  });

  test("behavior: exactly 5 MiB is accepted; 5 MiB + 1 byte ends cleanly with 413 over a real socket", async () => {
    if (!h.app.server.listening) await h.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (h.app.server.address() as AddressInfo).port;
    const exact = pngImage(2, 2, { padTo: MB5 });
    const ok = await multipart(BASE_FIELDS, [{ bytes: exact }]);
    const okResponse = await fetch(`http://127.0.0.1:${port}/api/v1/token-metadata`, {
      method: "POST",
      body: ok.payload,
      headers: ok.headers,
    });
    expect(okResponse.status).toBe(201);

    const over = await multipart(BASE_FIELDS, [{ bytes: Buffer.concat([exact, Buffer.from([0])]) }]);
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/token-metadata`, {
      method: "POST",
      body: over.payload,
      headers: over.headers,
    });
    expect(response.status).toBe(413);
    expect(errorOf(await response.json()).code).toBe("payload_too_large");

    // A declared body somewhat over the cap (6 MB: what the gateway forwards) is read and dropped:
    // the sender gets the 413, never a reset connection.
    for (let i = 0; i < 3; i++) {
      const six = await fetch(`http://127.0.0.1:${port}/api/v1/token-metadata`, {
        method: "POST",
        body: Buffer.concat([over.payload, Buffer.alloc(6_000_000 - over.payload.length)]),
        headers: over.headers,
      });
      expect(six.status).toBe(413);
      expect(errorOf(await six.json()).code).toBe("payload_too_large");
    }

    // A declared body far beyond the cap is refused before it is read.
    const huge = await fetch(`http://127.0.0.1:${port}/api/v1/token-metadata`, {
      method: "POST",
      body: Buffer.concat([over.payload, Buffer.alloc(2 * MB5)]),
      headers: over.headers,
    }).catch((e) => e as Error);
    if (!(huge instanceof Error)) expect(huge.status).toBe(413);
  });
});

describe("aborted uploads", () => {
  test("behavior: a client that disconnects mid-upload leaves no scratch file and the server keeps serving", async () => {
    if (!h.app.server.listening) await h.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (h.app.server.address() as AddressInfo).port;
    const { payload, headers } = await multipart(BASE_FIELDS, [
      { bytes: pngImage(2, 2, { padTo: 2 * 1024 * 1024 }) },
    ]);
    await new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `POST /api/v1/token-metadata HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${headers["content-type"]}\r\nContent-Length: ${payload.length}\r\n\r\n`,
        );
        socket.write(payload.subarray(0, 1024 * 1024), () => setTimeout(() => socket.destroy(), 100));
      });
      socket.on("close", () => resolve());
      socket.on("error", () => {});
    });
    await waitFor(async () => (await readdir(join(h.storageDir, "spool")).catch(() => [])).length === 0, {
      timeoutMs: 5000,
      message: "scratch file left behind",
    });
    const after = await create(BASE_FIELDS, [{ bytes: pngImage(3, 3) }]);
    expect(after.status).toBe(201);
  });
});

describe("image_url (SSRF rules)", () => {
  test("default", async () => {
    const before = server.hits.length;
    const { status, body } = await create({ ...BASE_FIELDS, image_url: server.url("img.test", "/ok.png") });
    expect(status).toBe(201);
    expect(body.image_url).toBe(
      `/objects/images/${createHash("sha256").update(pngImage(4, 4)).digest("hex")}.png`,
    );
    expect(server.hits.length).toBe(before + 1);
  });

  test("error: every bypass form is refused before any request reaches the server", async () => {
    const p = server.port;
    const forms = [
      `https://127.0.0.1:${p}/ok.png`,
      `https://localhost:${p}/ok.png`,
      `https://0.0.0.0:${p}/ok.png`,
      `https://169.254.169.254/latest/meta-data/`,
      `https://[::1]:${p}/ok.png`,
      `https://[::ffff:127.0.0.1]:${p}/ok.png`,
      `https://[::ffff:7f00:1]:${p}/ok.png`,
      `https://[::127.0.0.1]:${p}/ok.png`,
      `https://[fd00::1]:${p}/ok.png`,
      `https://[fe80::1]:${p}/ok.png`,
      `https://[ff02::1]:${p}/ok.png`,
      `https://0x7f.0.0.1:${p}/ok.png`,
      `https://0x7f000001:${p}/ok.png`,
      `https://0177.0.0.1:${p}/ok.png`,
      `https://017700000001:${p}/ok.png`,
      `https://2130706433:${p}/ok.png`,
      `https://127.1:${p}/ok.png`,
      `https://10.0.0.1/ok.png`,
      `https://192.168.0.1/ok.png`,
      `https://172.16.0.1/ok.png`,
      `https://100.64.0.1/ok.png`,
      `https://224.0.0.1/ok.png`,
      `https://private.test:${p}/ok.png`,
      `https://mixed.test:${p}/ok.png`,
      `https://rebind.test:${p}/ok.png`,
      `https://unknown.test:${p}/ok.png`,
    ];
    const before = server.hits.length;
    for (const url of forms) {
      const { status, body } = await create({ ...BASE_FIELDS, image_url: url });
      expect(status, url).toBe(422);
      expect(errorOf(body).code, url).toBe("image_unavailable");
    }
    expect(server.hits.length).toBe(before);
  });

  test("behavior: the production policy refuses loopback (no injected resolver or policy)", async () => {
    const fetcher = createImageFetcher({ timeoutMs: 5000, maxBytes: MB5, ca: server.cert });
    const before = server.hits.length;
    for (const url of [
      `https://localhost:${server.port}/ok.png`,
      `https://127.0.0.1:${server.port}/ok.png`,
    ]) {
      await expect(fetcher.fetch(url, async () => "fetched")).rejects.toThrow(/refused|not a public/);
    }
    expect(server.hits.length).toBe(before);
    await fetcher.close();
  });

  test("behavior: addresses are checked at connect time, once per connection (no DNS rebinding window)", async () => {
    const resolverCalls: string[] = [];
    let answer = "127.0.0.1";
    const fetcher = createImageFetcher({
      timeoutMs: 5000,
      maxBytes: MB5,
      ca: server.cert,
      resolver: async (hostname) => {
        resolverCalls.push(hostname);
        const address = answer;
        answer = "10.0.0.9"; // the next answer would be private
        return [{ address, family: 4 }];
      },
      policy: (address, hostname) => hostname === "img.test" && address === "127.0.0.1",
    });
    const got = await fetcher.fetch(server.url("img.test", "/ok.png"), async ({ body }) => {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    });
    expect(got.equals(pngImage(4, 4))).toBe(true);
    expect(resolverCalls).toEqual(["img.test"]); // the address connected to is the one checked
    await fetcher.close();

    // When the connect-time answer is private the fetch fails, even if an earlier answer was public.
    const fetcher2 = createImageFetcher({
      timeoutMs: 5000,
      maxBytes: MB5,
      ca: server.cert,
      resolver: async () => [{ address: "10.0.0.9", family: 4 }],
      policy: (address, hostname) => hostname === "img.test" && address === "127.0.0.1",
    });
    await expect(fetcher2.fetch(server.url("img.test", "/ok.png"), async () => "x")).rejects.toThrow(
      /non-public/,
    );
    await fetcher2.close();
  });

  test("behavior: up to 3 redirects are followed, each re-checked", async () => {
    const ok = await create({ ...BASE_FIELDS, image_url: server.url("img.test", "/r/3") });
    expect(ok.status).toBe(201);
    const tooMany = await create({ ...BASE_FIELDS, image_url: server.url("img.test", "/r/4") });
    expect(tooMany.status).toBe(422);
    expect(errorOf(tooMany.body).message).toMatch(/more than 3/);
    const p = server.port;
    for (const to of [
      `https://127.0.0.1:${p}/ok.png`,
      `https://[::1]:${p}/ok.png`,
      `https://[::ffff:127.0.0.1]:${p}/ok.png`,
      `https://0x7f.1:${p}/ok.png`,
      `https://2130706433:${p}/ok.png`,
      `http://img.test:${p}/ok.png`,
      `https://private.test:${p}/ok.png`,
      `https://localhost:${p}/ok.png`,
      `https://169.254.169.254/latest/meta-data/`,
    ]) {
      const before = server.hits.length;
      const { status, body } = await create({
        ...BASE_FIELDS,
        image_url: server.url("img.test", `/redirect?to=${encodeURIComponent(to)}`),
      });
      expect(status, to).toBe(422);
      expect(errorOf(body).code).toBe("image_unavailable");
      expect(server.hits.length, to).toBe(before + 1); // only the redirecting request was made
    }
  });

  test("error: not an allowed image, too large, HTTP errors are 422 image_unavailable", async () => {
    for (const path of ["/svg.png", "/bomb.png", "/big-declared", "/big-chunked", "/missing"]) {
      const { status, body } = await create({ ...BASE_FIELDS, image_url: server.url("img.test", path) });
      expect(status, path).toBe(422);
      expect(errorOf(body).code, path).toBe("image_unavailable");
    }
  });

  test("error: a server that never answers times out", async () => {
    const fetcher = createImageFetcher({
      timeoutMs: 300,
      maxBytes: MB5,
      ca: server.cert,
      resolver: async () => [{ address: "127.0.0.1", family: 4 }],
      policy: () => true,
    });
    await expect(fetcher.fetch(server.url("img.test", "/slow"), async () => "x")).rejects.toThrow(
      /timed out/,
    );
    await fetcher.close();
  });
});

describe("GET /objects/*", () => {
  test("default", async () => {
    const { body } = await create(BASE_FIELDS, [{ bytes: gifImage() }]);
    const first = await h.app.inject({ url: body.image_url });
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-length"]).toBe(String(gifImage().length));
    expect(first.headers["x-content-type-options"]).toBe("nosniff");
    const again = await h.app.inject({
      url: body.image_url,
      headers: { "if-none-match": first.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  test("error: only the exact key of a stored object is served (trailing slash, escapes, doubled slashes: 404)", async () => {
    const { body } = await create(BASE_FIELDS, [{ bytes: gifImage() }]);
    const url = body.image_url as string;
    expect((await h.app.inject({ url })).statusCode).toBe(200);
    for (const variant of [
      `${url}/`,
      `${url}//`,
      url.replace("/objects/images/", "/objects//images/"),
      url.replace("/objects/images/", "/objects/images%2F"),
      url.replace(/\.gif$/, "%2Egif"),
      `${url}/?x=1`,
    ]) {
      const response = await h.app.inject({ url: variant });
      expect(response.statusCode, variant).toBe(404);
      expect(errorOf(response.json()).code, variant).toBe("not_found");
    }
  });

  test("error: missing objects, traversal and odd keys are 404 not_found", async () => {
    const sha = "b".repeat(64);
    for (const url of [
      `/objects/images/${sha}.png`,
      `/objects/metadata/${sha}.json`,
      "/objects/../../etc/passwd",
      "/objects/%2e%2e/%2e%2e/etc/passwd",
      "/objects/images/..%2f..%2fpackage.json",
      `/objects/images/${sha}.svg`,
      `/objects/images/${sha.toUpperCase()}.png`,
      "/objects/.tmp/x.part",
      "/objects/",
      `/objects/images/${sha}.png%00`,
    ]) {
      const response = await h.app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(errorOf(response.json()).code, url).toBe("not_found");
    }
  });
});
