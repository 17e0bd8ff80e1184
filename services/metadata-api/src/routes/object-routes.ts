import { AppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import type { ObjectStorage } from "../storage/object-storage.js";
import { parseObjectKey } from "../storage/object-storage.js";

/** Cache policy of every stored object: content addressed, so immutable. */
export const OBJECT_CACHE_CONTROL = "public, max-age=31536000, immutable";

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/**
 * `GET /objects/*`: streams a stored object (never buffered whole) with its content type
 * (`.json` → `application/json`), `Cache-Control: public, max-age=31536000, immutable`, a strong
 * `ETag` (the SHA-256 of the key) and 304 on a matching `If-None-Match`. Only keys of
 * {@link parseObjectKey} exist, requested exactly (no trailing slash, no percent-escapes); anything
 * else, a missing object or unavailable storage → 404 `not_found`.
 */
export function registerObjectRoutes(app: HttpApp, storage: ObjectStorage): void {
  app.get("/objects/*", async (request, reply) => {
    const raw = (request.params as { "*": string })["*"];
    const parsed = parseObjectKey(raw);
    // Only the exact key: the router ignores a trailing slash (and decodes escapes) before the
    // wildcard, so the path as sent must be the key itself.
    const q = request.url.indexOf("?");
    const path = q === -1 ? request.url : request.url.slice(0, q);
    if (!parsed || path !== `/objects/${parsed.key}`) throw new AppError("not_found", "no such object");
    const etag = `"${parsed.sha256}"`;
    try {
      if (etagMatches(request.headers["if-none-match"], etag)) {
        const stat = await storage.stat(parsed.key);
        if (stat) {
          return reply.status(304).headers({ etag, "cache-control": OBJECT_CACHE_CONTROL }).send();
        }
        throw new AppError("not_found", "no such object");
      }
      const object = await storage.get(parsed.key);
      if (!object) throw new AppError("not_found", "no such object");
      reply.headers({
        "content-type": parsed.contentType,
        "cache-control": OBJECT_CACHE_CONTROL,
        etag,
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
      });
      if (object.size >= 0) reply.header("content-length", object.size);
      return reply.send(object.body);
    } catch (error) {
      if (error instanceof AppError) throw error;
      request.log.warn({ err: error, key: parsed.key }, "object storage unavailable");
      throw new AppError("not_found", "no such object", { cause: error });
    }
  });
}
