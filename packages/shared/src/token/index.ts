/**
 * The Token object: the one wire shape of a token on every route that returns tokens (list,
 * newest, search, trending, detail, creator pages) and in the finalize response of
 * metadata-api (docs/api.md "Token"). Built by PostgreSQL as JSON text from the `tokens` read
 * model and the finalized `metadata_drafts` row bound to the token, so that a page of tokens is
 * served without parsing dozens of columns per row in Node.
 *
 * Shape: `address`, `creator`, `name`, `symbol`, `initial_supply`; the finalized metadata fields
 * at the top level (`description`, `image_url`, `metadata_url` as `/objects/<key>` paths,
 * `website_url`, `x_url`, `telegram_url`, `discord_url`, each absent when unset) and
 * `metadata_verified` (present when metadata is bound); `graduation` (absent before graduation);
 * `created_at`; `metrics` (with `latest_trade_timestamp`); `curve`. Optional keys are absent,
 * never null; nullable keys (`current_price`, `fully_diluted_value`, `latest_trade_timestamp`)
 * are present. Amounts are decimal strings, block numbers and counts JSON numbers.
 */

/** `{block_number, transaction_hash, log_index}` of a chain event. */
export interface TokenChainPosition {
  block_number: number;
  transaction_hash: string;
  log_index: number;
}

/** `metrics` of the Token object. */
export interface TokenMetrics {
  trade_count: number;
  buy_count: number;
  sell_count: number;
  /** Σ curve_value of the trades (wei). */
  volume: string;
  /** Σ (protocol_fee + creator_fee) (wei). */
  fees: string;
  unique_trader_count: number;
  /** Wei per whole token (10^18 base units), floored; null when no valid price exists. */
  current_price: string | null;
  /** floor(current_price × initial_supply / 10^18) (wei); null when no valid price exists. */
  fully_diluted_value: string | null;
  holder_count: number;
  /** Block timestamp (Unix seconds) of the latest indexed trade; null before the first trade. */
  latest_trade_timestamp: number | null;
}

/** `curve` of the Token object: the token's bonding curve. */
export interface TokenCurve {
  /** The token's curve contract. */
  address: string;
  /** The canonical Uniswap V3 pool (created at launch). */
  canonical_pool_address?: string;
  /** The token's total supply (token base units). */
  supply: string;
  /** Tokens sold by the curve (`soldSupply()`, token base units). */
  sold_supply: string;
  /** Net ETH held by the curve (`reserveCoordinate()`, wei). */
  reserve_balance: string;
  /** `virtualTokenReserve()` (token base units). */
  virtual_token_reserve: string;
  /** `virtualEthReserve()` (wei). */
  virtual_eth_reserve: string;
  /** The curve allocation: tokens sold at graduation (token base units, 800,000,000 × 10^18). */
  graduation_threshold: string;
  /** floor(sold_supply × 10000 / graduation_threshold), at most 10000. */
  progress_bps: number;
  lifecycle: "active" | "graduated";
}

/** `graduation` of the Token object (present once the token graduated). */
export interface TokenGraduation {
  phase: "graduated";
  canonical_pool_address?: string;
  graduation_manager_address?: string;
  lp_custodian_address?: string;
  position_token_id?: string;
  liquidity?: string;
  token_amount?: string;
  eth_amount?: string;
  sold_supply?: string;
  /** Position of `Graduated`. */
  curve_terminal_at?: TokenChainPosition;
  /** Position of `GraduatedV3`. */
  settled_at?: TokenChainPosition;
}

/** The Token object (see the module comment). */
export interface TokenObject {
  address: string;
  creator: string;
  name: string;
  symbol: string;
  initial_supply: string;
  description?: string;
  image_url?: string;
  metadata_url?: string;
  website_url?: string;
  x_url?: string;
  telegram_url?: string;
  discord_url?: string;
  /** Whether the bound metadata was signed by the token's creator (present when metadata is bound). */
  metadata_verified?: boolean;
  graduation?: TokenGraduation;
  created_at: TokenChainPosition;
  metrics: TokenMetrics;
  curve: TokenCurve;
}

/**
 * The join of `tokens t` to its metadata binding `m` (null columns when none): the finalized draft
 * bound to this token AND to this launch — the binding's launch transaction must be the token's
 * creation transaction, so a binding made for a launch that a reorg removed never shows on a
 * relaunch at the same address (docs/api.md "Bindings and reorgs").
 */
export const TOKEN_METADATA_JOIN_SQL = `LEFT JOIN metadata_drafts m ON m.token_address = t.address
    AND m.transaction_hash = t.created_transaction_hash AND m.status = 'finalized'`;

/**
 * The relations a Token object statement reads: `tokens t` and the binding of its launch, `m`
 * ({@link TOKEN_METADATA_JOIN_SQL}). Use as `SELECT ${tokenJsonSql()} FROM ${TOKEN_FROM_SQL} WHERE ...`.
 */
export const TOKEN_FROM_SQL = `tokens t
  ${TOKEN_METADATA_JOIN_SQL}`;

/** `,"key":"<text>"` when `expr` is not null, else nothing (for optional string keys that need no escaping). */
const optionalPlain = (key: string, expr: string) =>
  `CASE WHEN ${expr} IS NULL THEN '' ELSE ',"${key}":"' || ${expr}::text || '"' END`;

/** `,"key":<JSON string>` when `expr` is not null, else nothing (escaped with `to_json`). */
const optionalString = (key: string, expr: string) =>
  `CASE WHEN ${expr} IS NULL THEN '' ELSE ',"${key}":' || to_json(${expr})::text END`;

/** `,"key":{block_number, transaction_hash, log_index}` of a chain position when its block is known. */
const optionalPosition = (key: string, prefix: string) =>
  `CASE WHEN t.${prefix}_block_number IS NULL THEN '' ELSE ',"${key}":{"block_number":' || t.${prefix}_block_number
    || ',"transaction_hash":' || coalesce(to_json(t.${prefix}_transaction_hash)::text, 'null')
    || ',"log_index":' || coalesce(t.${prefix}_log_index::text, 'null') || '}' END`;

/**
 * SQL expression (over {@link TOKEN_FROM_SQL}) of the Token object as JSON text. `extra` adds
 * further keys at the end: pairs of a key and a SQL expression of its JSON text (never null;
 * e.g. query-api's `usd`). Assembled by text concatenation — several times cheaper per row than
 * `json_build_object` — so that optional keys are simply left out: addresses, hashes and
 * integers are written as they are stored (lowercase hex, digits), every free text (names,
 * metadata fields) goes through `to_json`. Key order: the token record, the metadata fields,
 * `graduation`, `created_at`, `metrics`, `curve`, then `extra`.
 */
export function tokenJsonSql(extra: readonly (readonly [key: string, jsonExpr: string])[] = []): string {
  return `'{"address":"' || t.address || '","creator":"' || t.creator || '","name":' || to_json(t.name)::text
  || ',"symbol":' || to_json(t.symbol)::text || ',"initial_supply":"' || t.initial_supply::text || '"'
  || CASE WHEN m.id IS NULL THEN '' ELSE ${optionalString("description", "m.description")}
    || ',"image_url":' || to_json('/objects/' || ltrim(m.image_key, '/'))::text
    || ',"metadata_url":' || to_json('/objects/' || ltrim(m.metadata_key, '/'))::text
    || ${optionalString("website_url", "m.website_url")} || ${optionalString("x_url", "m.x_url")}
    || ${optionalString("telegram_url", "m.telegram_url")} || ${optionalString("discord_url", "m.discord_url")}
    || ',"metadata_verified":' || m.verified::text END
  || CASE WHEN t.state <> 'graduated' THEN '' ELSE ',"graduation":{"phase":"graduated"'
    || ${optionalPlain("canonical_pool_address", "t.pool_address")}
    || ${optionalPlain("graduation_manager_address", "t.graduation_manager_address")}
    || ${optionalPlain("lp_custodian_address", "t.lp_custodian_address")}
    || ${optionalPlain("position_token_id", "t.position_token_id")}
    || ${optionalPlain("liquidity", "t.graduation_liquidity")}
    || ${optionalPlain("token_amount", "t.graduation_token_amount")}
    || ${optionalPlain("eth_amount", "t.graduation_eth_amount")}
    || ${optionalPlain("sold_supply", "t.graduation_sold_supply")}
    || ${optionalPosition("curve_terminal_at", "graduated")}
    || ${optionalPosition("settled_at", "settled")}
    || '}' END
  || ',"created_at":{"block_number":' || t.created_block_number
  || ',"transaction_hash":"' || t.created_transaction_hash || '","log_index":' || t.created_log_index
  || '},"metrics":{"trade_count":' || t.trade_count || ',"buy_count":' || t.buy_count
  || ',"sell_count":' || t.sell_count || ',"volume":"' || t.volume::text || '","fees":"' || t.fees::text
  || '","unique_trader_count":' || t.unique_trader_count
  || ',"current_price":' || coalesce('"' || t.current_price::text || '"', 'null')
  || ',"fully_diluted_value":' || coalesce('"' || t.fully_diluted_value::text || '"', 'null')
  || ',"holder_count":' || t.holder_count
  || ',"latest_trade_timestamp":' || coalesce(t.latest_trade_timestamp::text, 'null')
  || '},"curve":{"address":"' || t.curve_address || '"'
  || ${optionalPlain("canonical_pool_address", "t.pool_address")}
  || ',"supply":"' || t.initial_supply::text || '","sold_supply":"' || t.sold_supply::text
  || '","reserve_balance":"' || t.reserve_balance::text
  || '","virtual_token_reserve":"' || t.virtual_token_reserve::text
  || '","virtual_eth_reserve":"' || t.virtual_eth_reserve::text
  || '","graduation_threshold":"' || t.graduation_threshold::text
  || '","progress_bps":' || CASE WHEN t.graduation_threshold <= 0 THEN 0
                                 ELSE LEAST(10000, floor(t.sold_supply * 10000 / t.graduation_threshold))::int END
  || ',"lifecycle":"' || CASE WHEN t.state = 'graduated' THEN 'graduated' ELSE 'active' END || '"}'${extra
    .map(
      ([key, expr]) => `
  || ',"${key}":' || ${expr}`,
    )
    .join("")}
  || '}'`;
}

/**
 * The Token object of one token (`$1`, lowercase address) as JSON text in column `token`; no
 * row when the token is not indexed. Not filtered by exclusions. For metadata-api's finalize
 * response: `JSON.parse` the text (a {@link TokenObject}). Source: `tokens`, `metadata_drafts`.
 */
export const TOKEN_BY_ADDRESS_SQL = `SELECT ${tokenJsonSql()} AS token FROM ${TOKEN_FROM_SQL} WHERE t.address = $1`;
