import { crc32 } from "node:zlib";

// Streaming structural checks of the accepted image types (PNG, GIF, JPEG): each walks the file's
// records as the bytes pass, keeps a few bytes of state (never the image) and finds where the image
// truly ends, so that data after it (a polyglot's payload) is refused.

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

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
 * Records every frame's size from its image descriptor ({@link largestFrame}, {@link totalPixels}):
 * a decoder allocates each frame as declared there, whatever the logical screen says.
 */
export class GifWalker extends StructureWalker<GifPhase> {
  /** Frames (image descriptors) seen. */
  frames = 0;
  /** Sum of width × height over the frames seen. */
  totalPixels = 0;
  /** The frame of the largest area seen (0×0 before any). */
  largestFrame = { width: 0, height: 0 };

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
        // left, top, width, height (16-bit little-endian), flags
        const width = bytes.readUInt16LE(4);
        const height = bytes.readUInt16LE(6);
        this.frames += 1;
        this.totalPixels += width * height;
        if (width * height > this.largestFrame.width * this.largestFrame.height) {
          this.largestFrame = { width, height };
        }
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

/** SOFn markers (frame headers): C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
function isFrameMarker(code: number): boolean {
  return code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc;
}

type JpegState =
  | "soi"
  | "soi-d8"
  | "marker"
  | "code"
  | "length"
  | "length-low"
  | "segment"
  | "entropy"
  | "entropy-ff";

/**
 * Streaming structural check of a JPEG (ITU T.81 syntax): SOI, then marker segments walked by
 * their lengths, the entropy-coded data after each SOS scanned for its end (`FF 00` stuffing and
 * `RSTn` stay inside it; any other marker ends it), a frame header (SOFn) before the first scan,
 * and EOI after a scan as the end of the image. Only a further complete JPEG may follow its EOI
 * (the secondary images of a Multi-Picture file, an Ultra HDR gain map), walked the same way;
 * any other byte after it — the HTML of a polyglot even when it ends with `FF D9` — is trailing
 * data. Keeps a few bytes of state.
 */
export class JpegWalker {
  /** The first problem found (the walk stops there), or null. */
  error: string | null = null;
  /** Complete images (SOI … EOI) walked. */
  images = 0;
  private state: JpegState | "done" = "soi";
  private marker = 0;
  private remaining = 0;
  private frameSeen = false;
  private scanSeen = false;

  /** Feeds the next bytes of the file. */
  feed(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length && this.error === null) {
      if (this.state === "segment") {
        const take = Math.min(this.remaining, chunk.length - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = this.marker === 0xda ? "entropy" : "marker";
      } else if (this.state === "entropy") {
        const ff = chunk.indexOf(0xff, i);
        i = ff < 0 ? chunk.length : ff + 1;
        if (ff >= 0) this.state = "entropy-ff";
      } else {
        this.onByte(chunk[i++]!);
      }
    }
  }

  private onByte(byte: number): void {
    switch (this.state) {
      case "done": // after EOI: another image (SOI) or nothing
      case "soi":
        if (byte === 0xff) this.state = "soi-d8";
        else this.error = this.notAnImage();
        break;
      case "soi-d8":
        if (byte !== 0xd8) {
          this.error = this.notAnImage();
          return;
        }
        this.frameSeen = false;
        this.scanSeen = false;
        this.state = "marker";
        break;
      case "marker":
        if (byte === 0xff) this.state = "code";
        else this.error = "unexpected byte between JPEG segments";
        break;
      case "code":
      case "entropy-ff":
        this.onMarker(byte);
        break;
      case "length":
        this.remaining = byte << 8;
        this.state = "length-low";
        break;
      case "length-low":
        this.onLength(this.remaining | byte);
        break;
    }
  }

  /** The error of bytes where an image (SOI) must start. */
  private notAnImage(): string {
    return this.images > 0 ? "trailing data after the JPEG EOI" : "bad JPEG SOI";
  }

  /** The byte after an `FF` between segments (`code`) or in entropy-coded data (`entropy-ff`). */
  private onMarker(code: number): void {
    const inScan = this.state === "entropy-ff";
    if (code === 0xff) return; // fill byte
    if (inScan && (code === 0x00 || (code >= 0xd0 && code <= 0xd7))) {
      this.state = "entropy"; // stuffed 0xFF, or a restart marker inside the scan
      return;
    }
    if (code === 0x00 || code === 0xd8) this.error = "malformed JPEG marker";
    else if (code === 0xd9) {
      if (!this.scanSeen) this.error = "JPEG has no image data before EOI";
      this.images += 1;
      this.state = "done";
    } else if (code === 0x01 || (code >= 0xd0 && code <= 0xd7)) this.state = "marker";
    else {
      this.marker = code;
      this.state = "length";
    }
  }

  private onLength(length: number): void {
    if (length < 2) {
      this.error = "malformed JPEG segment length";
      return;
    }
    if (isFrameMarker(this.marker)) this.frameSeen = true;
    if (this.marker === 0xda) {
      if (!this.frameSeen) {
        this.error = "JPEG scan before its frame header";
        return;
      }
      this.scanSeen = true;
    }
    this.remaining = length - 2;
    this.state = this.remaining > 0 ? "segment" : this.marker === 0xda ? "entropy" : "marker";
  }

  /** Null when the file held complete images and nothing else, else the problem. */
  finish(): string | null {
    if (this.error) return this.error;
    if (this.state === "soi-d8" && this.images > 0) return "trailing data after the JPEG EOI";
    return this.state === "done" ? null : "truncated JPEG (no EOI)";
  }
}
