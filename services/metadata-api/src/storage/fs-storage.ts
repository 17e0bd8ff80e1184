import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { access, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  etagOf,
  type ObjectStat,
  type ObjectStorage,
  parseObjectKey,
  type StoredObject,
} from "./object-storage.js";

/**
 * The `fs` driver: objects are files under `root` (`<root>/images/<sha>.<ext>`), written to a
 * temporary file and renamed into place, so readers never see a partial object.
 */
export function createFsStorage(root: string, options: { readHighWaterMark?: number } = {}): ObjectStorage {
  const pathOf = (key: string) => {
    if (!parseObjectKey(key)) throw new Error(`refused object key: ${key}`);
    return join(root, key);
  };
  const highWaterMark = options.readHighWaterMark ?? 256 * 1024;

  return {
    async put(key, body, size, _contentType) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      await mkdir(join(root, ".tmp"), { recursive: true });
      const temp = join(root, ".tmp", `${randomUUID()}.part`);
      try {
        const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
        await pipeline(source, createWriteStream(temp, { flags: "wx" }));
        const written = (await stat(temp)).size;
        if (written !== size) throw new Error(`object ${key}: wrote ${written} bytes, expected ${size}`);
        await rename(temp, target);
      } finally {
        await rm(temp, { force: true });
      }
    },
    async get(key) {
      const path = pathOf(key);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, "r");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
      try {
        const info = await handle.stat();
        const object: StoredObject = {
          size: info.size,
          contentType: parseObjectKey(key)!.contentType,
          etag: etagOf(key),
          body: createReadStream(path, { fd: handle, highWaterMark, autoClose: true }),
        };
        return object;
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async stat(key): Promise<ObjectStat | null> {
      try {
        const info = await stat(pathOf(key));
        return { size: info.size, contentType: parseObjectKey(key)!.contentType, etag: etagOf(key) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    async ping() {
      await mkdir(root, { recursive: true });
      await access(root);
    },
    async close() {},
  };
}
