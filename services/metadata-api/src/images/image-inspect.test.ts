import { describe, expect, test } from "vitest";
import { GifWalker, ImageInspector, PngWalker } from "./image-inspect.js";
import {
  gifImage,
  gifScriptPolyglot,
  htmlDocument,
  jpegImage,
  pngBomb,
  pngHeadedHtml,
  pngImage,
  pngWithTrailingHtml,
  svgDocument,
  webpImage,
} from "./test-images.js";

async function inspect(bytes: Buffer, chunkSize = 7, maxPixels = 40_000_000) {
  const inspector = new ImageInspector(maxPixels);
  for (let i = 0; i < bytes.length; i += chunkSize) inspector.feed(bytes.subarray(i, i + chunkSize));
  return inspector.finish();
}

describe("ImageInspector", () => {
  test("default", async () => {
    expect(await inspect(pngImage(3, 2))).toEqual({
      ok: true,
      mime: "image/png",
      ext: "png",
      width: 3,
      height: 2,
    });
  });

  test("behavior: accepts each allowed type from its magic bytes", async () => {
    expect(await inspect(jpegImage())).toMatchObject({
      ok: true,
      mime: "image/jpeg",
      ext: "jpg",
      width: 1,
      height: 1,
    });
    expect(await inspect(webpImage())).toMatchObject({
      ok: true,
      mime: "image/webp",
      ext: "webp",
      width: 1,
      height: 1,
    });
    expect(await inspect(gifImage())).toMatchObject({
      ok: true,
      mime: "image/gif",
      ext: "gif",
      width: 1,
      height: 1,
    });
    expect(await inspect(pngImage(10, 10), 1)).toMatchObject({ ok: true, ext: "png" });
    expect(await inspect(pngImage(10, 10), 100_000)).toMatchObject({ ok: true, ext: "png" });
  });

  test("error: SVG, HTML and empty input are not images", async () => {
    for (const bytes of [svgDocument(), htmlDocument()]) {
      expect(await inspect(bytes)).toMatchObject({ ok: false, kind: "type" });
    }
    expect(await inspect(Buffer.alloc(0))).toMatchObject({ ok: false, kind: "invalid" });
  });

  test("error: polyglots disguised as PNG", async () => {
    expect(await inspect(pngHeadedHtml())).toMatchObject({ ok: false, kind: "invalid" });
    expect(await inspect(pngWithTrailingHtml())).toMatchObject({
      ok: false,
      reason: "trailing data after IEND",
    });
    expect(await inspect(gifScriptPolyglot())).toMatchObject({ ok: false });
    expect(await inspect(Buffer.concat([jpegImage(), htmlDocument()]))).toMatchObject({ ok: false });
    expect(await inspect(Buffer.concat([gifImage(), htmlDocument()]))).toMatchObject({ ok: false });
    expect(await inspect(Buffer.concat([webpImage(), htmlDocument()]))).toMatchObject({ ok: false });
    // GIF/JavaScript polyglot that even ends with the trailer byte ";".
    const gifJs = Buffer.concat([Buffer.from("GIF89a/*\x00\x00\x00\x00*/=1;alert(1);", "latin1")]);
    expect(await inspect(gifJs)).toMatchObject({ ok: false });
  });

  test("error: decompression bomb (tiny file, huge declared dimensions)", async () => {
    const bomb = pngBomb();
    expect(bomb.length).toBeLessThan(100);
    expect(await inspect(bomb)).toMatchObject({ ok: false, kind: "dimensions" });
    expect(await inspect(pngImage(100, 100), 64, 9_999)).toMatchObject({ ok: false, kind: "dimensions" });
  });

  test("behavior: padded PNG of an exact size stays valid", async () => {
    const png = pngImage(2, 2, { padTo: 5000 });
    expect(png.length).toBe(5000);
    expect(await inspect(png, 333)).toMatchObject({ ok: true });
  });
});

describe("GifWalker", () => {
  test("default", () => {
    const walker = new GifWalker();
    for (const byte of gifImage()) walker.feed(Buffer.from([byte]));
    expect(walker.finish()).toBeNull();
  });

  test("error: trailing data and truncation", () => {
    const trailing = new GifWalker();
    trailing.feed(Buffer.concat([gifImage(), Buffer.from("<html>")]));
    expect(trailing.finish()).toBe("trailing data after the GIF trailer");
    const truncated = new GifWalker();
    truncated.feed(gifImage().subarray(0, 30));
    expect(truncated.finish()).toBe("truncated GIF (no trailer)");
  });
});

describe("PngWalker", () => {
  test("error: a corrupted CRC is found", () => {
    const png = pngImage();
    png[png.length - 20] = (png[png.length - 20] ?? 0) ^ 0xff;
    const walker = new PngWalker();
    walker.feed(png);
    expect(walker.finish()).toMatch(/CRC|malformed/);
  });

  test("error: truncated file", () => {
    const walker = new PngWalker();
    walker.feed(pngImage().subarray(0, 40));
    expect(walker.finish()).toBe("truncated PNG (no IEND)");
  });
});
