-- Who bound a draft's metadata to its token. An unsigned finalize binds with verified = false;
-- a finalize signed by the token's creator (EIP-191, see docs/api.md "Finalize signature") binds
-- with verified = true and signer = the creator's address (lowercase), and may replace an
-- unverified binding. Never edit this file once committed: add a new migration instead.

-- Up Migration

ALTER TABLE "metadata_drafts" ADD COLUMN "verified" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "metadata_drafts" ADD COLUMN "signer" TEXT;

-- Down Migration

ALTER TABLE "metadata_drafts" DROP COLUMN IF EXISTS "signer";
ALTER TABLE "metadata_drafts" DROP COLUMN IF EXISTS "verified";
