import { describe, expect, test } from "vitest";
import { ImageInspector } from "./image-inspect.js";
import { GifWalker, JpegWalker, PngWalker } from "./image-structure.js";
import {
  gifAnimationBomb,
  gifFrameBomb,
  gifImage,
  gifScriptPolyglot,
  gifWithFrames,
  htmlDocument,
  jpegImage,
  jpegWithTrailingHtml,
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
    // A JPEG, then HTML, then a final FF D9: the image ends at the EOI after its scan.
    for (const chunk of [1, 7, 100_000]) {
      expect(await inspect(jpegWithTrailingHtml(), chunk)).toMatchObject({
        ok: false,
        kind: "invalid",
        reason: "trailing data after the JPEG EOI",
      });
    }
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

  test("error: a GIF frame above the pixel cap, or frames above 10 times it together, behind a small screen", async () => {
    expect(await inspect(gifFrameBomb())).toMatchObject({
      ok: false,
      kind: "dimensions",
      reason: "a GIF frame is 60000x60000; at most 40000000 pixels are accepted",
    });
    const animation = gifAnimationBomb();
    expect(animation.length).toBeLessThan(10_000);
    expect(await inspect(animation, 4096)).toMatchObject({
      ok: false,
      kind: "dimensions",
      reason: "the GIF's 300 frames have 10800000000 pixels; at most 400000000 are accepted",
    });
  });

  test("behavior: animated GIFs within the caps are accepted", async () => {
    const frame = { width: 2_000, height: 2_000 };
    // 100 frames of 4 million pixels: exactly 10 times the cap together.
    const gif = gifWithFrames(
      frame,
      Array.from({ length: 100 }, () => frame),
    );
    expect(await inspect(gif)).toMatchObject({ ok: true, ext: "gif", width: 2_000, height: 2_000 });
    expect(
      await inspect(
        gifWithFrames(
          frame,
          [...Array(100)].map(() => frame),
        ),
        7,
        39_999_999,
      ),
    ).toMatchObject({
      ok: false,
      kind: "dimensions",
    });
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

describe("JpegWalker", () => {
  /**
   * `jpegImage()` with its one scan replaced by `scans`: each the scan's entropy-coded data after
   * an SOS segment, optionally preceded by other segments (`before`).
   */
  function jpegWithScans(...scans: { before?: number[]; data: number[] }[]): Buffer {
    const base = jpegImage();
    const sos = base.lastIndexOf(Buffer.from([0xff, 0xda]));
    const sosSegment = [...base.subarray(sos, sos + 10)];
    return Buffer.concat([
      base.subarray(0, sos),
      ...scans.map((scan) => Buffer.from([...(scan.before ?? []), ...sosSegment, ...scan.data])),
      Buffer.from([0xff, 0xd9]),
    ]);
  }

  const walk = (bytes: Buffer, chunkSize = 1) => {
    const walker = new JpegWalker();
    for (let i = 0; i < bytes.length; i += chunkSize) walker.feed(bytes.subarray(i, i + chunkSize));
    return walker.finish();
  };

  test("default", () => {
    expect(walk(jpegImage())).toBeNull();
  });

  test("behavior: stuffed bytes, restart markers, fill bytes and several scans stay inside the image", () => {
    // FF 00 (a data byte 0xFF), RST0 and RST7, FF D9 bytes only after a stuffed FF, fill FFs before
    // the next marker; a DHT between two scans (progressive); a second image after the EOI (MPF).
    const progressive = jpegWithScans(
      { data: [0x12, 0xff, 0x00, 0xd9, 0xff, 0xd0, 0x34, 0xff, 0xd7, 0xff, 0x00, 0xff, 0xff] },
      { before: [0xff, 0xc4, 0x00, 0x14, 0x00, 0x01, ...Array(15).fill(0), 0x00], data: [0x56] },
      { data: [0x78, 0xff, 0xff] },
    );
    for (const chunk of [1, 3, 1_000]) expect(walk(progressive, chunk)).toBeNull();
    expect(walk(Buffer.concat([progressive, jpegImage()]), 5)).toBeNull();
  });

  test("error: data after the EOI, truncation, and broken segments", () => {
    expect(walk(jpegWithTrailingHtml())).toBe("trailing data after the JPEG EOI");
    expect(walk(Buffer.concat([jpegImage(), Buffer.from([0x00])]))).toBe("trailing data after the JPEG EOI");
    expect(walk(Buffer.concat([jpegImage(), Buffer.from([0xff])]))).toBe("trailing data after the JPEG EOI");
    expect(walk(Buffer.concat([jpegImage(), Buffer.from([0xff, 0xd9])]))).toBe(
      "trailing data after the JPEG EOI",
    );
    expect(walk(jpegImage().subarray(0, -2))).toBe("truncated JPEG (no EOI)");
    // EOI right after the header segments: no image data.
    const base = jpegImage();
    const sos = base.lastIndexOf(Buffer.from([0xff, 0xda]));
    expect(walk(Buffer.concat([base.subarray(0, sos), Buffer.from([0xff, 0xd9])]))).toBe(
      "JPEG has no image data before EOI",
    );
    // HTML where a segment should start.
    expect(walk(Buffer.concat([base.subarray(0, 2), Buffer.from("<html>")]))).toBe(
      "unexpected byte between JPEG segments",
    );
    expect(walk(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01]))).toBe("malformed JPEG segment length");
  });
});
