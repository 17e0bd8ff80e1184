// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// `GET /api/v1/wallets/{address}/rewards` is a keyset page (docs/api.md "Reward distributions"):
// over a wallet with claims only, leaves only, both, a leaf of a tree of another root (not
// served) and epochs shared by several distributions, every walk of its pages (limit 1, 3, the
// default; newest and oldest first) equals the wallet's rewards recomputed from the seeded rows;
// a cursor is bound to the wallet and the order, a bad limit or cursor is 400 invalid_request; and
// a page deep in a wallet of thousands of distributions reads rows bounded by the page, not by
// the wallet (the plan's rows examined, under the generic and the custom plan).

import { createCursorCodec } from "@tmi/shared/codec";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readKeysetPage } from "../src/common/keyset-page.js";
import { WALLET_REWARDS } from "../src/rewards/reward-queries.js";
import { createHarness, type Harness, TEST_CURSOR_SECRET } from "./harness.js";
import { explainPrepared, planSession, recordingDb, rowsExaminedOn } from "./plans.js";

const WALLET = `0x${"77".repeat(20)}`;
const OTHER = `0x${"88".repeat(20)}`;
/** A wallet with a claim and a leaf in each of {@link BIG_N} distributions. */
const BIG = `0x${"99".repeat(20)}`;
const BIG_N = 3000;
const ZERO = `0x${"00".repeat(20)}`;
const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const PATH = "/api/v1/wallets/{address}/rewards";

/** One seeded distribution and what the wallet has in it. */
interface Seed {
  i: number;
  id: string;
  token: string;
  epoch: bigint;
  root: string;
  claim: boolean;
  leaf: boolean;
  /** A leaf of the wallet in a tree of another root only (not served). */
  staleLeaf: boolean;
  amount: bigint;
}

// 45 distributions over 3 tokens; epochs 0..6 (shared), 10^30 for one (beyond a JS number). The
// oldest three are claims only and the newest two leaves only: a page that reads one source
// short misses the end of a walk.
const seeds: Seed[] = Array.from({ length: 45 }, (_, k) => {
  const i = k + 1;
  const oldest = i > 40 && i <= 43;
  const newest = i > 43;
  return {
    i,
    id: hex(oldest ? i : i * 7919, 32),
    token: hex((i % 3) + 1, 20),
    epoch: newest ? 10n ** 31n : i === 40 ? 10n ** 30n : oldest ? 0n : BigInt(i % 7),
    root: hex(1000 + i, 32),
    claim: oldest || (!newest && i % 3 === 0),
    leaf: newest || (!oldest && i % 2 === 0),
    staleLeaf: i % 10 === 5,
    amount: 10n ** 20n + BigInt(i),
  };
});
/** Token 1's vault holds enough for every leaf; the others hold nothing. */
const FUNDED = hex(2, 20);

let h: Harness;

/** The wallet's rewards recomputed from {@link seeds}, newest epoch first. */
function expectedRewards(): any[] {
  return seeds
    .filter((s) => s.claim || s.leaf)
    .sort((a, b) =>
      a.epoch !== b.epoch ? (a.epoch < b.epoch ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0,
    )
    .map((s) => ({
      distribution_id: s.id,
      token_address: s.token,
      epoch: s.epoch.toString(),
      asset: ZERO,
      root: s.root,
      amount: s.amount.toString(),
      proof: s.leaf ? [hex(s.i, 32), hex(s.i + 1, 32)] : null,
      claimed: s.claim,
      claim: s.claim
        ? {
            block_number: 500 + s.i,
            timestamp: 1_800_000_000 + s.i,
            transaction_hash: hex(s.i, 32),
            log_index: 2,
          }
        : null,
      claimable: !s.claim && s.leaf && s.token === FUNDED,
    }));
}

/** Every item of the wallet's pages of `limit` in `order` (checking each page against the OpenAPI document). */
async function walk(wallet: string, limit?: number, order?: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set("limit", String(limit));
    if (order !== undefined) query.set("order", order);
    if (cursor !== undefined) query.set("cursor", cursor);
    const res = await h.get(`/api/v1/wallets/${wallet}/rewards?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    h.validate(PATH, 200, res.body);
    expect(res.body.items.length).toBeLessThanOrEqual(limit ?? 20);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
    if (cursor === undefined) return items;
    // A cursor only when a further item exists: never a full page followed by an empty one.
    expect(res.body.items).toHaveLength(limit ?? 20);
  }
  throw new Error("no last page");
}

beforeAll(async () => {
  h = await createHarness();
  const q = (text: string, values: unknown[] = []) => h.admin.query(text, values);
  for (const s of seeds) {
    await q(
      `INSERT INTO reward_distributions (distribution_id, token_address, epoch, asset, root, block_number,
         block_timestamp, transaction_hash, log_index) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1)`,
      [s.id, s.token, s.epoch.toString(), ZERO, s.root, 100 + s.i, 1_700_000_000 + s.i, hex(s.i, 32)],
    );
    const claimants = [...(s.claim ? [WALLET] : []), OTHER];
    for (const claimant of claimants)
      await q(
        `INSERT INTO reward_claims (distribution_id, claimant, token_address, epoch, asset, amount, block_number,
           block_timestamp, transaction_hash, log_index) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 2)`,
        [
          s.id,
          claimant,
          s.token,
          s.epoch.toString(),
          ZERO,
          s.amount.toString(),
          500 + s.i,
          1_800_000_000 + s.i,
          hex(s.i, 32),
        ],
      );
    const trees = [
      ...(s.leaf ? [{ root: s.root, claimants: [WALLET, OTHER] }] : [{ root: s.root, claimants: [OTHER] }]),
      ...(s.staleLeaf ? [{ root: hex(9000 + s.i, 32), claimants: [WALLET] }] : []),
    ];
    for (const tree of trees) {
      await q(
        `INSERT INTO reward_trees (distribution_id, root, leaf_order, leaf_count) VALUES ($1, $2, 'given', $3)`,
        [s.id, tree.root, tree.claimants.length],
      );
      for (const claimant of tree.claimants)
        await q(
          `INSERT INTO reward_tree_leaves (distribution_id, root, claimant, epoch, amount, leaf_hash, proof)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            s.id,
            tree.root,
            claimant,
            s.epoch.toString(),
            s.amount.toString(),
            hex(s.i, 32),
            [hex(s.i, 32), hex(s.i + 1, 32)],
          ],
        );
    }
  }
  await q(
    `INSERT INTO token_asset_fees (token_address, asset, lp_creator, lp_protocol, lp_community, lp_trader_rewards,
       community_funded, community_forwarded, trader_rewards_funded, trader_rewards_paid, updated_block_number)
     VALUES ($1, $2, 0, 0, 0, 0, 0, 0, 10^24, 0, 1), ($3, $2, 0, 0, 0, 0, 0, 0, 0, 0, 1)`,
    [FUNDED, ZERO, hex(1, 20)],
  );
  // The big wallet: a claim and a leaf in each of BIG_N distributions of their own.
  const id = (i: string) => `'0xf' || lpad(to_hex(${i}), 63, '0')`;
  await q(
    `INSERT INTO reward_distributions (distribution_id, token_address, epoch, asset, root, block_number,
       block_timestamp, transaction_hash, log_index)
     SELECT ${id("i")}, $1, i, $2, ${id("i")}, 1000 + i, 1700000000 + i, ${id("i")}, 0 FROM generate_series(1, ${BIG_N}) i`,
    [FUNDED, ZERO],
  );
  await q(
    `INSERT INTO reward_claims (distribution_id, claimant, token_address, epoch, asset, amount, block_number,
       block_timestamp, transaction_hash, log_index)
     SELECT ${id("i")}, $1, $2, i, $3, 1, 2000 + i, 1800000000 + i, ${id("i")}, 0 FROM generate_series(1, ${BIG_N}) i`,
    [BIG, FUNDED, ZERO],
  );
  await q(
    `INSERT INTO reward_trees (distribution_id, root, leaf_order, leaf_count)
     SELECT ${id("i")}, ${id("i")}, 'given', 1 FROM generate_series(1, ${BIG_N}) i`,
  );
  await q(
    `INSERT INTO reward_tree_leaves (distribution_id, root, claimant, epoch, amount, leaf_hash, proof)
     SELECT ${id("i")}, ${id("i")}, $1, i, 1, ${id("i")}, ARRAY[${id("i")}] FROM generate_series(1, ${BIG_N}) i`,
    [BIG],
  );
  await q("ANALYZE reward_distributions, reward_claims, reward_trees, reward_tree_leaves");
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe("GET /api/v1/wallets/{address}/rewards", () => {
  test("default: every walk of pages equals the wallet's rewards recomputed from its rows", async () => {
    const expected = expectedRewards();
    // Not vacuous: claims only, leaves only, both, an unclaimable leaf, a claimable one, shared epochs.
    expect(expected.length).toBe(32);
    expect(expected.some((r) => r.claimed && r.proof === null)).toBe(true);
    expect(expected.some((r) => !r.claimed && r.proof !== null)).toBe(true);
    expect(expected.some((r) => r.claimed && r.proof !== null)).toBe(true);
    expect(expected.some((r) => r.claimable)).toBe(true);
    expect(expected.some((r) => !r.claimable && !r.claimed)).toBe(true);
    expect(await walk(WALLET, 1)).toEqual(expected);
    expect(await walk(WALLET, 3)).toEqual(expected);
    expect(await walk(WALLET)).toEqual(expected);
    expect(await walk(WALLET, 100)).toEqual(expected);
    expect(await walk(WALLET, 2, "asc")).toEqual([...expected].reverse());
    expect(await walk(WALLET, 32)).toEqual(expected);
    expect(await walk(WALLET, 31)).toEqual(expected);
    const big = await walk(BIG, 100);
    expect(big).toHaveLength(BIG_N);
    expect(big[0]).toMatchObject({ epoch: String(BIG_N), claimed: true, claimable: false });
  }, 120_000);

  test("behavior: an address with nothing is an empty page; a malformed address is 400 invalid_address", async () => {
    const empty = await h.get(`/api/v1/wallets/0x${"cd".repeat(20)}/rewards`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [] });
    const bad = await h.get("/api/v1/wallets/nope/rewards");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_address");
  });

  test("behavior: a cursor of another wallet or order, a tampered cursor and a bad limit are 400 invalid_request", async () => {
    const first = await h.get(`/api/v1/wallets/${WALLET}/rewards?limit=2`);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toBeTypeOf("string");
    const next = await h.get(`/api/v1/wallets/${WALLET}/rewards?limit=2&cursor=${cursor}`);
    expect(next.status).toBe(200);
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith("A") ? "B" : "A"}${cursor.slice(-1)}`;
    for (const url of [
      `/api/v1/wallets/${OTHER}/rewards?cursor=${cursor}`,
      `/api/v1/wallets/${WALLET}/rewards?order=asc&cursor=${cursor}`,
      `/api/v1/wallets/${WALLET}/rewards?cursor=${tampered}`,
      `/api/v1/wallets/${WALLET}/rewards?cursor=`,
      ...["0", "101", "1.5", "-1", "abc", "1e1"].map((l) => `/api/v1/wallets/${WALLET}/rewards?limit=${l}`),
      `/api/v1/wallets/${WALLET}/rewards?limit=1&limit=2`,
      `/api/v1/wallets/${WALLET}/rewards?order=up`,
    ]) {
      const res = await h.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.error.code, url).toBe("invalid_request");
      h.validate(PATH, 400, res.body);
    }
  });

  test.each(["force_generic_plan", "force_custom_plan"])(
    "behavior: a page deep in a wallet of 3000 distributions reads rows bounded by the page (%s)",
    async (mode) => {
      const client = await planSession(h.database.url, mode);
      try {
        const cursors = createCursorCodec(TEST_CURSOR_SECRET);
        const { db, statements } = recordingDb(client);
        const route = `wallets.rewards:${BIG}:desc`;
        const read = (cursor: string | undefined) =>
          readKeysetPage(db, WALLET_REWARDS, {
            filters: [BIG],
            order: "desc",
            limit: 5,
            cursor,
            cursors,
            route,
          });
        // A cursor halfway down the wallet's distributions.
        const half = cursors.encode(route, [BigInt(BIG_N / 2), hex(0, 0)]);
        const page = await read(half);
        expect(page?.rows.map((r) => r.epoch)).toEqual(["1499", "1498", "1497", "1496", "1495"]);
        await read(undefined);
        expect(statements).toHaveLength(2);
        for (const { name, values } of statements) {
          const plan = await explainPrepared(client, name!, values);
          for (const relation of ["reward_claims", "reward_tree_leaves", "reward_distributions"])
            expect(
              rowsExaminedOn(plan, relation),
              `${relation} in ${JSON.stringify(plan)}`,
            ).toBeLessThanOrEqual(2 * 6);
        }
      } finally {
        await client.end();
      }
    },
  );
});
