-- The platform's fee economy, read side (issue 29 items 2-4): per token the curve fees by part
-- (Σ `FeesDeposited`), the creator's claims (Σ `CreatorFeesClaimed`) and payout address
-- (`TokenRegistered`, `CreatorPayoutProposed/Accepted/Cancelled`); per (token, asset) the
-- permanent LP fee vault's accruals by share (`PermanentLPFeesAccrued`) and the community and
-- trader-rewards vaults' pots (`CommunityFunded` − `CommunityFundsForwarded`, `TraderRewardsFunded`
-- − `TraderRewardPaid`); per (recipient, asset) the LP creator share accrued and claimed
-- (`CreatorLPFeesClaimed`: the LP fee vault keys creator claims by recipient, not token). Amounts
-- in wei / base units. `pending_payout_address` '' means "not known yet" (read as none).
-- Journaled like every read model (reorgs). Rows are written by the indexer from the contracts'
-- events only: a database indexed before this migration fills them on a reindex.
-- Never edit this file once committed: add a new migration instead.

-- Up Migration

CREATE TABLE "token_fees" (
    "token_address" TEXT NOT NULL,
    "curve_total" NUMERIC(78,0) NOT NULL,
    "curve_protocol" NUMERIC(78,0) NOT NULL,
    "curve_creator" NUMERIC(78,0) NOT NULL,
    "curve_community" NUMERIC(78,0) NOT NULL,
    "curve_trader_rewards" NUMERIC(78,0) NOT NULL,
    "creator_claimed" NUMERIC(78,0) NOT NULL,
    "payout_address" TEXT,
    "pending_payout_address" TEXT,
    "updated_block_number" BIGINT NOT NULL,

    CONSTRAINT "token_fees_pkey" PRIMARY KEY ("token_address")
);

CREATE TABLE "token_asset_fees" (
    "token_address" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "lp_creator" NUMERIC(78,0) NOT NULL,
    "lp_protocol" NUMERIC(78,0) NOT NULL,
    "lp_community" NUMERIC(78,0) NOT NULL,
    "lp_trader_rewards" NUMERIC(78,0) NOT NULL,
    "community_funded" NUMERIC(78,0) NOT NULL,
    "community_forwarded" NUMERIC(78,0) NOT NULL,
    "trader_rewards_funded" NUMERIC(78,0) NOT NULL,
    "trader_rewards_paid" NUMERIC(78,0) NOT NULL,
    "updated_block_number" BIGINT NOT NULL,

    CONSTRAINT "token_asset_fees_pkey" PRIMARY KEY ("token_address", "asset")
);

CREATE TABLE "creator_lp_fees" (
    "recipient" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "earned" NUMERIC(78,0) NOT NULL,
    "claimed" NUMERIC(78,0) NOT NULL,
    "updated_block_number" BIGINT NOT NULL,

    CONSTRAINT "creator_lp_fees_pkey" PRIMARY KEY ("recipient", "asset")
);

-- Per creator (the launch's creator), Σ over their tokens of the curve creator fee and its claims
-- (the totals of `GET /api/v1/creators/{address}/earnings` in one row).
ALTER TABLE "creators" ADD COLUMN "fees_earned" NUMERIC(78,0) NOT NULL DEFAULT 0;
ALTER TABLE "creators" ADD COLUMN "fees_claimed" NUMERIC(78,0) NOT NULL DEFAULT 0;

-- The indexer loads a token by its LP fee vault (a claim of the vault names no token).
CREATE INDEX "tokens_lp_fee_vault_idx" ON "tokens" ("lp_fee_vault_address");

CREATE TRIGGER "token_fees_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_fees" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "token_asset_fees_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_asset_fees" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "creator_lp_fees_journal" AFTER INSERT OR UPDATE OR DELETE ON "creator_lp_fees" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- Down Migration

DROP INDEX IF EXISTS "tokens_lp_fee_vault_idx";
ALTER TABLE "creators" DROP COLUMN IF EXISTS "fees_claimed";
ALTER TABLE "creators" DROP COLUMN IF EXISTS "fees_earned";
DROP TABLE IF EXISTS "creator_lp_fees";
DROP TABLE IF EXISTS "token_asset_fees";
DROP TABLE IF EXISTS "token_fees";
