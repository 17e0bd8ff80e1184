import type { Readable } from "node:stream";
import { type ImageExt, MIME_BY_EXT } from "../images/image-inspect.js";

/** Metadata of a stored object. `etag` is a quoted strong ETag. */
export interface ObjectStat {
  size: number;
  contentType: string;
  etag: string;
}

/** A stored object opened for reading: stream it, never buffer it whole. */
export interface StoredObject extends ObjectStat {
  body: Readable;
}

/**
 * Object storage behind one interface (docs/api.md), drivers `fs` and `s3`. Keys are
 * validated by {@link parseObjectKey} before they reach a driver.
 */
export interface ObjectStorage {
  /** Stores `body` (exactly `size` bytes) under `key`. Content-addressed keys make repeats harmless. */
  put(key: string, body: Readable | Buffer, size: number, contentType: string): Promise<void>;
  /** Opens `key`; null when it does not exist. @throws when storage is unavailable. */
  get(key: string): Promise<StoredObject | null>;
  /** Stat of `key`; null when it does not exist. @throws when storage is unavailable. */
  stat(key: string): Promise<ObjectStat | null>;
  /** Readiness probe. @throws when storage is unavailable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const KEY = /^(images\/([0-9a-f]{64})\.(png|jpg|webp|gif)|metadata\/([0-9a-f]{64})\.json)$/;

/**
 * Parses an object key from a request path: only `images/<64 hex>.<png|jpg|webp|gif>` and
 * `metadata/<64 hex>.json` exist (lowercase), so traversal (`..`, `%2e`, backslashes,
 * absolute paths) and odd keys are refused. Returns the key, its content type and its SHA-256, or null.
 */
export function parseObjectKey(key: string): { key: string; contentType: string; sha256: string } | null {
  const match = KEY.exec(key);
  if (!match) return null;
  if (match[2]) {
    return { key, contentType: MIME_BY_EXT[match[3] as ImageExt], sha256: match[2] };
  }
  return { key, contentType: "application/json", sha256: match[4]! };
}

/** Key of an image object: `images/<sha256>.<ext>`. */
export function imageKey(sha256: string, ext: ImageExt): string {
  return `images/${sha256}.${ext}`;
}

/** Key of a metadata document: `metadata/<sha256>.json`. */
export function metadataKey(sha256: string): string {
  return `metadata/${sha256}.json`;
}

/** The strong ETag of a content-addressed object: its SHA-256, quoted. */
export function etagOf(key: string): string {
  const parsed = parseObjectKey(key);
  if (!parsed) throw new Error(`not an object key: ${key}`);
  return `"${parsed.sha256}"`;
}
