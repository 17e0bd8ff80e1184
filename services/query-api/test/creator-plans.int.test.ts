// A creator's pages read what they show, not every token of the creator (docs/api.md "Creators"):
// with many creators of many tokens each, the generic plan of the creator statements must walk
// `tokens_creator_newest_idx` from the cursor and stop after the page. It once estimated that one
// row survives the creator's exclusion test (a per-row anti-join on the parameter) and read every
// token of the creator through a bitmap, then sorted them. Asserted on the rows the plan examined,
// never a duration; the pages are also checked against the exclusions.
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { listCreatorEarnings, listCreatorTokens } from "../src/creators/creator-queries.js";
import { explainPrepared, planSession, recordingDb, rowsExaminedOn } from "./plans.js";
import { insertSeriesTokens } from "./seed.js";

/** Creators, and tokens of each (interleaved: a creator's tokens lie on as many heap pages). */
const CREATORS = 40;
const PER_CREATOR = 500;
const creatorAt = (i: string) => `'0xc' || lpad(to_hex(${i}), 39, '0')`;
/** Creator 1 (its tokens are 1, 1 + CREATORS, ...; the newest has the highest number). */
const CREATOR = `0xc${"1".padStart(39, "0")}`;
/** Creator 2, excluded by the operator. */
const EXCLUDED_CREATOR = `0xc${"2".padStart(39, "0")}`;
/** The newest and the third newest token of {@link CREATOR}, excluded by the operator. */
const newest = CREATORS * (PER_CREATOR - 1) + 1;
const EXCLUDED_TOKENS = [newest, newest - 2 * CREATORS].map((n) => `0x${n.toString(16).padStart(40, "0")}`);

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await insertSeriesTokens(admin, CREATORS * PER_CREATOR, creatorAt(`(i - 1) % ${CREATORS} + 1`));
  await admin.query(
    `INSERT INTO excluded_addresses (address, kind, reason)
     SELECT a, 'token', 'test' FROM unnest($1::text[]) a UNION ALL SELECT $2, 'creator', 'test'`,
    [EXCLUDED_TOKENS, EXCLUDED_CREATOR],
  );
  await admin.query("ANALYZE");
  await admin.end();
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

describe.each(["force_generic_plan", "force_custom_plan"])("%s", (mode) => {
  test("behavior: a creator's token and earnings pages examine rows bounded by the page, not by the creator's tokens", async () => {
    const client = await planSession(database.url, mode);
    try {
      const { db, statements } = recordingDb(client);
      const first = await listCreatorTokens(db, { creator: CREATOR, after: null, take: 21 });
      const addresses = first.map((row) => JSON.parse(row.item).address as string);
      // Newest first, the excluded tokens left out.
      const expected = Array.from({ length: 23 }, (_, k) => newest - k * CREATORS)
        .map((n) => `0x${n.toString(16).padStart(40, "0")}`)
        .filter((a) => !EXCLUDED_TOKENS.includes(a))
        .slice(0, 21);
      expect(addresses).toEqual(expected);
      const last = first[20]!;
      const next = await listCreatorTokens(db, {
        creator: CREATOR,
        after: [BigInt(last.created_block_number), Number(last.created_log_index)],
        take: 21,
      });
      expect(BigInt(next[0]!.created_block_number)).toBe(
        BigInt(last.created_block_number) - BigInt(CREATORS),
      );
      expect(await listCreatorEarnings(db, { creator: CREATOR, after: null, take: 21 })).toHaveLength(21);
      expect(await listCreatorTokens(db, { creator: EXCLUDED_CREATOR, after: null, take: 21 })).toEqual([]);
      expect(statements.length).toBe(4);
      for (const { name, values } of statements) {
        const plan = await explainPrepared(client, name!, values);
        if (process.env.SHOW_PLANS) console.log(JSON.stringify(plan, null, 1));
        // The page (21 rows) and the excluded tokens met on the way; reading every token of the
        // creator examines PER_CREATOR rows.
        expect(rowsExaminedOn(plan, "tokens"), `rows of tokens examined by ${name}`).toBeLessThanOrEqual(
          2 * 21 + 2,
        );
      }
    } finally {
      await client.end();
    }
  });
});
