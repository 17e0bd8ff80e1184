-- Wallets and traders (issue "Wallets and traders"): the `positions` read model — one row per
-- (token, trader) built from that trader's trades of the token in chain order by the average-cost
-- method (docs/api.md, "Positions") — and the indexes the wallet and trader routes read:
-- a wallet's positions, balances and trades (also the `trader=` filter of a token's trades: the
-- wallet's trades filtered by token — one index on `trades` instead of two, `trades` being the
-- largest table the indexer writes), a token's traders by each sort of
-- `GET /api/v1/tokens/{address}/traders`.
--
-- `tmi_position_fold` is the one place the average-cost rule is applied: an ordered aggregate over
-- a range's trade steps of one position, started from the stored (open_quantity, cost_basis,
-- realized_pnl) — the first three arguments, read on the first step only, NULL for a new position.
-- State: {open_quantity, cost_basis, realized_pnl}. Exact NUMERIC integer arithmetic; `div` truncates,
-- which is the floor for these non-negative operands.

-- Up Migration

CREATE TABLE "positions" (
    "token_address" TEXT NOT NULL,
    "trader" TEXT NOT NULL,
    "bought_tokens" NUMERIC(78,0) NOT NULL,
    "bought_reserve" NUMERIC(78,0) NOT NULL,
    "sold_tokens" NUMERIC(78,0) NOT NULL,
    "sold_reserve" NUMERIC(78,0) NOT NULL,
    "volume" NUMERIC(78,0) NOT NULL,
    "buy_count" INTEGER NOT NULL,
    "sell_count" INTEGER NOT NULL,
    "open_quantity" NUMERIC(78,0) NOT NULL,
    "cost_basis" NUMERIC(78,0) NOT NULL,
    "realized_pnl" NUMERIC(78,0) NOT NULL,
    "first_block_number" BIGINT NOT NULL,
    "first_transaction_hash" TEXT NOT NULL,
    "first_log_index" INTEGER NOT NULL,
    "first_timestamp" BIGINT NOT NULL,
    "last_block_number" BIGINT NOT NULL,
    "last_transaction_hash" TEXT NOT NULL,
    "last_log_index" INTEGER NOT NULL,
    "last_timestamp" BIGINT NOT NULL,

    CONSTRAINT "positions_pkey" PRIMARY KEY ("token_address", "trader")
);

CREATE INDEX "positions_trader_idx" ON "positions" ("trader", "token_address");
CREATE INDEX "positions_token_volume_idx" ON "positions" ("token_address", "volume" DESC, "trader");
CREATE INDEX "positions_token_realized_pnl_idx" ON "positions" ("token_address", "realized_pnl" DESC, "trader");
CREATE INDEX "positions_token_bought_idx" ON "positions" ("token_address", "bought_reserve" DESC, "trader");
CREATE INDEX "positions_token_sold_idx" ON "positions" ("token_address", "sold_reserve" DESC, "trader");

CREATE INDEX "token_balances_holder_idx" ON "token_balances" ("holder", "token_address");
CREATE INDEX "trades_trader_position_idx" ON "trades" ("trader", "block_number" DESC, "transaction_index" DESC, "log_index" DESC, "transaction_hash" DESC);

CREATE TRIGGER "positions_journal" AFTER INSERT OR UPDATE OR DELETE ON "positions" FOR EACH ROW
    WHEN (current_setting('tmi.journal_block', true) <> '') EXECUTE FUNCTION "tmi_journal_row"();

CREATE FUNCTION "tmi_position_step"(
    "state" NUMERIC[], "quantity0" NUMERIC, "cost0" NUMERIC, "realized0" NUMERIC,
    "is_buy" BOOLEAN, "tokens" NUMERIC, "reserve" NUMERIC
) RETURNS NUMERIC[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    q NUMERIC;
    c NUMERIC;
    r NUMERIC;
    s NUMERIC;
    x NUMERIC;
BEGIN
    IF "state" IS NULL THEN
        q := coalesce("quantity0", 0);
        c := coalesce("cost0", 0);
        r := coalesce("realized0", 0);
    ELSE
        q := "state"[1];
        c := "state"[2];
        r := "state"[3];
    END IF;
    IF "is_buy" THEN
        RETURN ARRAY[q + "tokens", c + "reserve", r];
    END IF;
    s := least("tokens", q);
    x := CASE WHEN q = 0 THEN 0 ELSE div(c * s, q) END;
    RETURN ARRAY[q - s, c - x, r + "reserve" - x];
END
$$;

CREATE AGGREGATE "tmi_position_fold"(NUMERIC, NUMERIC, NUMERIC, BOOLEAN, NUMERIC, NUMERIC) (
    SFUNC = "tmi_position_step",
    STYPE = NUMERIC[]
);

-- Down Migration

DROP AGGREGATE IF EXISTS "tmi_position_fold"(NUMERIC, NUMERIC, NUMERIC, BOOLEAN, NUMERIC, NUMERIC);
DROP FUNCTION IF EXISTS "tmi_position_step"(NUMERIC[], NUMERIC, NUMERIC, NUMERIC, BOOLEAN, NUMERIC, NUMERIC);
DROP INDEX IF EXISTS "trades_trader_position_idx";
DROP INDEX IF EXISTS "token_balances_holder_idx";
DROP TABLE IF EXISTS "positions";
