import { createHash, randomUUID } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { ImageInspector } from "./image-inspect.js";

/** An image streamed to a scratch file while being hashed and inspected. */
export interface SpooledImage {
  /** Scratch file path; remove it with {@link SpooledImage.discard}. */
  path: string;
  /** Bytes written (at most `maxBytes`). */
  size: number;
  /** Lowercase hex SHA-256 of the bytes written. */
  sha256: string;
  /** True when the source had more than `maxBytes` bytes (the rest was not kept). */
  tooLarge: boolean;
  inspector: ImageInspector;
  /** Up to 1 MiB from the start of the file (for dimension reads beyond the in-memory head). */
  readHead(): Promise<Buffer>;
  discard(): Promise<void>;
}

/**
 * Streams `source` into a new file under `spoolDir`, hashing (SHA-256) and inspecting it on the
 * way, with backpressure; never holds more than one chunk plus the inspector's small head in
 * memory. Stops writing past `maxBytes` and marks the result `tooLarge`; with
 * `stopWhenTooLarge` it also stops reading (fetches), otherwise it drains the source (uploads:
 * busboy has already truncated the part and must see it consumed).
 * @throws whatever the source or the file system throws (the scratch file is removed first).
 */
export async function spoolImage(
  source: AsyncIterable<Buffer | Uint8Array>,
  options: {
    spoolDir: string;
    maxBytes: number;
    maxPixels: number;
    stopWhenTooLarge?: boolean;
    truncated?: () => boolean;
  },
): Promise<SpooledImage> {
  await mkdir(options.spoolDir, { recursive: true });
  const path = join(options.spoolDir, `${randomUUID()}.part`);
  const out = createWriteStream(path, { flags: "wx" });
  const hash = createHash("sha256");
  const inspector = new ImageInspector(options.maxPixels);
  let size = 0;
  let tooLarge = false;
  const discard = () => rm(path, { force: true });
  try {
    for await (const raw of source) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      if (tooLarge) continue;
      if (size + chunk.length > options.maxBytes) {
        tooLarge = true;
        if (options.stopWhenTooLarge) break;
        continue;
      }
      size += chunk.length;
      hash.update(chunk);
      inspector.feed(chunk);
      if (!out.write(chunk)) await once(out, "drain");
    }
    if (options.truncated?.()) tooLarge = true;
    out.end();
    await once(out, "finish");
  } catch (error) {
    out.destroy();
    await discard();
    throw error;
  }
  return {
    path,
    size,
    sha256: hash.digest("hex"),
    tooLarge,
    inspector,
    async readHead() {
      const handle = await open(path, "r");
      try {
        const buffer = Buffer.alloc(Math.min(size, 1024 * 1024));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    discard,
  };
}
