import { crc32 } from "node:zlib";
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";

/** The image types a draft accepts, by magic bytes (docs/api.md). */
export const IMAGE_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
} as const;
export type ImageMime = keyof typeof IMAGE_TYPES;
export type ImageExt = (typeof IMAGE_TYPES)[ImageMime];

/** Content type of a stored image by the extension of its key. */
export const MIME_BY_EXT: Record<ImageExt, ImageMime> = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
};

/** How many leading bytes are kept in memory for type and dimension sniffing. */
export const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 16;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What {@link ImageInspector.finish} found: an accepted image, or why it is refused. */
export type ImageVerdict =
  | { ok: true; mime: ImageMime; ext: ImageExt; width: number; height: number }
  | {
      ok: false;
      reason: string;
      /** `type`: not a PNG, JPEG, WebP or GIF; `invalid`: empty or broken; `dimensions`: too many pixels. */
      kind: "type" | "invalid" | "dimensions";
    };

/**
 * Driver shared by the streaming structural checks ({@link PngWalker}, {@link GifWalker}): the
 * file is a sequence of fixed-size records (read whole, handed to {@link onRecord}) and of spans
 * skipped without being kept ({@link skipThen}; {@link onSkipped} sees their bytes), ended by a
 * terminal record after which any byte is `trailingError`. Keeps a few bytes of state, never the image.
 */
abstract class StructureWalker<Phase extends string> {
  /** The first problem found (the walk stops there), or null. */
  error: string | null = null;
  private pending = Buffer.alloc(0);
  private skip = 0;
  private after: Phase;

  /**
   * @param phase the phase of the first record
   * @param trailingError the error of any byte after the terminal record
   * @param truncatedError the error of a file that ends before it
   */
  protected constructor(
    protected phase: Phase | "skip" | "done",
    private readonly trailingError: string,
    private readonly truncatedError: string,
  ) {
    this.after = phase as Phase;
  }

  /** Bytes of the record the walk expects next (in a record phase). */
  protected abstract recordSize(): number;

  /** Reads one whole record of {@link recordSize} bytes: sets the next phase or {@link error}. */
  protected abstract onRecord(bytes: Buffer): void;

  /** Sees the bytes of a skipped span as they pass (nothing by default). */
  protected onSkipped(_bytes: Buffer): void {}

  /** Skips `bytes` bytes (none: at once), then continues in phase `next`. */
  protected skipThen(bytes: number, next: Phase): void {
    if (bytes === 0) {
      this.phase = next;
      return;
    }
    this.skip = bytes;
    this.after = next;
    this.phase = "skip";
  }

  /** Feeds the next bytes of the file. */
  feed(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && this.error === null) {
      if (this.phase === "done") {
        this.error = this.trailingError;
        return;
      }
      if (this.phase === "skip") {
        const take = Math.min(this.skip, chunk.length - offset);
        this.onSkipped(chunk.subarray(offset, offset + take));
        this.skip -= take;
        offset += take;
        if (this.skip === 0) this.phase = this.after;
        continue;
      }
      const need = this.recordSize();
      const take = Math.min(need - this.pending.length, chunk.length - offset);
      const part = chunk.subarray(offset, offset + take);
      this.pending = this.pending.length === 0 ? Buffer.from(part) : Buffer.concat([this.pending, part]);
      offset += take;
      if (this.pending.length < need) continue;
      const bytes = this.pending;
      this.pending = Buffer.alloc(0);
      this.onRecord(bytes);
    }
  }

  /** Null when the file was complete and well-formed, else the problem. */
  finish(): string | null {
    if (this.error) return this.error;
    return this.phase === "done" ? null : this.truncatedError;
  }
}

/**
 * Streaming structural check of a PNG: signature, IHDR first, every chunk's length and CRC,
 * IEND last and nothing after it.
 * @dev Refuses PNG-headed polyglots: HTML or script after the signature breaks the chunk
 * structure, data appended after IEND is "trailing data".
 */
export class PngWalker extends StructureWalker<"signature" | "chunk-header" | "crc"> {
  private crc = 0;
  private type = "";
  private chunks = 0;

  constructor() {
    super("signature", "trailing data after IEND", "truncated PNG (no IEND)");
  }

  protected recordSize(): number {
    return this.phase === "crc" ? 4 : 8;
  }

  protected override onSkipped(bytes: Buffer): void {
    this.crc = crc32(bytes, this.crc);
  }

  protected onRecord(bytes: Buffer): void {
    if (this.phase === "signature") {
      if (!bytes.equals(PNG_SIGNATURE)) this.error = "bad PNG signature";
      this.phase = "chunk-header";
    } else if (this.phase === "chunk-header") {
      const length = bytes.readUInt32BE(0);
      this.type = bytes.subarray(4, 8).toString("latin1");
      if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(this.type)) this.error = "malformed PNG chunk";
      else if (this.chunks === 0 && (this.type !== "IHDR" || length !== 13))
        this.error = "PNG must start with IHDR";
      this.chunks += 1;
      this.crc = crc32(bytes.subarray(4, 8));
      this.skipThen(length, "crc");
    } else {
      if (bytes.readUInt32BE(0) !== this.crc >>> 0) this.error = `bad CRC in PNG chunk ${this.type}`;
      this.phase = this.type === "IEND" ? "done" : "chunk-header";
    }
  }
}

type GifPhase = "header" | "block" | "subblock-size" | "image-descriptor" | "lzw-min" | "extension-label";

/**
 * Streaming structural check of a GIF: header, logical screen descriptor and global colour
 * table, then extension and image blocks with their sub-blocks, the trailer (0x3B) last and
 * nothing after it. Refuses GIF/script polyglots whose bytes after the header are not GIF blocks.
 */
export class GifWalker extends StructureWalker<GifPhase> {
  constructor() {
    super("header", "trailing data after the GIF trailer", "truncated GIF (no trailer)");
  }

  protected recordSize(): number {
    // header (6) + logical screen descriptor (7); image descriptor (9); else one byte
    return this.phase === "header" ? 13 : this.phase === "image-descriptor" ? 9 : 1;
  }

  protected onRecord(bytes: Buffer): void {
    switch (this.phase) {
      case "header": {
        const magic = bytes.subarray(0, 6).toString("latin1");
        if (magic !== "GIF87a" && magic !== "GIF89a") {
          this.error = "bad GIF header";
          return;
        }
        const flags = bytes[10]!;
        this.skipThen(flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0, "block");
        break;
      }
      case "block": {
        const introducer = bytes[0]!;
        if (introducer === 0x3b) this.phase = "done";
        else if (introducer === 0x21) this.phase = "extension-label";
        else if (introducer === 0x2c) this.phase = "image-descriptor";
        else this.error = "unexpected byte between GIF blocks";
        break;
      }
      case "extension-label":
        this.phase = "subblock-size";
        break;
      case "image-descriptor": {
        const flags = bytes[8]!;
        this.skipThen(flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0, "lzw-min");
        break;
      }
      case "lzw-min":
        if (bytes[0]! < 2 || bytes[0]! > 11) this.error = "bad GIF LZW code size";
        this.phase = "subblock-size";
        break;
      case "subblock-size":
        if (bytes[0] === 0) this.phase = "block";
        else this.skipThen(bytes[0]!, "subblock-size");
        break;
    }
  }
}

/**
 * Inspects an image while it streams through (upload or fetched `image_url`): keeps the first
 * {@link HEAD_BYTES} and the last 16 bytes, walks PNG chunks, counts bytes. {@link finish}
 * decides the type from magic bytes with `file-type` (never from names or client content
 * types), reads dimensions with `image-size` and refuses structural oddities:
 * PNG chunk errors or data after IEND, JPEG not ending in EOI, GIF block structure errors or data
 * after its trailer,
 * WebP whose RIFF size disagrees with the file size, and images above `maxPixels` (decompression bombs).
 */
export class ImageInspector {
  private head: Buffer[] = [];
  private headLength = 0;
  private tail = Buffer.alloc(0);
  private png = new PngWalker();
  private pngPossible = true;
  private gif = new GifWalker();
  private gifPossible = true;
  size = 0;

  constructor(private readonly maxPixels: number) {}

  /** Feeds the next bytes of the file. */
  feed(chunk: Buffer): void {
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      this.head.push(Buffer.from(part)); // copy: the source chunk may be a view into a larger buffer
      this.headLength += part.length;
    }
    this.size += chunk.length;
    this.tail =
      chunk.length >= TAIL_BYTES
        ? Buffer.from(chunk.subarray(chunk.length - TAIL_BYTES))
        : Buffer.concat([this.tail, chunk]).subarray(-TAIL_BYTES);
    if (this.pngPossible) {
      this.png.feed(chunk);
      if (this.size >= 8 && this.png.error === "bad PNG signature") this.pngPossible = false;
    }
    if (this.gifPossible) {
      this.gif.feed(chunk);
      if (this.gif.error === "bad GIF header") this.gifPossible = false;
    }
  }

  /**
   * Decides on the image. `readMore` returns up to 1 MiB from the file start, used when the
   * dimensions lie beyond the head (large JPEG metadata segments).
   */
  async finish(readMore?: () => Promise<Buffer>): Promise<ImageVerdict> {
    const head = Buffer.concat(this.head);
    if (this.size === 0) return { ok: false, kind: "invalid", reason: "empty file" };
    const detected = await fileTypeFromBuffer(head);
    // An animated PNG is a PNG.
    const mime = detected?.mime === "image/apng" ? "image/png" : (detected?.mime as string | undefined);
    if (!mime || !(mime in IMAGE_TYPES)) {
      return { ok: false, kind: "type", reason: "not a PNG, JPEG, WebP or GIF image" };
    }
    const imageMime = mime as ImageMime;
    const structure = this.structureProblem(imageMime, head);
    if (structure) return { ok: false, kind: "invalid", reason: structure };

    let dims: { width?: number; height?: number; type?: string } | null = tryImageSize(head);
    if (!dims && readMore && this.size > head.length) dims = tryImageSize(await readMore());
    if (!dims?.width || !dims.height) {
      return { ok: false, kind: "invalid", reason: "image dimensions cannot be read" };
    }
    const sizeType = dims.type === "jpeg" ? "jpg" : dims.type;
    if (sizeType !== IMAGE_TYPES[imageMime])
      return { ok: false, kind: "invalid", reason: "inconsistent image header" };
    if (dims.width * dims.height > this.maxPixels) {
      return {
        ok: false,
        kind: "dimensions",
        reason: `image is ${dims.width}x${dims.height}; at most ${this.maxPixels} pixels are accepted`,
      };
    }
    return { ok: true, mime: imageMime, ext: IMAGE_TYPES[imageMime], width: dims.width, height: dims.height };
  }

  private structureProblem(mime: ImageMime, head: Buffer): string | null {
    const tail = this.tail;
    switch (mime) {
      case "image/png":
        return this.png.finish();
      case "image/jpeg":
        return tail.length >= 2 && tail[tail.length - 2] === 0xff && tail[tail.length - 1] === 0xd9
          ? null
          : "JPEG does not end with EOI (trailing data)";
      case "image/gif":
        return this.gif.finish();
      case "image/webp": {
        if (head.length < 12) return "truncated WebP";
        const riffSize = head.readUInt32LE(4);
        return riffSize + 8 + (riffSize % 2) === this.size || riffSize + 8 === this.size
          ? null
          : "WebP RIFF size does not match the file (trailing data)";
      }
    }
  }
}

function tryImageSize(buffer: Buffer): { width?: number; height?: number; type?: string } | null {
  try {
    return imageSize(buffer);
  } catch {
    return null;
  }
}
