-- Who holds this token and can dump on me (issue 28; definitions in docs/api.md "Risk and
-- all-time high"): two read models kept by the indexer, journaled like every read model.
--
-- `token_cohorts`: one row per (token, wallet) that belongs to a cohort of the token — sniper
-- (first trade a buy within `launch block + 2`), launch-block buyer (that first buy in the launch
-- block itself), insider (received the token from the creator outside a trade; `received_tokens`
-- = Σ of what the creator sent it). The creator is never a member (its own tag comes from
-- `tokens.creator`).
--
-- `token_risk`: one row per token: the creator's figures, the dev buy, the cohort sums, the
-- concentration and the all-time high. Additive fields (`creator_transferred_out`, `dev_buy_*`,
-- `holders_balance`, `platform_balance`, `ath_*`) are folded from each range's deltas; the
-- others are recomputed by the indexer for the tokens a range touched, from `token_balances`,
-- `positions` and `token_cohorts` (bounded: the token's cohort members and its 50 largest
-- holders through `token_balances_rank_idx`).

-- Up Migration

CREATE TABLE "token_cohorts" (
    "token_address" TEXT NOT NULL,
    "wallet" TEXT NOT NULL,
    "sniper" BOOLEAN NOT NULL DEFAULT false,
    "launch_block_buyer" BOOLEAN NOT NULL DEFAULT false,
    "insider" BOOLEAN NOT NULL DEFAULT false,
    "received_tokens" NUMERIC(78,0) NOT NULL DEFAULT 0,

    CONSTRAINT "token_cohorts_pkey" PRIMARY KEY ("token_address", "wallet")
);

CREATE TABLE "token_risk" (
    "token_address" TEXT NOT NULL,
    "creator_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "creator_bought" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "creator_sold" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "creator_transferred_out" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "dev_buy_tokens" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "dev_buy_reserve" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "dev_buy_count" INTEGER NOT NULL DEFAULT 0,
    "dev_buy_closed" BOOLEAN NOT NULL DEFAULT false,
    "sniper_count" INTEGER NOT NULL DEFAULT 0,
    "sniper_holding_count" INTEGER NOT NULL DEFAULT 0,
    "sniper_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "sniper_bought" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "launch_buyer_count" INTEGER NOT NULL DEFAULT 0,
    "launch_buyer_holding_count" INTEGER NOT NULL DEFAULT 0,
    "launch_buyer_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "launch_buyer_bought" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "insider_count" INTEGER NOT NULL DEFAULT 0,
    "insider_holding_count" INTEGER NOT NULL DEFAULT 0,
    "insider_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "insider_received" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "top10_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "top11_30_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "top31_50_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "holders_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "platform_balance" NUMERIC(78,0) NOT NULL DEFAULT 0,
    "ath_price" NUMERIC(78,0),
    "ath_block_number" BIGINT,
    "ath_log_index" INTEGER,
    "ath_timestamp" BIGINT,

    CONSTRAINT "token_risk_pkey" PRIMARY KEY ("token_address")
);

CREATE TRIGGER "token_cohorts_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_cohorts" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();
CREATE TRIGGER "token_risk_journal" AFTER INSERT OR UPDATE OR DELETE ON "token_risk" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

-- Down Migration

DROP TABLE IF EXISTS "token_risk";
DROP TABLE IF EXISTS "token_cohorts";
