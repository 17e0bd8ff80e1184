-- The platform's permanent LP fee vault collects a graduated token's LP fees, token included
-- (`PermanentLPFeesAccrued`), so it is one of the token's platform contracts that are never
-- holders, like its residual escrow. Learned by the indexer from the vault's first
-- `PermanentLPFeesAccrued` for the token (emitted in a fee collection of the token's LP
-- custodian). Never edit this file once committed: add a new migration instead.

-- Up Migration

ALTER TABLE "tokens" ADD COLUMN "lp_fee_vault_address" TEXT;

-- Down Migration

ALTER TABLE "tokens" DROP COLUMN IF EXISTS "lp_fee_vault_address";
