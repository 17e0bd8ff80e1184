-- Integrators' API keys (docs/api.md "API keys"): the gateway resolves `Authorization: Bearer
-- <key>` / `X-API-Key` to a key id, name and tier (its rate limit) by the SHA-256 of the key; the
-- key itself is never stored. Written by `pnpm api-keys`. Never edit this file once committed:
-- add a new migration instead.

-- Up Migration

CREATE TABLE "api_keys" (
  "id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "tier" TEXT NOT NULL,
  "key_hash" TEXT NOT NULL,
  "key_start" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "revoked_at" TIMESTAMPTZ(3),
  CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "api_keys_tier_check" CHECK ("tier" IN ('free', 'pro'))
);
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" ("key_hash");

-- Down Migration

DROP TABLE IF EXISTS "api_keys";
