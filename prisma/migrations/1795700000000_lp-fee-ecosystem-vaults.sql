-- The permanent LP fee vault forwards a token's community and trader-rewards shares of its LP
-- fees, token included, to the deployment's community vault and trader-rewards vault
-- (`CommunityLPFeesForwarded` / `TraderRewardsLPFeesForwarded`, naming the vault), which then hold
-- them: platform contracts of the token that are never holders, like its LP fee vault. Learned by
-- the indexer from the first forward of the token to each vault. Never edit this file once
-- committed: add a new migration instead.

-- Up Migration

ALTER TABLE "tokens" ADD COLUMN "community_vault_address" TEXT;
ALTER TABLE "tokens" ADD COLUMN "trader_rewards_vault_address" TEXT;

-- Down Migration

ALTER TABLE "tokens" DROP COLUMN IF EXISTS "trader_rewards_vault_address";
ALTER TABLE "tokens" DROP COLUMN IF EXISTS "community_vault_address";
