// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// Discovery over every token (docs/api.md "Discovery: sorts, phase and batch", "Trending",
// "Market-wide trades"): the sorts, `phase`, `search` with a sort, the batch lookup, trending's
// second part and `GET /api/v1/trades`, over hand-built rows shaped as the indexer writes them.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, type Harness } from "./harness.js";
import { addr, insertToken, insertTrade, setCheckpoint } from "./seed.js";

const T0 = 1_700_000_000;
const CREATOR = addr(0xc1);
const THRESHOLD = 800_000_000n * 10n ** 18n;

interface Seeded {
  address: string;
  name: string;
  block: number;
  state: "curve" | "graduated";
  fdv: bigint | null;
  lastTrade: number | null;
  holders: number;
  sold: bigint;
}

/** 9 tokens (launched at blocks 100..180), with ties on every sort key to exercise the address order. */
const tokens: Seeded[] = [
  { name: "Apple", fdv: 500n, lastTrade: T0 + 50, holders: 3, sold: THRESHOLD / 2n },
  { name: "Apricot", fdv: 900n, lastTrade: null, holders: 0, sold: 0n },
  { name: "Banana", fdv: 500n, lastTrade: T0 + 90, holders: 7, sold: THRESHOLD / 4n },
  { name: "Blueberry", fdv: null, lastTrade: T0 + 90, holders: 7, sold: THRESHOLD / 2n },
  { name: "Cherry", fdv: 10n ** 30n, lastTrade: T0 + 10, holders: 12, sold: THRESHOLD, state: "graduated" },
  { name: "Coconut", fdv: 1n, lastTrade: T0 + 70, holders: 1, sold: THRESHOLD / 10n },
  { name: "Date", fdv: 700n, lastTrade: T0 + 30, holders: 2, sold: THRESHOLD, state: "graduated" },
  { name: "Apex", fdv: 300n, lastTrade: T0 + 20, holders: 5, sold: THRESHOLD / 3n },
  { name: "Elder", fdv: 200n, lastTrade: T0 + 60, holders: 4, sold: THRESHOLD / 5n },
].map((t, i) => ({
  ...t,
  state: (t as { state?: "graduated" }).state ?? "curve",
  address: addr(0x200 + ((i * 7) % 9)),
  block: 100 + i * 10,
}));
const EXCLUDED = addr(0x2ff);

const progress = (t: Seeded) => Math.min(10_000, Number((t.sold * 10_000n) / THRESHOLD));
const byAddress = (a: Seeded, b: Seeded) => (a.address < b.address ? -1 : 1);
const desc =
  (value: (t: Seeded) => number | bigint) =>
  (a: Seeded, b: Seeded): number => {
    const [x, y] = [value(a), value(b)];
    return x === y ? byAddress(a, b) : x > y ? -1 : 1;
  };
const addresses = (list: Seeded[]) => list.map((t) => t.address);

/** Expected order of each one-part sort. */
const expected: Record<string, Seeded[]> = {
  newest: [...tokens].sort((a, b) => b.block - a.block),
  market_cap: [...tokens].sort(desc((t) => t.fdv ?? -1n)),
  last_trade: [...tokens].sort(desc((t) => t.lastTrade ?? -1)),
  holders: [...tokens].sort(desc((t) => t.holders)),
  progress: tokens.filter((t) => t.state === "curve").sort(desc(progress)),
};

/** Trending snapshot: Banana (volume 50), Apple (50), Elder (10); ranks by volume then address desc on purpose. */
const trendingRanks = ["Elder", "Banana", "Apple"];
const volumes: Record<string, bigint> = { Elder: 10n, Banana: 50n, Apple: 50n };
const named = (name: string) => tokens.find((t) => t.name === name) as Seeded;

let h: Harness;

async function walk(url: string, limit: number): Promise<string[]> {
  const items: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const sep = url.includes("?") ? "&" : "?";
    const res = await h.get(
      `${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    h.validate(url.split("?")[0] as string, 200, res.body);
    items.push(...res.body.items.map((t: any) => t.address ?? `${t.block_number}:${t.log_index}`));
    cursor = res.body.next_cursor;
    if (cursor === undefined) return items;
    expect(res.body.items).toHaveLength(limit);
  }
  throw new Error(`${url}: no last page`);
}

beforeAll(async () => {
  h = await createHarness();
  const db = h.admin;
  for (const t of [...tokens, { ...tokens[0], name: "Excluded", address: EXCLUDED, block: 300 } as Seeded]) {
    await insertToken(db, {
      address: t.address,
      creator: CREATOR,
      name: t.name,
      symbol: t.name.slice(0, 3).toUpperCase(),
      block: t.block,
      createdAt: T0 + t.block,
      state: t.state,
    });
    await db.query(
      `UPDATE tokens SET fully_diluted_value = $2, latest_trade_timestamp = $3, holder_count = $4, sold_supply = $5,
         graduation_threshold = $6 WHERE address = $1`,
      [t.address, t.fdv?.toString() ?? null, t.lastTrade, t.holders, t.sold.toString(), THRESHOLD.toString()],
    );
  }
  await db.query("INSERT INTO excluded_addresses (address, kind, reason) VALUES ($1, 'token', 'test')", [
    EXCLUDED,
  ]);
  await setCheckpoint(db, 400, T0 + 1000);
  await db.query(
    "INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 86400, 400, $1)",
    [T0 + 1000],
  );
  for (const [rank, name] of [...trendingRanks, "Excluded"].entries()) {
    const address = name === "Excluded" ? EXCLUDED : named(name).address;
    await db.query("INSERT INTO trending_entries VALUES (1, $1, $2, $3, 1, 1)", [
      rank + 1,
      address,
      String(volumes[name] ?? 99n),
    ]);
  }
  // Trades: 3 tokens, both venues, one block holding two tokens' trades.
  let log = 0;
  for (const [token, block, source] of [
    [named("Apple").address, 200, "curve"],
    [named("Banana").address, 200, "curve"],
    [named("Cherry").address, 201, "uniswap_v3"],
    [named("Apple").address, 202, "curve"],
    [EXCLUDED, 202, "curve"],
    [named("Cherry").address, 203, "uniswap_v3"],
    [named("Banana").address, 204, "curve"],
  ] as const) {
    await insertTrade(h.admin, {
      token,
      block,
      logIndex: log++,
      timestamp: T0 + block,
      trader: addr(0x500),
      side: "buy",
      source,
      tokenAmount: 10n ** 18n,
      reserveAmount: 10n ** 15n,
    });
  }
});

afterAll(async () => {
  await h?.close();
});

describe("token list sorts", () => {
  test("default: every sort's order, ties by address, cursors walking it page by page", async () => {
    for (const [sort, list] of Object.entries(expected)) {
      expect(await walk(`/api/v1/tokens?sort=${sort}`, 100), sort).toEqual(addresses(list));
      expect(await walk(`/api/v1/tokens/newest?sort=${sort}`, 2), sort).toEqual(addresses(list));
    }
    // Without `sort`: newest, as before.
    expect(await walk("/api/v1/tokens", 3)).toEqual(addresses(expected.newest as Seeded[]));
  });

  test("behavior: phase filters every sort; progress holds curve tokens only", async () => {
    for (const phase of ["curve", "graduated"] as const) {
      for (const [sort, list] of Object.entries(expected)) {
        const want = list.filter((t) => t.state === phase);
        expect(await walk(`/api/v1/tokens?sort=${sort}&phase=${phase}`, 2), `${sort} ${phase}`).toEqual(
          addresses(want),
        );
      }
    }
    expect(await walk("/api/v1/tokens?phase=graduated", 1)).toEqual(
      addresses([named("Date"), named("Cherry")]),
    );
  });

  test("behavior: search combines with every sort and phase", async () => {
    const ap = (t: Seeded) => t.name.toLowerCase().startsWith("ap");
    for (const [sort, list] of Object.entries(expected)) {
      expect(await walk(`/api/v1/tokens?sort=${sort}&search=AP`, 1), sort).toEqual(
        addresses(list.filter(ap)),
      );
    }
    expect(await walk("/api/v1/tokens?sort=volume_24h&search=ap&phase=curve", 1)).toEqual(
      addresses([named("Apple"), named("Apex"), named("Apricot")]),
    );
  });

  test("behavior: volume_24h is the trending window's volume, then every other token by address", async () => {
    const ranked = [named("Apple"), named("Banana"), named("Elder")];
    const rest = tokens.filter((t) => !ranked.includes(t)).sort(byAddress);
    expect(await walk("/api/v1/tokens?sort=volume_24h", 2)).toEqual(addresses([...ranked, ...rest]));
  });

  test("error: unknown sort or phase, a cursor of another sort, phase or search", async () => {
    for (const q of ["sort=price", "sort=", "phase=active", "sort=NEWEST"]) {
      const res = await h.get(`/api/v1/tokens?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    const first = await h.get("/api/v1/tokens?sort=market_cap&limit=1");
    const cursor = encodeURIComponent(first.body.next_cursor);
    for (const q of [
      "sort=holders",
      "sort=newest",
      "",
      "sort=market_cap&phase=curve",
      "sort=market_cap&search=a",
    ]) {
      const res = await h.get(`/api/v1/tokens?${q}&cursor=${cursor}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    expect((await h.get(`/api/v1/tokens?sort=market_cap&cursor=${cursor}`)).status).toBe(200);
  });
});

describe("trending", () => {
  test("default: the snapshot's tokens by rank, then every other visible token newest first, across pages", async () => {
    const ranked = trendingRanks.map(named);
    const rest = (expected.newest as Seeded[]).filter((t) => !ranked.includes(t));
    const want = addresses([...ranked, ...rest]);
    for (const limit of [1, 2, 3, 4, 100]) {
      expect(await walk("/api/v1/trending", limit), `limit ${limit}`).toEqual(want);
      expect(await walk("/api/v1/tokens?sort=trending", limit), `limit ${limit}`).toEqual(want);
    }
    expect(await walk("/api/v1/tokens?sort=trending&phase=graduated", 1)).toEqual(
      addresses([named("Date"), named("Cherry")]),
    );
  });

  test("behavior: a cursor in the second part keeps its snapshot; a pruned one is 400", async () => {
    const page = await h.get("/api/v1/tokens/trending?limit=4");
    await h.admin.query(
      "INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (2, 86400, 401, $1)",
      [T0 + 1001],
    );
    const next = await h.get(
      `/api/v1/tokens/trending?limit=100&cursor=${encodeURIComponent(page.body.next_cursor)}`,
    );
    expect(next.body.items.map((t: any) => t.address)).not.toContain(named("Apple").address);
    expect(next.body.items).toHaveLength(tokens.length - 4);
    // The newest snapshot is empty: every token, newest first.
    expect(await walk("/api/v1/trending", 4)).toEqual(addresses(expected.newest as Seeded[]));
    await h.admin.query("DELETE FROM trending_snapshots WHERE id = 1");
    const gone = await h.get(
      `/api/v1/tokens/trending?limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`,
    );
    expect(gone.status).toBe(400);
    expect(gone.body.error.code).toBe("invalid_request");
    await h.admin.query("DELETE FROM trending_snapshots WHERE id = 2");
  });
});

describe("batch", () => {
  test("default: the visible tokens in the order given, any case, unknown and excluded left out", async () => {
    const [a, b, c] = [named("Date"), named("Apple"), named("Cherry")].map((t) => t.address);
    const list = [a, addr(0x404), b?.toUpperCase().replace("0X", "0x"), EXCLUDED, c, a].join(",");
    const res = await h.get(`/api/v1/tokens?addresses=${list}`);
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens", 200, res.body);
    expect(res.body.items.map((t: any) => t.address)).toEqual([a, b, c]);
    expect(res.body.next_cursor).toBeUndefined();
    const hundred = Array.from({ length: 100 }, (_, i) => addr(0x1000 + i)).join(",");
    expect((await h.get(`/api/v1/tokens?addresses=${hundred}`)).body.items).toEqual([]);
  });

  test("error: more than 100, a malformed or empty list, combined with a sort", async () => {
    const many = Array.from({ length: 101 }, (_, i) => addr(0x1000 + i)).join(",");
    for (const [q, code] of [
      [`addresses=${many}`, "invalid_request"],
      ["addresses=0x1234", "invalid_address"],
      [`addresses=${addr(1)},nope`, "invalid_address"],
      ["addresses=", "invalid_request"],
      ["addresses=,,", "invalid_request"],
      [`addresses=${addr(1)}&sort=holders`, "invalid_request"],
      [`addresses=${addr(1)}&search=a`, "invalid_request"],
    ] as const) {
      const res = await h.get(`/api/v1/tokens?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code, q).toBe(code);
      expect(res.body.error.details.map((d: any) => d.field)).toEqual(
        expect.arrayContaining([q.includes("sort") ? "sort" : q.includes("search") ? "search" : "addresses"]),
      );
    }
  });
});

describe("market-wide trades", () => {
  test("default: every visible token's trades newest first, with token_address; order=asc reverses", async () => {
    const res = await h.get("/api/v1/trades");
    expect(res.status).toBe(200);
    h.validate("/api/v1/trades", 200, res.body);
    expect(res.body.items.map((t: any) => [t.block_number, t.token_address])).toEqual([
      [204, named("Banana").address],
      [203, named("Cherry").address],
      [202, named("Apple").address],
      [201, named("Cherry").address],
      [200, named("Banana").address],
      [200, named("Apple").address],
    ]);
    const desc = await walk("/api/v1/trades", 2);
    expect(await walk("/api/v1/trades?order=asc", 4)).toEqual([...desc].reverse());
  });

  test("behavior: source keeps one venue", async () => {
    const curve = await h.get("/api/v1/trades?source=curve");
    expect(curve.body.items.map((t: any) => t.source)).toEqual(["curve", "curve", "curve", "curve"]);
    expect(await walk("/api/v1/trades?source=uniswap_v3&order=asc", 1)).toEqual(["201:2", "203:5"]);
  });

  test("error: bad source, order, limit or a cursor of another source or order", async () => {
    for (const q of ["source=dex", "order=up", "limit=0", "limit=101", "cursor=abc"]) {
      const res = await h.get(`/api/v1/trades?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    const first = await h.get("/api/v1/trades?limit=1&source=curve");
    const cursor = encodeURIComponent(first.body.next_cursor);
    for (const q of ["", "source=uniswap_v3", "source=curve&order=asc"]) {
      expect((await h.get(`/api/v1/trades?${q}&cursor=${cursor}`)).status, q).toBe(400);
    }
  });
});
