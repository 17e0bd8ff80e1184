import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import { GifWalker, JpegWalker, PngWalker } from "./image-structure.js";

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

/**
 * The pixels of all the frames of an animated GIF together are at most this many times the
 * per-image limit (`IMAGE_MAX_PIXELS`): 400,000,000 with the default (docs/api.md).
 */
export const ANIMATION_PIXELS_FACTOR = 10;

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
 * Inspects an image while it streams through (upload or fetched `image_url`): keeps the first
 * {@link HEAD_BYTES}, walks the PNG, GIF and JPEG structures (`image-structure.ts`), counts bytes.
 * {@link finish} decides the type from magic bytes with `file-type` (never from names or client
 * content types), reads dimensions with `image-size` and refuses structural oddities:
 * PNG chunk errors or data after IEND, JPEG segment or scan errors or data after the EOI that ends
 * its image, GIF block structure errors or data after its trailer, WebP whose RIFF size disagrees
 * with the file size; and images above `maxPixels` (decompression bombs): the header's size, each
 * GIF frame's, and all GIF frames together above {@link ANIMATION_PIXELS_FACTOR} × `maxPixels`.
 */
export class ImageInspector {
  private head: Buffer[] = [];
  private headLength = 0;
  private png = new PngWalker();
  private pngPossible = true;
  private gif = new GifWalker();
  private gifPossible = true;
  private jpeg = new JpegWalker();
  private jpegPossible = true;
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
    if (this.pngPossible) {
      this.png.feed(chunk);
      if (this.size >= 8 && this.png.error === "bad PNG signature") this.pngPossible = false;
    }
    if (this.gifPossible) {
      this.gif.feed(chunk);
      if (this.gif.error === "bad GIF header") this.gifPossible = false;
    }
    if (this.jpegPossible) {
      this.jpeg.feed(chunk);
      if (this.jpeg.error === "bad JPEG SOI") this.jpegPossible = false;
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
    const tooLarge = this.pixelProblem(imageMime, dims.width, dims.height);
    if (tooLarge) return { ok: false, kind: "dimensions", reason: tooLarge };
    return { ok: true, mime: imageMime, ext: IMAGE_TYPES[imageMime], width: dims.width, height: dims.height };
  }

  /** Why an image of this size (and, for a GIF, of these frames) is refused, or null. */
  private pixelProblem(mime: ImageMime, width: number, height: number): string | null {
    const max = this.maxPixels;
    if (width * height > max) return `image is ${width}x${height}; at most ${max} pixels are accepted`;
    if (mime !== "image/gif") return null;
    const frame = this.gif.largestFrame;
    if (frame.width * frame.height > max) {
      return `a GIF frame is ${frame.width}x${frame.height}; at most ${max} pixels are accepted`;
    }
    const total = this.gif.totalPixels;
    if (total > ANIMATION_PIXELS_FACTOR * max) {
      return `the GIF's ${this.gif.frames} frames have ${total} pixels; at most ${ANIMATION_PIXELS_FACTOR * max} are accepted`;
    }
    return null;
  }

  private structureProblem(mime: ImageMime, head: Buffer): string | null {
    switch (mime) {
      case "image/png":
        return this.png.finish();
      case "image/jpeg":
        return this.jpeg.finish();
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
