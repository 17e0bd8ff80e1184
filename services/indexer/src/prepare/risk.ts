// The SQL text of read models `token_risk` and `token_cohorts` (their rows and deltas:
// model/risk.ts): the parts of the range's read-model statement, and the refresh statement sent
// after it (prepare-write.ts composes both).
import type { RiskChanges } from "../model/risk.js";
import { type SqlParams, sqlParams, unnestRows } from "../sql/sql-text.js";

/** How many of a token's largest holders the concentration reads (`token_balances_rank_idx`). */
export const CONCENTRATION_HOLDERS = 50;

/**
 * CTEs of the range's read-model statement: cohort members (snipers whose candidate buy is their
 * first trade of the token — no stored position before this statement, whose snapshot the CTEs
 * read — and insiders with what the creator sent them) and the additive risk figures (creator's
 * transfers out, dev buy while no other address has traded, holders' and platform contracts'
 * sums, all-time high: a strictly higher price wins, so the first trade reaching it stays).
 */
export function riskCtes(changes: RiskChanges, q: SqlParams): string[] {
  if (changes.size === 0) return [];
  const deltas = [...changes.values()];
  const snipers = deltas.flatMap((d) =>
    d.snipers.map((s) => ({ token: d.tokenAddress, wallet: s.wallet, launch: s.launchBlock })),
  );
  const insiders = deltas.flatMap((d) =>
    [...d.insiders].map(([wallet, received]) => ({ token: d.tokenAddress, wallet, received })),
  );
  const ctes: string[] = [];
  if (snipers.length + insiders.length > 0)
    ctes.push(`risk_cohorts AS (
    INSERT INTO token_cohorts (token_address, wallet, sniper, launch_block_buyer, insider, received_tokens)
    SELECT token, wallet, bool_or(sniper), bool_or(launch), bool_or(insider), sum(received) FROM (
      SELECT s.token, s.wallet, true AS sniper, s.launch, false AS insider, 0::numeric AS received
      FROM ${unnestRows(q, snipers, "s", {
        token: ["text", (r) => r.token],
        wallet: ["text", (r) => r.wallet],
        launch: ["boolean", (r) => r.launch],
      })}
      WHERE NOT EXISTS (SELECT 1 FROM positions p WHERE p.token_address = s.token AND p.trader = s.wallet)
      UNION ALL
      SELECT i.token, i.wallet, false, false, true, i.received
      FROM ${unnestRows(q, insiders, "i", {
        token: ["text", (r) => r.token],
        wallet: ["text", (r) => r.wallet],
        received: ["numeric", (r) => r.received.toString()],
      })}) c
    GROUP BY token, wallet
    ON CONFLICT (token_address, wallet) DO UPDATE SET
      sniper = token_cohorts.sniper OR excluded.sniper,
      launch_block_buyer = token_cohorts.launch_block_buyer OR excluded.launch_block_buyer,
      insider = token_cohorts.insider OR excluded.insider,
      received_tokens = token_cohorts.received_tokens + excluded.received_tokens)`);
  ctes.push(`risk_up AS (
    INSERT INTO token_risk (token_address, creator_transferred_out, dev_buy_tokens, dev_buy_reserve, dev_buy_count,
      dev_buy_closed, holders_balance, platform_balance, ath_price, ath_block_number, ath_log_index, ath_timestamp)
    SELECT * FROM ${unnestRows(q, deltas, "r", {
      token: ["text", (d) => d.tokenAddress],
      out: ["numeric", (d) => d.creatorTransferredOut.toString()],
      dt: ["numeric", (d) => d.devBuyTokens.toString()],
      dr: ["numeric", (d) => d.devBuyReserve.toString()],
      dc: ["int", (d) => d.devBuyCount],
      closed: ["boolean", (d) => d.otherTraded],
      hb: ["numeric", (d) => d.holdersDelta.toString()],
      pb: ["numeric", (d) => d.platformDelta.toString()],
      ap: ["numeric", (d) => d.ath?.price.toString() ?? null],
      ab: ["bigint", (d) => d.ath?.blockNumber ?? null],
      al: ["int", (d) => d.ath?.logIndex ?? null],
      at: ["bigint", (d) => d.ath?.timestamp ?? null],
    })}
    ON CONFLICT (token_address) DO UPDATE SET
      creator_transferred_out = token_risk.creator_transferred_out + excluded.creator_transferred_out,
      dev_buy_tokens = token_risk.dev_buy_tokens + CASE WHEN token_risk.dev_buy_closed THEN 0 ELSE excluded.dev_buy_tokens END,
      dev_buy_reserve = token_risk.dev_buy_reserve + CASE WHEN token_risk.dev_buy_closed THEN 0 ELSE excluded.dev_buy_reserve END,
      dev_buy_count = token_risk.dev_buy_count + CASE WHEN token_risk.dev_buy_closed THEN 0 ELSE excluded.dev_buy_count END,
      dev_buy_closed = token_risk.dev_buy_closed OR excluded.dev_buy_closed,
      holders_balance = token_risk.holders_balance + excluded.holders_balance,
      platform_balance = token_risk.platform_balance + excluded.platform_balance,
      ath_price = CASE WHEN excluded.ath_price > coalesce(token_risk.ath_price, -1) THEN excluded.ath_price ELSE token_risk.ath_price END,
      ath_block_number = CASE WHEN excluded.ath_price > coalesce(token_risk.ath_price, -1) THEN excluded.ath_block_number ELSE token_risk.ath_block_number END,
      ath_log_index = CASE WHEN excluded.ath_price > coalesce(token_risk.ath_price, -1) THEN excluded.ath_log_index ELSE token_risk.ath_log_index END,
      ath_timestamp = CASE WHEN excluded.ath_price > coalesce(token_risk.ath_price, -1) THEN excluded.ath_timestamp ELSE token_risk.ath_timestamp END)`);
  return ctes;
}

/**
 * The statement sent after the range's read-model statement (it reads what that one wrote): for
 * each token the range touched, the figures that are not additive, recomputed — the creator's
 * balance (`token_balances`) and bought/sold (`positions`), each cohort's count, holding count,
 * balance and bought tokens (its members in `token_cohorts` with their balances and positions)
 * and the concentration buckets (the token's {@link CONCENTRATION_HOLDERS} largest balances, read
 * in `token_balances_rank_idx` order). Work per token: its cohort members + 50 index entries.
 * Null when the range touched no token.
 */
export function riskRefreshStatement(changes: RiskChanges): { text: string; values: unknown[] } | null {
  if (changes.size === 0) return null;
  const q = sqlParams();
  const tokens = q.p([...changes.keys()], "text[]");
  const text = `UPDATE token_risk r SET
    creator_balance = coalesce(cb.balance, 0),
    creator_bought = coalesce(cp.bought_tokens, 0),
    creator_sold = coalesce(cp.sold_tokens, 0),
    sniper_count = c.sn, sniper_holding_count = c.snh, sniper_balance = c.snb, sniper_bought = c.snt,
    launch_buyer_count = c.lb, launch_buyer_holding_count = c.lbh, launch_buyer_balance = c.lbb, launch_buyer_bought = c.lbt,
    insider_count = c.ins, insider_holding_count = c.insh, insider_balance = c.insb, insider_received = c.insr,
    top10_balance = k.t10, top11_30_balance = k.t30, top31_50_balance = k.t50
  FROM tokens t
  LEFT JOIN token_balances cb ON cb.token_address = t.address AND cb.holder = t.creator AND cb.balance > 0
  LEFT JOIN positions cp ON cp.token_address = t.address AND cp.trader = t.creator
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE m.sniper)::int AS sn,
      count(*) FILTER (WHERE m.sniper AND b.balance > 0)::int AS snh,
      coalesce(sum(b.balance) FILTER (WHERE m.sniper AND b.balance > 0), 0) AS snb,
      coalesce(sum(p.bought_tokens) FILTER (WHERE m.sniper), 0) AS snt,
      count(*) FILTER (WHERE m.launch_block_buyer)::int AS lb,
      count(*) FILTER (WHERE m.launch_block_buyer AND b.balance > 0)::int AS lbh,
      coalesce(sum(b.balance) FILTER (WHERE m.launch_block_buyer AND b.balance > 0), 0) AS lbb,
      coalesce(sum(p.bought_tokens) FILTER (WHERE m.launch_block_buyer), 0) AS lbt,
      count(*) FILTER (WHERE m.insider)::int AS ins,
      count(*) FILTER (WHERE m.insider AND b.balance > 0)::int AS insh,
      coalesce(sum(b.balance) FILTER (WHERE m.insider AND b.balance > 0), 0) AS insb,
      coalesce(sum(m.received_tokens) FILTER (WHERE m.insider), 0) AS insr
    FROM token_cohorts m
    LEFT JOIN token_balances b ON b.token_address = m.token_address AND b.holder = m.wallet
    LEFT JOIN positions p ON p.token_address = m.token_address AND p.trader = m.wallet
    WHERE m.token_address = t.address) c
  CROSS JOIN LATERAL (
    SELECT coalesce(sum(x.balance) FILTER (WHERE x.n <= 10), 0) AS t10,
      coalesce(sum(x.balance) FILTER (WHERE x.n > 10 AND x.n <= 30), 0) AS t30,
      coalesce(sum(x.balance) FILTER (WHERE x.n > 30), 0) AS t50
    FROM (SELECT tb.balance, row_number() OVER (ORDER BY tb.balance DESC, tb.holder) AS n
          FROM token_balances tb WHERE tb.token_address = t.address AND tb.balance > 0
          ORDER BY tb.balance DESC, tb.holder LIMIT ${CONCENTRATION_HOLDERS}) x) k
  WHERE t.address = r.token_address AND r.token_address = ANY(${tokens})`;
  return { text, values: q.values };
}
