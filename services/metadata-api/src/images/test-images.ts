// Tiny, structurally valid images generated in code for tests and benchmarks (no fixtures on disk).
import { randomBytes } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(Buffer.from(type, "latin1"))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid RGB PNG of `width`×`height` (solid colour). `padTo` inserts an ancillary `tEXt`
 * chunk so that the file is exactly that many bytes (≥ the plain size + 12); with `unique`, its
 * filler is random hex, so that every call gives a distinct file (distinct content hash).
 */
export function pngImage(
  width = 2,
  height = 2,
  options: { padTo?: number; unique?: boolean; declared?: { width: number; height: number } } = {},
): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(options.declared?.width ?? width, 0);
  ihdr.writeUInt32BE(options.declared?.height ?? height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x7f)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk("IHDR", ihdr)];
  const idat = pngChunk("IDAT", deflateSync(raw));
  const iend = pngChunk("IEND", Buffer.alloc(0));
  const plain = parts.reduce((n, p) => n + p.length, 0) + idat.length + iend.length;
  if (options.padTo !== undefined) {
    const filler = options.padTo - plain - 12;
    if (filler < 0) throw new Error("padTo too small");
    const text = options.unique
      ? Buffer.from(
          randomBytes(Math.ceil(filler / 2))
            .toString("hex")
            .slice(0, filler),
          "latin1",
        )
      : Buffer.alloc(filler, 0x61);
    text.write("Comment\0", 0, "latin1");
    parts.push(pngChunk("tEXt", text));
  }
  return Buffer.concat([...parts, idat, iend]);
}

/**
 * A "decompression bomb": a tiny, well-formed PNG whose header declares `width`×`height`
 * (default 100,000 × 100,000 = 10^10 pixels).
 */
export function pngBomb(width = 100_000, height = 100_000): Buffer {
  return pngImage(1, 1, { declared: { width, height } });
}

/** A valid 1×1 greyscale baseline JPEG (one all-zero block, minimal Huffman tables). */
export function jpegImage(): Buffer {
  const dqt = Buffer.concat([Buffer.from([0xff, 0xdb, 0x00, 0x43, 0x00]), Buffer.alloc(64, 1)]);
  const huffman = (tableClass: number) =>
    Buffer.concat([
      Buffer.from([0xff, 0xc4, 0x00, 0x14, tableClass << 4]),
      Buffer.from([1, ...Array(15).fill(0)]),
      Buffer.from([0]),
    ]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    Buffer.from([
      0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
      0x00,
    ]),
    dqt,
    Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00]),
    huffman(0),
    huffman(1),
    Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]),
    Buffer.from([0x3f]),
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A valid 1×1 lossless WebP (VP8L). */
export function webpImage(): Buffer {
  return Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64");
}

/** A valid 1×1 GIF89a. */
export function gifImage(): Buffer {
  return Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
}

/** An SVG document (to be sent disguised as `x.png` / `image/png`). */
export function svgDocument(): Buffer {
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>',
  );
}

/** An HTML document (to be sent disguised as a PNG). */
export function htmlDocument(): Buffer {
  return Buffer.from("<!doctype html><html><body><script>alert(document.cookie)</script></body></html>");
}

/** A PNG signature followed by HTML: magic bytes say PNG, the structure does not. */
export function pngHeadedHtml(): Buffer {
  return Buffer.concat([pngImage().subarray(0, 33), htmlDocument()]);
}

/** A valid PNG with an HTML payload appended after IEND (a classic polyglot). */
export function pngWithTrailingHtml(): Buffer {
  return Buffer.concat([pngImage(), htmlDocument()]);
}

/** A GIF header followed by script (GIFAR-style polyglot), named and typed as PNG by the client. */
export function gifScriptPolyglot(): Buffer {
  return Buffer.concat([
    Buffer.from("GIF89a/*\x01\x00\x01\x00\x00\x00\x00", "latin1"),
    Buffer.from("*/=1;alert(1);//"),
  ]);
}

/**
 * A GIF89a of a `screen` logical screen (no colour table) with one image block per `frames` entry,
 * each declaring that size in its image descriptor (its LZW data is one 1-pixel sub-block).
 */
export function gifWithFrames(
  screen: { width: number; height: number },
  frames: { width: number; height: number }[],
): Buffer {
  const u16 = (n: number) => [n & 0xff, n >> 8];
  const block = (f: { width: number; height: number }) =>
    Buffer.from([0x2c, 0, 0, 0, 0, ...u16(f.width), ...u16(f.height), 0x00, 0x02, 0x02, 0x44, 0x01, 0x00]);
  return Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    Buffer.from([...u16(screen.width), ...u16(screen.height), 0x00, 0x00, 0x00]),
    ...frames.map(block),
    Buffer.from([0x3b]),
  ]);
}

/** A 1×1 GIF whose one frame declares 60000×60000 (a frame decompression bomb). */
export function gifFrameBomb(): Buffer {
  return gifWithFrames({ width: 1, height: 1 }, [{ width: 60_000, height: 60_000 }]);
}

/** A 6000×6000 GIF of 300 frames of 6000×6000: each under the pixel cap, 10.8 billion together. */
export function gifAnimationBomb(): Buffer {
  const frame = { width: 6_000, height: 6_000 };
  return gifWithFrames(
    frame,
    Array.from({ length: 300 }, () => frame),
  );
}

/** A valid JPEG followed by an HTML payload and a final `FF D9` (ends like a JPEG, is a polyglot). */
export function jpegWithTrailingHtml(): Buffer {
  return Buffer.concat([jpegImage(), htmlDocument(), Buffer.from([0xff, 0xd9])]);
}
