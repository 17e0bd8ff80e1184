import { prepared, type ReadDb } from "../db.js";

const PROFILE_SQL = `SELECT
  EXISTS (SELECT 1 FROM excluded_addresses WHERE kind = 'creator' AND address = $1) AS excluded,
  (SELECT token_count FROM creators WHERE address = $1) AS token_count,
  (SELECT volume FROM creators WHERE address = $1) AS volume,
  h.hidden_count, h.hidden_volume
FROM (SELECT count(*)::int AS hidden_count, coalesce(sum(t.volume), 0) AS hidden_volume
      FROM excluded_addresses x JOIN tokens t ON t.address = x.address
      WHERE x.kind = 'token' AND t.creator = $1) h`;

/**
 * Aggregates of a creator's visible tokens: `token_count` and `volume` (wei, decimal string)
 * from `creators`, minus the creator's excluded tokens; zero for an address that launched
 * nothing and for an excluded creator (DESIGN.md §9). Source: `creators`, `excluded_addresses`, `tokens`.
 */
export async function getCreatorAggregates(
  db: ReadDb,
  creator: string,
): Promise<{ tokenCount: number; volume: string }> {
  const result = await prepared<{
    excluded: boolean;
    token_count: number | null;
    volume: string | null;
    hidden_count: number;
    hidden_volume: string;
  }>(db, "qapi_creator_profile", PROFILE_SQL, [creator]);
  const row = result.rows[0];
  if (!row || row.excluded || row.token_count === null) return { tokenCount: 0, volume: "0" };
  const tokenCount = Math.max(0, row.token_count - row.hidden_count);
  const volume = BigInt(row.volume ?? "0") - BigInt(row.hidden_volume);
  return { tokenCount, volume: (volume > 0n ? volume : 0n).toString() };
}
