// The SQL text of read model `tokens` (its rows and deltas: model/tokens.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.
import { virtualEthReserve, virtualTokenReserve } from "@tmi/shared/chain";
import { fullyDilutedValue, lifecycleOf } from "@tmi/shared/market";
import type { NewTokenRow, TokenDelta } from "../model/tokens.js";
import { type SqlParams, str, unnestRows } from "../sql/sql-text.js";

/**
 * The insert of the range's launches (`tokens`): identity, name/symbol read from the token
 * (sanitized), curve and canonical pool, the curve at launch (nothing sold, virtual reserves as
 * the curve's views return them, price = spotPrice() at launch, FDV), metrics zero. Null when the
 * range launched nothing. A separate statement: the metrics update of the same range must see it.
 */
export function newTokensStatement(
  n: NewTokenRow[],
  chainId: number,
): { text: string; values: unknown[] } | null {
  if (n.length === 0) return null;
  return {
    text: `INSERT INTO tokens (address, chain_id, creator, name, symbol, search_name, search_symbol, initial_supply,
       created_block_number, created_transaction_index, created_transaction_hash, created_log_index, created_at,
       curve_address, pool_address, pool_token_is_token0, fee_manager_address, lifecycle, sold_supply, reserve_balance,
       virtual_token_reserve, virtual_eth_reserve, graduation_threshold, current_price, fully_diluted_value,
       updated_block_number)
     SELECT a, $1, c, nm, sy, lower(nm_n), lower(sy_n), sup, bn, ti, th, li, ts, cu, po, is0, fm, '${lifecycleOf(false)}', 0, 0,
            vtr, ver, gt, pr, fdv, bn
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::bigint[],
                 $10::int[], $11::text[], $12::int[], $13::bigint[], $14::text[], $15::text[], $16::bool[], $17::text[],
                 $18::numeric[], $19::numeric[], $20::numeric[], $21::numeric[], $22::numeric[])
       AS d(a, c, nm, sy, nm_n, sy_n, sup, bn, ti, th, li, ts, cu, po, is0, fm, vtr, ver, gt, pr, fdv)`,
    values: [
      chainId,
      n.map((t) => t.address),
      n.map((t) => t.creator),
      n.map((t) => t.name),
      n.map((t) => t.symbol),
      n.map((t) => t.name.normalize("NFC")),
      n.map((t) => t.symbol.normalize("NFC")),
      n.map((t) => t.initialSupply.toString()),
      n.map((t) => t.blockNumber),
      n.map((t) => t.transactionIndex),
      n.map((t) => t.transactionHash),
      n.map((t) => t.logIndex),
      n.map((t) => t.timestamp),
      n.map((t) => t.curve),
      n.map((t) => t.pool),
      n.map((t) => t.tokenIsToken0),
      n.map((t) => t.feeManager),
      n.map(() => virtualTokenReserve(0n).toString()),
      n.map(() => virtualEthReserve(0n).toString()),
      n.map((t) => t.graduationThreshold.toString()),
      n.map((t) => t.price.toString()),
      n.map((t) => str(fullyDilutedValue(t.price, t.initialSupply))),
    ],
  };
}

/**
 * The update of every token the range touched (`tokens`): counters and sums add (trades, buys,
 * sells, volume = Σ curve_value, fees, unique traders and holders from the given relations); the curve
 * state (sold supply, reserve, virtual reserves), price and FDV, graduation (`Graduated`),
 * settlement (`GraduatedV3`), residual escrow, LP fee vault and latest trade are replaced when the range set
 * them (CTE `tokens_up`).
 * @param supplyOf the token's initial supply (for FDV).
 * @param counts names of relations (token_address, n): `newTraders`, traders new to the token;
 *   `holderChange`, the change of its holder count.
 */
export function tokensUpdateCtes(
  deltas: Map<string, TokenDelta>,
  supplyOf: (token: string) => bigint,
  counts: { newTraders: string; holderChange: string },
  q: SqlParams,
): string[] {
  return [
    `tokens_up AS (
    UPDATE tokens t SET
      trade_count = t.trade_count + d.tc,
      buy_count = t.buy_count + d.bc,
      sell_count = t.sell_count + d.sc,
      volume = t.volume + d.vol,
      fees = t.fees + d.fee,
      unique_trader_count = t.unique_trader_count + coalesce(ttn.n, 0),
      holder_count = t.holder_count + coalesce(hd.n, 0),
      sold_supply = CASE WHEN d.has_curve THEN d.sold ELSE t.sold_supply END,
      reserve_balance = CASE WHEN d.has_curve THEN d.res ELSE t.reserve_balance END,
      virtual_token_reserve = CASE WHEN d.has_curve THEN d.vtr ELSE t.virtual_token_reserve END,
      virtual_eth_reserve = CASE WHEN d.has_curve THEN d.ver ELSE t.virtual_eth_reserve END,
      current_price = CASE WHEN d.price_set THEN d.pr ELSE t.current_price END,
      fully_diluted_value = CASE WHEN d.price_set THEN d.fdv ELSE t.fully_diluted_value END,
      lifecycle = CASE WHEN d.grad THEN '${lifecycleOf(true)}' ELSE t.lifecycle END,
      graduation_manager_address = CASE WHEN d.grad THEN d.gm ELSE t.graduation_manager_address END,
      graduation_token_amount = CASE WHEN d.grad THEN d.gta ELSE t.graduation_token_amount END,
      graduation_eth_amount = CASE WHEN d.grad THEN d.gea ELSE t.graduation_eth_amount END,
      graduation_sold_supply = CASE WHEN d.grad THEN d.gss ELSE t.graduation_sold_supply END,
      graduated_block_number = CASE WHEN d.grad THEN d.gbn ELSE t.graduated_block_number END,
      graduated_transaction_hash = CASE WHEN d.grad THEN d.gth ELSE t.graduated_transaction_hash END,
      graduated_log_index = CASE WHEN d.grad THEN d.gli ELSE t.graduated_log_index END,
      graduated_at = CASE WHEN d.grad THEN d.gts ELSE t.graduated_at END,
      lp_custodian_address = CASE WHEN d.settled THEN d.cus ELSE t.lp_custodian_address END,
      position_token_id = CASE WHEN d.settled THEN d.pid ELSE t.position_token_id END,
      graduation_liquidity = CASE WHEN d.settled THEN d.liq ELSE t.graduation_liquidity END,
      settled_block_number = CASE WHEN d.settled THEN d.sbn ELSE t.settled_block_number END,
      settled_transaction_hash = CASE WHEN d.settled THEN d.sth ELSE t.settled_transaction_hash END,
      settled_log_index = CASE WHEN d.settled THEN d.sli ELSE t.settled_log_index END,
      residual_escrow_address = coalesce(d.esc, t.residual_escrow_address),
      lp_fee_vault_address = coalesce(t.lp_fee_vault_address, d.vault),
      community_vault_address = coalesce(t.community_vault_address, d.cvault),
      trader_rewards_vault_address = coalesce(t.trader_rewards_vault_address, d.tvault),
      last_trade_source = coalesce(d.lts, t.last_trade_source),
      last_trade_block_number = coalesce(d.ltb, t.last_trade_block_number),
      latest_trade_timestamp = coalesce(d.ltt, t.latest_trade_timestamp),
      updated_block_number = greatest(t.updated_block_number, d.ub)
    FROM ${unnestRows(q, [...deltas.values()], "d", {
      a: ["text", (d) => d.address],
      tc: ["int", (d) => d.tradeCount],
      bc: ["int", (d) => d.buyCount],
      sc: ["int", (d) => d.sellCount],
      vol: ["numeric", (d) => d.volume.toString()],
      fee: ["numeric", (d) => d.fees.toString()],
      has_curve: ["bool", (d) => d.curve !== null],
      sold: ["numeric", (d) => str(d.curve?.soldSupply)],
      res: ["numeric", (d) => str(d.curve?.reserveCoordinate)],
      vtr: ["numeric", (d) => (d.curve ? virtualTokenReserve(d.curve.soldSupply).toString() : null)],
      ver: ["numeric", (d) => (d.curve ? virtualEthReserve(d.curve.reserveCoordinate).toString() : null)],
      price_set: ["bool", (d) => d.price !== undefined],
      pr: ["numeric", (d) => str(d.price)],
      fdv: [
        "numeric",
        (d) => str(d.price === undefined ? null : fullyDilutedValue(d.price, supplyOf(d.address))),
      ],
      grad: ["bool", (d) => d.graduation !== null],
      gm: ["text", (d) => d.graduation?.manager ?? null],
      gta: ["numeric", (d) => str(d.graduation?.tokenAmount)],
      gea: ["numeric", (d) => str(d.graduation?.ethAmount)],
      gss: ["numeric", (d) => str(d.graduation?.soldSupply)],
      gbn: ["bigint", (d) => d.graduation?.blockNumber ?? null],
      gth: ["text", (d) => d.graduation?.transactionHash ?? null],
      gli: ["int", (d) => d.graduation?.logIndex ?? null],
      gts: ["bigint", (d) => d.graduation?.timestamp ?? null],
      settled: ["bool", (d) => d.settlement !== null],
      cus: ["text", (d) => d.settlement?.custodian ?? null],
      pid: ["numeric", (d) => str(d.settlement?.positionTokenId)],
      liq: ["numeric", (d) => str(d.settlement?.liquidity)],
      sbn: ["bigint", (d) => d.settlement?.blockNumber ?? null],
      sth: ["text", (d) => d.settlement?.transactionHash ?? null],
      sli: ["int", (d) => d.settlement?.logIndex ?? null],
      esc: ["text", (d) => d.escrow],
      vault: ["text", (d) => d.feeVault],
      cvault: ["text", (d) => d.communityVault],
      tvault: ["text", (d) => d.traderRewardsVault],
      lts: ["text", (d) => d.lastTradeSource],
      ltb: ["bigint", (d) => d.lastTradeBlock],
      ltt: ["bigint", (d) => d.latestTradeTimestamp],
      ub: ["bigint", (d) => d.updatedBlock],
    })}
    LEFT JOIN ${counts.newTraders} ttn ON ttn.token_address = d.a
    LEFT JOIN ${counts.holderChange} hd ON hd.token_address = d.a
    WHERE t.address = d.a)`,
  ];
}
