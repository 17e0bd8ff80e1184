import { randomBytes } from "node:crypto";
import { apiKeyOf, hashApiKey } from "@tmi/shared/http";
import { LRUCache } from "lru-cache";
import type pg from "pg";

/** Where a request's key is read and how it is hashed: shared with metadata-api (webhooks). */
export { apiKeyOf, hashApiKey };

/** Rate-limit tiers of API keys (docs/api.md "API keys"). */
export const API_KEY_TIERS = ["free", "pro"] as const;

/** A tier: which per-minute limit the gateway applies (`GATEWAY_RATE_LIMIT_<TIER>_PER_MIN`). */
export type ApiKeyTier = (typeof API_KEY_TIERS)[number];

/** Prefix of every key (recognizable in logs and by secret scanners). */
export const API_KEY_PREFIX = "tmi_";

/** What a valid key resolves to: its id, name and tier (never the key or its hash). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  tier: ApiKeyTier;
}

/** A key as `list` shows it: the info plus `key_start` (first characters), creation and revocation times. */
export interface ApiKeyRow extends ApiKeyInfo {
  keyStart: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Database access the key functions need (a `pg.Pool` or client). */
export type Queryable = Pick<pg.Pool, "query">;

/** A new key: {@link API_KEY_PREFIX} + 32 random bytes in base64url (256 bits of entropy). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString("base64url");
}

/** Shape of a key as sent: the prefix then 43 base64url characters. */
const KEY_SHAPE = /^tmi_[A-Za-z0-9_-]{43}$/;

/**
 * Creates a key named `name` with `tier`: stores its SHA-256 and first 8 characters in `api_keys`
 * and returns the key (shown once: it cannot be read back) and its id (`key_` + 16 hex).
 */
export async function createApiKey(
  db: Queryable,
  options: { name: string; tier: ApiKeyTier },
): Promise<{ id: string; key: string }> {
  const key = generateApiKey();
  const id = `key_${randomBytes(8).toString("hex")}`;
  await db.query("INSERT INTO api_keys (id, name, tier, key_hash, key_start) VALUES ($1, $2, $3, $4, $5)", [
    id,
    options.name,
    options.tier,
    hashApiKey(key),
    key.slice(0, API_KEY_PREFIX.length + 4),
  ]);
  return { id, key };
}

/** Every key, oldest first (revoked ones included, with their `revokedAt`). */
export async function listApiKeys(db: Queryable): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<{
    id: string;
    name: string;
    tier: ApiKeyTier;
    key_start: string;
    created_at: Date;
    revoked_at: Date | null;
  }>("SELECT id, name, tier, key_start, created_at, revoked_at FROM api_keys ORDER BY created_at, id");
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    tier: r.tier,
    keyStart: r.key_start,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}

/**
 * Revokes key `id` (sets `revoked_at` once). Returns `"revoked"`, `"already_revoked"` or
 * `"not_found"`. Every gateway replica answers the key with 401 within its cache time
 * (`API_KEY_CACHE_MS`, ≤ 1 s).
 */
export async function revokeApiKey(
  db: Queryable,
  id: string,
): Promise<"revoked" | "already_revoked" | "not_found"> {
  const { rows } = await db.query<{ was_revoked: boolean }>(
    `UPDATE api_keys k SET revoked_at = coalesce(k.revoked_at, now())
       FROM (SELECT revoked_at IS NOT NULL AS was_revoked FROM api_keys WHERE id = $1 FOR UPDATE) o
      WHERE k.id = $1 RETURNING o.was_revoked`,
    [id],
  );
  const row = rows[0];
  if (!row) return "not_found";
  return row.was_revoked ? "already_revoked" : "revoked";
}

/** Resolves a key as sent to its {@link ApiKeyInfo}, or null when it is unknown or revoked. */
export type ApiKeyResolver = (key: string) => Promise<ApiKeyInfo | null>;

/** Options of {@link createApiKeyResolver}. */
export interface ApiKeyResolverOptions {
  db: Queryable;
  /**
   * How long an answer (found or not) is reused (ms, ≤ 1,000): the bound on how long a revoked
   * key still works on a replica. 0: a database lookup per request.
   */
  cacheMs: number;
  /** Most keys held (default 10,000). */
  maxEntries?: number;
}

/**
 * A {@link ApiKeyResolver} over `api_keys` (one indexed lookup by `key_hash`, revoked keys
 * excluded), with a bounded cache of answers kept `cacheMs`: a revocation takes effect on every
 * process within `cacheMs` with no message between them. Concurrent lookups of one key share one
 * query. Database errors reject (the caller answers 503). Reusable by any service that accepts keys.
 */
export function createApiKeyResolver(options: ApiKeyResolverOptions): ApiKeyResolver {
  const { db, cacheMs } = options;
  if (cacheMs > 1000) throw new Error("API key cache time must be at most 1,000 ms");
  const lookup = async (key: string): Promise<ApiKeyInfo | null> => {
    if (!KEY_SHAPE.test(key)) return null;
    const { rows } = await db.query<ApiKeyInfo>(
      "SELECT id, name, tier FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
      [hashApiKey(key)],
    );
    const row = rows[0];
    return row ? { id: row.id, name: row.name, tier: row.tier } : null;
  };
  if (cacheMs === 0) return lookup;
  // Values are promises: concurrent requests with one key share a lookup; a failed one is dropped.
  const cache = new LRUCache<string, Promise<ApiKeyInfo | null>>({
    max: options.maxEntries ?? 10_000,
    ttl: cacheMs,
  });
  return (key) => {
    const cached = cache.get(key);
    if (cached) return cached;
    const pending = lookup(key);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
    return pending;
  };
}
