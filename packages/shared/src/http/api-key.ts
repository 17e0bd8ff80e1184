// API keys as requests carry them (docs/api.md "API keys"): read by the gateway (rate limits)
// and by metadata-api (the webhooks a key owns). Keys are created and stored by the gateway's
// `pnpm api-keys` (table `api_keys`).
import { createHash } from "node:crypto";

/** SHA-256 of `key`, hex: what `api_keys.key_hash` stores. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * The API key a request carries: `Authorization: Bearer <key>`, else `X-API-Key: <key>`;
 * undefined when it sends neither (an anonymous request). A value that is present but not shaped
 * like a key is returned as is (it resolves to no key: 401 `invalid_api_key`).
 */
export function apiKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === "string") {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const header = headers["x-api-key"];
  if (typeof header === "string" && header.trim() !== "") return header.trim();
  return undefined;
}
