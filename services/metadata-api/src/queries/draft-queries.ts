/**
 * What the queries need of a connection pool: the `query` method of a `pg.Pool` (from `@tmi/db`
 * `createPgPool`: `int8` → bigint, `numeric` → string).
 */
export interface Sql {
  // biome-ignore lint/suspicious/noExplicitAny: pg rows are untyped
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

/** A row of `metadata_drafts` as the API uses it (amounts as bigint, addresses lowercase). */
export interface DraftRow {
  id: string;
  chainId: number;
  name: string;
  symbol: string;
  description: string | null;
  initialSupply: bigint;
  websiteUrl: string | null;
  xUrl: string | null;
  telegramUrl: string | null;
  discordUrl: string | null;
  imageKey: string;
  metadataKey: string;
  /** `draft` | `pending` (receipt seen, waiting for the indexer) | `finalized`. */
  status: "draft" | "pending" | "finalized";
  tokenAddress: string | null;
  transactionHash: string | null;
  createdAt: Date;
  finalizedAt: Date | null;
}

const COLUMNS = `id, chain_id, name, symbol, description, initial_supply::text AS initial_supply, website_url, x_url,
  telegram_url, discord_url, image_key, metadata_key, status, token_address, transaction_hash, created_at, finalized_at`;

// biome-ignore lint/suspicious/noExplicitAny: pg rows are untyped
function toDraft(row: any): DraftRow {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    name: row.name,
    symbol: row.symbol,
    description: row.description,
    initialSupply: BigInt(row.initial_supply),
    websiteUrl: row.website_url,
    xUrl: row.x_url,
    telegramUrl: row.telegram_url,
    discordUrl: row.discord_url,
    imageKey: row.image_key,
    metadataKey: row.metadata_key,
    status: row.status,
    tokenAddress: row.token_address,
    transactionHash: row.transaction_hash,
    createdAt: row.created_at,
    finalizedAt: row.finalized_at,
  };
}

/** Inserts a new draft (status `draft`). Returns the stored row. */
export async function insertDraft(
  sql: Sql,
  draft: Omit<DraftRow, "status" | "tokenAddress" | "transactionHash" | "createdAt" | "finalizedAt">,
): Promise<DraftRow> {
  const result = await sql.query(
    `INSERT INTO metadata_drafts (id, chain_id, name, symbol, description, initial_supply, website_url, x_url,
       telegram_url, discord_url, image_key, metadata_key, status)
     VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11, $12, 'draft')
     RETURNING ${COLUMNS}`,
    [
      draft.id,
      draft.chainId,
      draft.name,
      draft.symbol,
      draft.description,
      draft.initialSupply.toString(),
      draft.websiteUrl,
      draft.xUrl,
      draft.telegramUrl,
      draft.discordUrl,
      draft.imageKey,
      draft.metadataKey,
    ],
  );
  return toDraft(result.rows[0]);
}

/** The draft with `id`, or null. */
export async function findDraft(sql: Sql, id: string): Promise<DraftRow | null> {
  const result = await sql.query(`SELECT ${COLUMNS} FROM metadata_drafts WHERE id = $1`, [id]);
  return result.rows[0] ? toDraft(result.rows[0]) : null;
}

/** True when `error` is PostgreSQL's unique violation on `metadata_drafts.token_address`. */
export function isTokenTaken(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === "23505";
}

/**
 * Binds a draft to an indexed launch in ONE conditional UPDATE, so the API and the worker
 * racing cannot bind twice: it succeeds only when the draft is `draft`, or `pending` for this
 * very launch, and `tokens` holds a launch on the draft's chain with the same address,
 * creation transaction hash, name, symbol and initial supply.
 * Returns the finalized row, or null when nothing was updated (not indexed yet, mismatch,
 * or already finalized: re-read the draft to tell).
 * @throws the unique violation when another draft holds the token (see {@link isTokenTaken}).
 */
export async function bindDraft(
  sql: Sql,
  id: string,
  tokenAddress: string,
  transactionHash: string,
): Promise<DraftRow | null> {
  const result = await sql.query(
    `UPDATE metadata_drafts d
        SET status = 'finalized', token_address = $2, transaction_hash = $3, finalized_at = now()
      WHERE d.id = $1
        AND (d.status = 'draft' OR (d.status = 'pending' AND d.token_address = $2 AND d.transaction_hash = $3))
        AND EXISTS (
          SELECT 1 FROM tokens t
           WHERE t.address = $2 AND t.chain_id = d.chain_id AND t.created_transaction_hash = $3
             AND t.name = d.name AND t.symbol = d.symbol AND t.initial_supply = d.initial_supply)
      RETURNING ${COLUMNS}`,
    [id, tokenAddress, transactionHash],
  );
  return result.rows[0] ? toDraft(result.rows[0]) : null;
}

/**
 * Marks a `draft` as `pending` for a launch whose receipt was seen but not yet indexed (claims
 * the token). Idempotent for the same launch. Returns the row, or null when the draft is in
 * another state or pending for another launch.
 * @throws the unique violation when another draft holds the token.
 */
export async function markPending(
  sql: Sql,
  id: string,
  tokenAddress: string,
  transactionHash: string,
): Promise<DraftRow | null> {
  const result = await sql.query(
    `UPDATE metadata_drafts
        SET status = 'pending', token_address = $2, transaction_hash = $3
      WHERE id = $1
        AND (status = 'draft' OR (status = 'pending' AND token_address = $2 AND transaction_hash = $3))
      RETURNING ${COLUMNS}`,
    [id, tokenAddress, transactionHash],
  );
  return result.rows[0] ? toDraft(result.rows[0]) : null;
}

/**
 * Releases a `pending` claim (back to `draft`, token cleared) when its launch turned out not to
 * match or never got indexed. Only touches the draft if it is still pending for that launch.
 */
export async function releasePending(
  sql: Sql,
  id: string,
  tokenAddress: string,
  transactionHash: string,
): Promise<boolean> {
  const result = await sql.query(
    `UPDATE metadata_drafts SET status = 'draft', token_address = NULL, transaction_hash = NULL
      WHERE id = $1 AND status = 'pending' AND token_address = $2 AND transaction_hash = $3`,
    [id, tokenAddress, transactionHash],
  );
  return (result.rowCount ?? 0) > 0;
}
