import type { Db } from "@tmi/db";
import { TOKEN_BY_ADDRESS_SQL, type TokenObject } from "@tmi/shared/token";
import type { DraftRow } from "../drafts/draft-queries.js";

/**
 * The Token object of the token bound to `draft` (the finalize response): the one shape every
 * route serves (`@tmi/shared/token`), built by PostgreSQL from `tokens` and the finalized draft
 * bound to it (metadata fields at the top level, `metadata_verified`). Null when the draft holds no
 * token or the token is not (or no longer) indexed. Source: `tokens`, `metadata_drafts`.
 */
export async function findBoundToken(db: Db, draft: DraftRow): Promise<TokenObject | null> {
  if (!draft.tokenAddress) return null;
  const rows = await db.$queryRawUnsafe<{ token: string }[]>(TOKEN_BY_ADDRESS_SQL, draft.tokenAddress);
  const text = rows[0]?.token;
  return text === undefined ? null : (JSON.parse(text) as TokenObject);
}
