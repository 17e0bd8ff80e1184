// biome-ignore-all lint/suspicious/noExplicitAny: untyped JSON response bodies in tests
// query-api over hand-built rows shaped as the indexer writes them: every route, field, rule
// and error of docs/api.md. (routes-devnet.int.test.ts repeats the core
// checks over a database filled by the real indexer from a devnet run.)
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createLogger } from "@tmi/shared/logger";
import { TOKEN_BY_ADDRESS_SQL } from "@tmi/shared/token";
import { WORKSPACE_ROOT, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildApp } from "../src/app.js";
import { createReadPool } from "../src/db.js";
import { createHarness, type Harness, TEST_CURSOR_SECRET } from "./harness.js";
import {
  addr,
  curveOf,
  insertEvent,
  insertToken,
  insertTrade,
  poolOf,
  setCheckpoint,
  txHash,
} from "./seed.js";

const T0 = 1_700_000_000; // Tuesday 2023-11-14T22:13:20Z
const CREATOR_A = addr(0xc1);
const CREATOR_B = addr(0xc2);
const NOBODY = addr(0xdead);
const SPECIAL = "0xabcdef0000000000000000000000000000000001";
const GRADUATED = addr(0x9a);
const POOL = addr(0x9b);
const UNKNOWN = addr(0x404);

/** 12 tokens, launched at blocks 100, 110, ..., 210 (newest = token 12). */
const names = [
  ["Alpha", "ALP"],
  ["alpha beta", "AB"],
  ["Élan", "ELN"],
  ["a_b", "US"],
  ["axb", "AXB"],
  ["Zeta", "ZT"],
  ["Gamma", "GAM"],
  ["Delta.Two", "D2"],
  ["日本トークン", "JP"],
  ["Omega-1", "OM1"],
  ["Zero Price", "ZP"],
  ["Special", "SPC"],
] as const;
const tokenAddress = (i: number) => (i === 12 ? SPECIAL : addr(0x100 + i));

let h: Harness;

async function exclusionsCli(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=tmi-source", "--import", "tsx", "services/query-api/src/exclusions-cli.ts", ...args],
    { cwd: WORKSPACE_ROOT, env: { ...process.env, DATABASE_URL: h.database.url } },
  );
  return stdout;
}

async function walk(url: string, limit: number): Promise<{ pages: number; items: any[] }> {
  const items: any[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const sep = url.includes("?") ? "&" : "?";
    const res = await h.get(
      `${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(res.status).toBe(200);
    pages += 1;
    const list = res.body.items ?? res.body.tokens;
    expect(list.length).toBeLessThanOrEqual(limit);
    items.push(...list);
    cursor = res.body.next_cursor;
    if (cursor === undefined) break;
    expect(list.length).toBe(limit);
  }
  return { pages, items };
}

beforeAll(async () => {
  h = await createHarness();
  const db = h.admin;
  for (let i = 1; i <= 12; i++) {
    const [name, symbol] = names[i - 1]!;
    await insertToken(db, {
      address: tokenAddress(i),
      creator: i <= 6 ? CREATOR_A : CREATOR_B,
      name,
      symbol,
      block: 90 + i * 10,
      logIndex: i % 3,
      createdAt: T0 + i * 600,
      currentPrice: i === 11 ? null : undefined,
    });
  }
  await insertToken(db, {
    address: GRADUATED,
    creator: CREATOR_B,
    name: "Graduate",
    symbol: "GRAD",
    block: 95,
    createdAt: T0 + 300,
    lifecycle: "graduated",
    poolAddress: POOL,
    lastTradeSource: "uniswap_v3",
  });
  await db.query(
    `INSERT INTO creators (address, token_count, volume, updated_block_number) VALUES ($1, 6, '18000000000000000000', 200), ($2, 7, '21000000000000000000', 210)`,
    [CREATOR_A, CREATOR_B],
  );
  // Trades of token 1: 25 trades over blocks 120..; two in one block with different tx indexes.
  for (let n = 0; n < 25; n++) {
    await insertTrade(db, {
      token: tokenAddress(1),
      block: 120 + Math.floor(n / 2),
      txIndex: n % 2,
      logIndex: n,
      timestamp: T0 + 1200 + n * 100,
      trader: addr(0x500 + (n % 4)),
      side: n % 3 === 0 ? "sell" : "buy",
      tokenAmount: 10n ** 21n + BigInt(n),
      reserveAmount: 10n ** 16n * BigInt(n + 1),
    });
    await insertEvent(db, {
      token: tokenAddress(1),
      block: 120 + Math.floor(n / 2),
      txIndex: n % 2,
      logIndex: n,
      name: n % 3 === 0 ? "TokensSold" : "TokensBought",
      decoded: { token: tokenAddress(1), reserveAmount: String(10n ** 16n * BigInt(n + 1)) },
    });
  }
  // Candles of token 1 (1h): two buckets with trades; the rest of the range is a gap.
  const hour = (ts: number) => Math.floor(ts / 3600) * 3600;
  await db.query(
    `INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
       buy_volume, sell_volume, unique_trader_count, open_price, high_price, low_price, close_price)
     VALUES ($1, '1h', $2, 3, 2, 1, '60000000000000000', '40000000000000000', '20000000000000000', 2, '100', '300', '50', '200'),
            ($1, '1h', $3, 1, 1, 0, '10000000000000000', '10000000000000000', '0', 1, '210', '210', '210', '210'),
            ($1, '1w', $4, 4, 3, 1, '70000000000000000', '50000000000000000', '20000000000000000', 3, '100', '300', '50', '210')`,
    [tokenAddress(1), hour(T0 + 1200), hour(T0 + 1200) + 3 * 3600, 1699833600],
  );
  await setCheckpoint(db, 400, T0 + 10 * 3600 + 5);
  // Trending: snapshot 1 ranks 1..5 = tokens 3, 1, 5, 7, 9.
  await db.query(
    `INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (1, 86400, 400, $1)`,
    [T0],
  );
  for (const [rank, i] of [3, 1, 5, 7, 9].entries()) {
    await db.query(
      `INSERT INTO trending_entries (snapshot_id, rank, token_address, window_volume, window_trade_count, window_unique_traders) VALUES (1, $1, $2, $3, 1, 1)`,
      [rank + 1, tokenAddress(i), String(1000 - rank)],
    );
  }
  // Metadata: a finalized draft for token 2 (bound to its launch transaction), a pending one for token 3,
  // and for token 4 one finalized for another launch transaction (a launch a reorg removed).
  await db.query(
    `INSERT INTO metadata_drafts (id, chain_id, name, symbol, description, initial_supply, website_url, x_url, image_key, metadata_key, status, token_address, transaction_hash, finalized_at)
     VALUES ('d1', 31337, 'alpha beta', 'AB', 'The second token', '1000000000000000000000000000', 'https://example.com/', 'https://x.com/ab', 'images/aa.png', 'metadata/bb.json', 'finalized', $1, (SELECT created_transaction_hash FROM tokens WHERE address = $1), now()),
            ('d2', 31337, 'Élan', 'ELN', null, '1000000000000000000000000000', null, null, 'images/cc.png', 'metadata/dd.json', 'pending', $2, $3, null),
            ('d3', 31337, 'Gone', 'GONE', null, '1000000000000000000000000000', null, null, 'images/ee.png', 'metadata/ff.json', 'finalized', $4, $5, now())`,
    [tokenAddress(2), tokenAddress(3), txHash(2), tokenAddress(4), txHash(4_000_001)],
  );
});

afterAll(async () => {
  await h?.close();
});

describe("token list", () => {
  test("default", async () => {
    const res = await h.get("/api/v1/tokens");
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens", 200, res.body);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("public, max-age=2");
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(res.body.items).toHaveLength(13);
    expect(res.body.next_cursor).toBeUndefined();
    expect(res.body.items[0]).toEqual({
      address: SPECIAL,
      creator: CREATOR_B,
      name: "Special",
      symbol: "SPC",
      initial_supply: "1000000000000000000000000000",
      created_at: { block_number: 210, transaction_hash: txHash(210_000), log_index: 0 },
      metrics: {
        trade_count: 3,
        buy_count: 2,
        sell_count: 1,
        volume: "3000000000000000000",
        fees: "15000000000000000",
        unique_trader_count: 2,
        current_price: "28000000000",
        fully_diluted_value: "28000000000000000000",
        holder_count: 2,
        latest_trade_timestamp: T0 + 12 * 600 + 6,
      },
      curve: {
        address: curveOf(SPECIAL),
        canonical_pool_address: poolOf(SPECIAL),
        supply: "1000000000000000000000000000",
        sold_supply: "48000000000000000000000000",
        reserve_balance: "250000000000000000",
        virtual_token_reserve: "1066666666666666666666666667",
        virtual_eth_reserve: "1000000000000000000",
        graduation_threshold: "800000000000000000000000000",
        progress_bps: 600,
        lifecycle: "active",
      },
      usd: null, // no ETH/USD answer indexed in these fixtures
      // No `token_risk` row in these fixtures: zeros.
      risk: {
        creator_share_bps: 0,
        creator_has_sold: false,
        top10_share_bps: 0,
        sniper_share_bps: 0,
        insider_share_bps: 0,
      },
    });
    // Metadata fields at the top level of list items, only when set; never null keys.
    const withMetadata = res.body.items.find((t: any) => t.address === tokenAddress(2));
    expect(withMetadata).toMatchObject({
      description: "The second token",
      image_url: "/objects/images/aa.png",
      metadata_url: "/objects/metadata/bb.json",
      website_url: "https://example.com/",
      x_url: "https://x.com/ab",
      metadata_verified: false,
    });
    expect(withMetadata).not.toHaveProperty("telegram_url");
    expect(withMetadata).not.toHaveProperty("graduation");
    const json = JSON.stringify(res.body.items.map(({ metrics, usd, ...rest }: any) => rest));
    expect(json).not.toContain("null");
    // Newest launch first.
    const blocks = res.body.items.map((t: any) => t.created_at.block_number);
    expect(blocks).toEqual([...blocks].sort((a: number, b: number) => b - a));
    const zero = res.body.items.find((t: any) => t.name === "Zero Price");
    expect(zero.metrics.current_price).toBeNull();
    expect(zero.metrics.fully_diluted_value).toBeNull();
  });

  test("behavior: /tokens/newest is the same list", async () => {
    const a = await h.get("/api/v1/tokens?limit=5");
    const b = await h.get("/api/v1/tokens/newest?limit=5");
    expect(b.status).toBe(200);
    h.validate("/api/v1/tokens/newest", 200, b.body);
    expect(b.body.items).toEqual(a.body.items);
    // Aliases share cursors.
    const next = await h.get(`/api/v1/tokens/newest?limit=5&cursor=${a.body.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.items[0].created_at.block_number).toBeLessThan(a.body.items[4].created_at.block_number);
  });

  test("behavior: limit edges", async () => {
    for (const limit of ["1", "100", "013"]) {
      const res = await h.get(`/api/v1/tokens?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(Math.min(Number(limit), 13));
    }
    expect((await h.get("/api/v1/tokens?limit=1")).body.next_cursor).toBeTypeOf("string");
    for (const limit of [
      "0",
      "101",
      "1.5",
      "abc",
      "",
      "-1",
      "1e1",
      "0x10",
      " 5",
      "99999999999",
      "5&limit=6",
    ]) {
      const res = await h.get(
        `/api/v1/tokens?limit=${encodeURIComponent(limit).replace("%26", "&").replace("%3D", "=")}`,
      );
      expect(res.status, `limit=${limit}`).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.headers["cache-control"]).toBe("no-store");
      h.validate("/api/v1/tokens", 400, res.body);
    }
  });

  test("behavior: a cursor walk visits every token once, newest first", async () => {
    for (const limit of [1, 2, 5, 13]) {
      const { items, pages } = await walk("/api/v1/tokens", limit);
      expect(items.map((t) => t.address).sort()).toEqual(
        [...Array.from({ length: 12 }, (_, i) => tokenAddress(i + 1)), GRADUATED].sort(),
      );
      expect(pages).toBe(Math.ceil(13 / limit));
    }
  });

  test("error: tampered, foreign and search-bound cursors", async () => {
    const first = await h.get("/api/v1/tokens?limit=2");
    const cursor: string = first.body.next_cursor;
    const [payload, mac] = cursor.split(".") as [string, string];
    const tampered = `${payload.slice(0, -2)}${payload.slice(-2) === "AA" ? "AB" : "AA"}.${mac}`;
    const trades = await h.get(`/api/v1/tokens/${tokenAddress(1)}/trades?limit=2`);
    const searched = await h.get("/api/v1/tokens?search=a&limit=1");
    for (const [url, bad] of [
      ["/api/v1/tokens", tampered],
      ["/api/v1/tokens", "garbage"],
      ["/api/v1/tokens", `${payload}.${"A".repeat(mac.length)}`],
      ["/api/v1/tokens", trades.body.next_cursor],
      ["/api/v1/tokens", searched.body.next_cursor],
      ["/api/v1/tokens?search=b", searched.body.next_cursor],
      [`/api/v1/tokens/${tokenAddress(1)}/trades`, cursor],
      [`/api/v1/tokens/${tokenAddress(2)}/trades`, trades.body.next_cursor],
      [`/api/v1/tokens/${tokenAddress(1)}/trades?order=asc`, trades.body.next_cursor],
      [`/api/v1/creators/${CREATOR_A}`, cursor],
      ["/api/v1/trending", cursor],
    ] as const) {
      const sep = url.includes("?") ? "&" : "?";
      const res = await h.get(`${url}${sep}cursor=${encodeURIComponent(bad)}`);
      expect(res.status, `${url} ${bad}`).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    // The search-bound cursor works with its own search.
    const ok = await h.get(
      `/api/v1/tokens?search=a&limit=1&cursor=${encodeURIComponent(searched.body.next_cursor)}`,
    );
    expect(ok.status).toBe(200);
  });
});

describe("search", () => {
  const search = async (q: string) => {
    const res = await h.get(`/api/v1/tokens?search=${encodeURIComponent(q)}&limit=100`);
    return res;
  };
  const namesOf = (res: { body: any }) => res.body.items.map((t: any) => t.name).sort();

  test("default", async () => {
    const res = await search("alp");
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens", 200, res.body);
    expect(namesOf(res)).toEqual(["Alpha", "alpha beta"]);
  });

  test("behavior: name, symbol and address prefixes, normalized", async () => {
    expect(namesOf(await search("ALPHA B"))).toEqual(["alpha beta"]);
    expect(namesOf(await search("  alpha  "))).toEqual(["Alpha", "alpha beta"]);
    expect(namesOf(await search("zt"))).toEqual(["Zeta"]); // symbol
    expect(namesOf(await search("om1"))).toEqual(["Omega-1"]);
    expect(namesOf(await search("delta.t"))).toEqual(["Delta.Two"]);
    expect(namesOf(await search("0xABCDEF"))).toEqual(["Special"]); // address prefix, any case
    expect(namesOf(await search("élan"))).toEqual(["Élan"]);
    expect(namesOf(await search("E\u0301LAN"))).toEqual(["Élan"]); // decomposed input, NFC-normalized
    expect(namesOf(await search("日本"))).toEqual(["日本トークン"]);
    expect(namesOf(await search("lpha"))).toEqual([]); // prefix, not substring
    // `_` is a literal, not a LIKE wildcard.
    expect(namesOf(await search("a_"))).toEqual(["a_b"]);
    // Empty or blank search: the whole list.
    expect((await search("")).body.items).toHaveLength(13);
    expect((await search("   ")).body.items).toHaveLength(13);
  });

  test("behavior: 64 bytes pass, 65 bytes fail (multi-byte letters counted in bytes)", async () => {
    expect((await search("a".repeat(64))).status).toBe(200);
    expect((await search("é".repeat(32))).status).toBe(200); // 64 bytes
    expect((await search("日".repeat(21))).status).toBe(200); // 63 bytes
    for (const q of ["a".repeat(65), "é".repeat(32) + "a", "日".repeat(22)]) {
      const res = await search(q);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details[0].field).toBe("search");
    }
  });

  test("error: forbidden characters", async () => {
    for (const q of [
      "a%",
      "a*",
      "a'b",
      'a"',
      "a\\",
      "a/b",
      "a,b",
      "a\tb",
      "<script>",
      "a;b",
      "😀",
      "a+b",
      "%",
    ]) {
      const res = await search(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  test("behavior: search pages with cursors", async () => {
    const { items } = await walk("/api/v1/tokens?search=a", 1);
    expect(items.map((t) => t.name).sort()).toEqual(["Alpha", "a_b", "alpha beta", "axb"].sort());
  });
});

describe("token detail", () => {
  test("default", async () => {
    const res = await h.get(`/api/v1/tokens/${tokenAddress(2).toUpperCase().replace("0X", "0x")}`);
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens/{address}", 200, res.body);
    expect(res.body).toMatchObject({
      address: tokenAddress(2),
      description: "The second token",
      image_url: "/objects/images/aa.png",
      metadata_url: "/objects/metadata/bb.json",
      website_url: "https://example.com/",
      x_url: "https://x.com/ab",
      metadata_verified: false,
      curve: {
        address: curveOf(tokenAddress(2)),
        sold_supply: "48000000000000000000000000",
        progress_bps: 600,
      },
    });
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "address",
        "creator",
        "name",
        "symbol",
        "initial_supply",
        "description",
        "image_url",
        "metadata_url",
        "website_url",
        "x_url",
        "metadata_verified",
        "created_at",
        "metrics",
        "curve",
        "usd",
        "risk",
        "ath",
        "stats",
      ].sort(),
    );
    // The detail is the list item with the full `risk`, plus `ath` and `stats`.
    const item = (await h.get("/api/v1/tokens?search=alpha%20beta")).body.items[0];
    const { stats, risk, ath, ...detail } = res.body;
    const { risk: compact, ...listed } = item;
    expect(detail).toEqual(listed);
    expect(ath).toBeNull();
    expect(compact).toEqual({
      creator_share_bps: risk.creator.share_bps,
      creator_has_sold: risk.creator.has_sold,
      top10_share_bps: risk.top10_share_bps,
      sniper_share_bps: risk.snipers.share_bps,
      insider_share_bps: risk.insiders.share_bps,
    });
    // The shared statement metadata-api's finalize answers with: the same object without `usd` and `risk`.
    const shared = await h.pool.query<{ token: string }>(TOKEN_BY_ADDRESS_SQL, [tokenAddress(2)]);
    const { usd, risk: _risk, ...token } = item;
    expect(JSON.parse(shared.rows[0]!.token)).toEqual(token);
  });

  test("behavior: a draft that is not finalized, or finalized for another launch transaction, gives no metadata; graduation fields", async () => {
    const pending = await h.get(`/api/v1/tokens/${tokenAddress(3)}`);
    for (const key of ["description", "image_url", "metadata_url", "metadata_verified", "graduation"]) {
      expect(pending.body).not.toHaveProperty(key);
    }
    const relaunched = await h.get(`/api/v1/tokens/${tokenAddress(4)}`);
    expect(relaunched.status).toBe(200);
    expect(relaunched.body.created_at.transaction_hash).not.toBe(txHash(4_000_001));
    for (const key of ["image_url", "metadata_url", "metadata_verified"]) {
      expect(relaunched.body).not.toHaveProperty(key);
    }
    const listed = (await h.get("/api/v1/tokens?limit=100")).body.items.find(
      (t: { address: string }) => t.address === tokenAddress(4),
    );
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty("image_url");
    const graduated = await h.get(`/api/v1/tokens/${GRADUATED}`);
    h.validate("/api/v1/tokens/{address}", 200, graduated.body);
    expect(graduated.body.curve).toMatchObject({
      canonical_pool_address: POOL,
      sold_supply: "800000000000000000000000000",
      progress_bps: 10_000,
      lifecycle: "graduated",
    });
    expect(graduated.body.graduation).toEqual({
      phase: "graduated",
      canonical_pool_address: POOL,
      graduation_manager_address: addr(0x6a, "9"),
      lp_custodian_address: addr(0xc5, "9"),
      position_token_id: "4242",
      liquidity: "123456789012345678901",
      token_amount: "200000000000000000000000000",
      eth_amount: "2970000000000000000",
      sold_supply: "800000000000000000000000000",
      curve_terminal_at: { block_number: 96, transaction_hash: txHash(999_095), log_index: 7 },
      settled_at: { block_number: 96, transaction_hash: txHash(999_095), log_index: 5 },
    });
  });

  test("error: malformed and unknown addresses", async () => {
    for (const bad of [
      "0x12",
      "abc",
      `${tokenAddress(1)}00`,
      "0xZZ00000000000000000000000000000000000000",
      tokenAddress(1).slice(2),
    ]) {
      for (const suffix of ["", "/pricing", "/chart", "/trades", "/activity"]) {
        const res = await h.get(`/api/v1/tokens/${bad}${suffix}`);
        expect(res.status, `${bad}${suffix}`).toBe(400);
        expect(res.body.error.code).toBe("invalid_address");
      }
    }
    for (const suffix of ["", "/pricing", "/chart", "/trades", "/activity"]) {
      const res = await h.get(`/api/v1/tokens/${UNKNOWN}${suffix}`);
      expect(res.status, suffix).toBe(404);
      expect(res.body.error.code).toBe("not_found");
      expect(res.headers["cache-control"]).toBe("no-store");
      h.validate(`/api/v1/tokens/{address}${suffix}`, 404, res.body);
    }
  });
});

describe("pricing", () => {
  test("default", async () => {
    const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/pricing`);
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens/{address}/pricing", 200, res.body);
    expect(res.body).toEqual({
      token_address: tokenAddress(1),
      current_price: "28000000000",
      fully_diluted_value: "28000000000000000000",
      source: "indexed_v3_curve",
    });
  });

  test("behavior: source follows graduation and the latest trade source; null prices", async () => {
    expect((await h.get(`/api/v1/tokens/${GRADUATED}/pricing`)).body.source).toBe("indexed_v3_market");
    await h.admin.query("UPDATE tokens SET last_trade_source = 'curve' WHERE address = $1", [GRADUATED]);
    expect((await h.get(`/api/v1/tokens/${GRADUATED}/pricing`)).body.source).toBe("indexed_v3_curve");
    await h.admin.query("UPDATE tokens SET last_trade_source = 'uniswap_v3' WHERE address = $1", [GRADUATED]);
    const zero = await h.get(`/api/v1/tokens/${tokenAddress(11)}/pricing`);
    expect(zero.body).toMatchObject({
      current_price: null,
      fully_diluted_value: null,
      source: "indexed_v3_curve",
    });
    h.validate("/api/v1/tokens/{address}/pricing", 200, zero.body);
  });
});

describe("chart", () => {
  const hour = (ts: number) => Math.floor(ts / 3600) * 3600;

  test("default", async () => {
    const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart`);
    expect(res.status).toBe(200);
    h.validate("/api/v1/tokens/{address}/chart", 200, res.body);
    expect(res.body.interval).toBe("1h");
    expect(res.body.supported_intervals).toEqual(["1m", "5m", "15m", "1h", "4h", "1d", "1w"]);
    // From the launch bucket (never before) to the bucket of the checkpoint, gap-filled.
    const launch = hour(T0 + 600);
    const latest = hour(T0 + 10 * 3600 + 5);
    const starts = res.body.candles.map((c: any) => c.bucket_start);
    expect(starts[0]).toBe(launch);
    expect(starts.at(-1)).toBe(latest);
    expect(starts).toEqual(Array.from({ length: (latest - launch) / 3600 + 1 }, (_, i) => launch + i * 3600));
    const full = res.body.candles.find((c: any) => c.bucket_start === hour(T0 + 1200));
    expect(full).toEqual({
      bucket_start: hour(T0 + 1200),
      trade_count: 3,
      buy_count: 2,
      sell_count: 1,
      volume: "60000000000000000",
      buy_volume: "40000000000000000",
      sell_volume: "20000000000000000",
      unique_trader_count: 2,
      open_price: "100",
      high_price: "300",
      low_price: "50",
      close_price: "200",
    });
    const empty = res.body.candles.find((c: any) => c.bucket_start === hour(T0 + 1200) + 3600);
    expect(empty).toEqual({
      bucket_start: hour(T0 + 1200) + 3600,
      trade_count: 0,
      buy_count: 0,
      sell_count: 0,
      volume: "0",
      buy_volume: "0",
      sell_volume: "0",
      unique_trader_count: 0,
      open_price: null,
      high_price: null,
      low_price: null,
      close_price: null,
    });
  });

  test("behavior: limit keeps the most recent buckets; 1w starts on Monday; 1m limit 1000", async () => {
    const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?interval=1h&limit=3`);
    const latest = hour(T0 + 10 * 3600 + 5);
    expect(res.body.candles.map((c: any) => c.bucket_start)).toEqual([latest - 7200, latest - 3600, latest]);
    const week = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?interval=1w`);
    expect(week.body.candles).toHaveLength(1);
    expect(week.body.candles[0].bucket_start).toBe(1699833600); // Monday 2023-11-13T00:00:00Z
    expect(new Date(1699833600 * 1000).getUTCDay()).toBe(1);
    expect(week.body.candles[0].trade_count).toBe(4);
    // 1m with limit 1000: the range starts at the launch bucket (fewer than 1000 minutes ago).
    const minutes = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?interval=1m&limit=1000`);
    expect(minutes.status).toBe(200);
    const launchMinute = Math.floor((T0 + 600) / 60) * 60;
    const latestMinute = Math.floor((T0 + 10 * 3600 + 5) / 60) * 60;
    expect(minutes.body.candles).toHaveLength((latestMinute - launchMinute) / 60 + 1);
    expect(minutes.body.candles[0].bucket_start).toBe(launchMinute);
    for (const c of minutes.body.candles) expect(c.bucket_start % 60).toBe(0);
    const recent = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?interval=1m&limit=100`);
    expect(recent.body.candles).toHaveLength(100);
    expect(recent.body.candles.at(-1).bucket_start).toBe(latestMinute);
    const day = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?interval=1d&limit=1000`);
    expect(day.body.candles.map((c: any) => c.bucket_start)).toEqual([1699920000, 1700006400]); // launch day, checkpoint day
  });

  test("error: interval and limit", async () => {
    for (const interval of ["2m", "1H", "", "week", "60"]) {
      const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?interval=${interval}`);
      expect(res.status, interval).toBe(400);
      expect(res.body.error.code).toBe("invalid_interval");
    }
    for (const limit of ["0", "1001", "abc", "2.5", ""]) {
      const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?limit=${limit}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    expect((await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?limit=1`)).body.candles).toHaveLength(1);
    expect((await h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?limit=1000`)).status).toBe(200);
  });

  describe("from, to, countback and currency", () => {
    const H0 = hour(T0 + 600); // launch bucket of token 1
    const H = (n: number) => H0 + n * 3600;
    const chart = (query: string) => h.get(`/api/v1/tokens/${tokenAddress(1)}/chart?${query}`);
    const starts = (body: any) => body.candles.map((c: any) => c.bucket_start);

    test("behavior: from and to include the buckets holding them; countback ends at to and wins over limit and from", async () => {
      const range = await chart(`from=${H(3) + 5}&to=${H(5)}`);
      expect(range.status).toBe(200);
      h.validate("/api/v1/tokens/{address}/chart", 200, range.body);
      expect(starts(range.body)).toEqual([H(3), H(4), H(5)]);
      expect(range.body.candles[0]).toMatchObject({
        trade_count: 1,
        volume: "10000000000000000",
        close_price: "210",
      });
      expect(starts((await chart(`to=${H(2) + 1}&limit=2`)).body)).toEqual([H(1), H(2)]);
      expect(starts((await chart(`countback=2&to=${H(5) + 3599}`)).body)).toEqual([H(4), H(5)]);
      expect(starts((await chart(`countback=2&to=${H(5)}&from=0&limit=7`)).body)).toEqual([H(4), H(5)]);
      // Clipped to the token's life: never before the launch bucket nor after the latest indexed one.
      expect(starts((await chart(`countback=1000&to=${H(1)}`)).body)).toEqual([H(0), H(1)]);
      expect(starts((await chart(`from=${H(9)}&to=${H(40)}`)).body)).toEqual([H(9), H(10)]);
      expect(starts((await chart(`from=${H(9)}`)).body)).toEqual([H(9), H(10)]);
      // A range outside it holds no bucket.
      expect((await chart(`to=${H0 - 1}`)).body.candles).toEqual([]);
      expect((await chart(`from=${H(11)}&to=${H(12)}`)).body.candles).toEqual([]);
      // 1000 buckets of 1m is the widest from–to span (answered up to the latest indexed minute).
      const minute = Math.floor((T0 + 600) / 60) * 60;
      const widest = await chart(`interval=1m&from=${minute}&to=${minute + 999 * 60}`);
      expect(widest.status).toBe(200);
      expect(widest.body.candles.at(-1).bucket_start).toBe(Math.floor((T0 + 10 * 3600 + 5) / 60) * 60);
    });

    test("behavior: currency=usd prices each bucket with the ETH/USD answer in force at its end", async () => {
      const answers: [number, number, bigint, number][] = [
        [50, 0, 2_000n * 10n ** 8n, H(1) + 10], // after the launch bucket's end: that bucket has none
        [300, 0, 3_000n * 10n ** 8n, H(3) + 3599], // the last second of H(3)
        [302, 1, 4_000n * 10n ** 8n, H(4)], // at H(3)'s end: in force from H(4) only
        [303, 0, -5n, H(5) + 10], // not positive: never applied
      ];
      const admin = h.admin;
      try {
        for (const [block, log, answer, updatedAt] of answers) {
          await admin.query(
            "INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at) VALUES ($1, $2, $5, $3, $4)",
            [block, log, answer.toString(), updatedAt, block],
          );
        }
        const res = await chart(`to=${H(5)}&countback=6&currency=usd`);
        expect(res.status).toBe(200);
        h.validate("/api/v1/tokens/{address}/chart", 200, res.body);
        expect(res.body).toMatchObject({ interval: "1h", currency: "usd" });
        expect(starts(res.body)).toEqual([H(0), H(1), H(2), H(3), H(4), H(5)]);
        const [launch, gap, , traded, fourth, fifth] = res.body.candles;
        // Trades but no answer in force: USD unknown.
        expect(launch).toEqual({
          bucket_start: H(0),
          trade_count: 3,
          buy_count: 2,
          sell_count: 1,
          volume: null,
          buy_volume: null,
          sell_volume: null,
          unique_trader_count: 2,
          open_price: null,
          high_price: null,
          low_price: null,
          close_price: null,
          eth_usd: null,
        });
        expect(gap).toMatchObject({ volume: "0", open_price: null, close_price: null, eth_usd: "2000" });
        // 0.01 ETH × 3000 = 30 USD; 210 wei per token × 3000 / 10^18 = 6.3e-13 USD per token.
        expect(traded).toEqual({
          bucket_start: H(3),
          trade_count: 1,
          buy_count: 1,
          sell_count: 0,
          volume: "30",
          buy_volume: "30",
          sell_volume: "0",
          unique_trader_count: 1,
          open_price: "0.00000000000063",
          high_price: "0.00000000000063",
          low_price: "0.00000000000063",
          close_price: "0.00000000000063",
          eth_usd: "3000",
        });
        expect(fourth.eth_usd).toBe("4000");
        expect(fifth.eth_usd).toBe("4000");
        // The wei chart is unchanged by currency's default.
        const eth = await chart(`to=${H(5)}&countback=6`);
        expect(eth.body.currency).toBeUndefined();
        expect(eth.body.candles[3]).toMatchObject({ volume: "10000000000000000", open_price: "210" });
        expect(eth.body.candles[3].eth_usd).toBeUndefined();
        expect((await chart(`to=${H(5)}&countback=6&currency=eth`)).body).toEqual(eth.body);
        // Removing the answer at H(3)'s end (as a reorg's undo does): H(4) and H(5) fall back to 3000.
        await admin.query("DELETE FROM eth_usd_answers WHERE block_number = 302");
        const without = (await chart(`to=${H(5)}&countback=6&currency=usd`)).body.candles;
        expect(without.map((c: { eth_usd: string | null }) => c.eth_usd)).toEqual([
          null,
          "2000",
          "2000",
          "3000",
          "3000",
          "3000",
        ]);
        // Removing them all: no answer in force anywhere.
        await admin.query("DELETE FROM eth_usd_answers WHERE block_number IN (50, 300, 303)");
        const none = (await chart(`to=${H(5)}&countback=6&currency=usd`)).body.candles;
        expect(none.every((c: { eth_usd: string | null }) => c.eth_usd === null)).toBe(true);
      } finally {
        await admin.query("DELETE FROM eth_usd_answers WHERE block_number IN (50, 300, 302, 303)");
      }
    });

    test("error: malformed from, to, countback or currency, from after to, a span over 1000 buckets", async () => {
      const bad: [string, string][] = [
        [`from=${H(3)}&to=${H(2)}`, "from"],
        ["from=abc", "from"],
        ["from=1.5", "from"],
        ["from=-1", "from"],
        ["from=1e9", "from"],
        ["from=", "from"],
        ["to=12345678901", "to"],
        ["to=0x10", "to"],
        ["from=1&from=2", "from"],
        ["countback=0", "countback"],
        ["countback=1001", "countback"],
        ["countback=ten", "countback"],
        ["currency=btc", "currency"],
        ["currency=USD", "currency"],
        ["currency=", "currency"],
        [`interval=1m&from=${T0}&to=${T0 + 1000 * 60}`, "from"],
        [`interval=1h&from=0`, "from"],
      ];
      for (const [query, field] of bad) {
        const res = await chart(query);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code, query).toBe("invalid_request");
        expect(res.body.error.details?.[0]?.field, query).toBe(field);
        h.validate("/api/v1/tokens/{address}/chart", 400, res.body);
      }
    });
  });
});

describe("trades and activity", () => {
  const order = (a: any, b: any) =>
    a.block_number - b.block_number ||
    a.transaction_index - b.transaction_index ||
    a.log_index - b.log_index ||
    (a.transaction_hash < b.transaction_hash ? -1 : a.transaction_hash > b.transaction_hash ? 1 : 0);

  for (const kind of ["trades", "activity"] as const) {
    test(`default: ${kind}`, async () => {
      const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/${kind}`);
      expect(res.status).toBe(200);
      h.validate(`/api/v1/tokens/{address}/${kind}`, 200, res.body);
      expect(res.body.items).toHaveLength(20);
      expect(res.body.next_cursor).toBeTypeOf("string");
      const sorted = [...res.body.items].sort(order).reverse();
      expect(res.body.items).toEqual(sorted);
      expect(res.body.items[0]).toMatchObject({ block_number: 132, log_index: 24 });
    });

    test(`behavior: ${kind} cursor walks in both orders visit every row once`, async () => {
      for (const limit of [1, 7, 25, 100]) {
        const desc = await walk(`/api/v1/tokens/${tokenAddress(1)}/${kind}`, limit);
        const asc = await walk(`/api/v1/tokens/${tokenAddress(1)}/${kind}?order=asc`, limit);
        expect(desc.items).toHaveLength(25);
        expect(new Set(desc.items.map((t) => `${t.block_number}:${t.log_index}`)).size).toBe(25);
        expect(asc.items).toEqual([...desc.items].reverse());
        expect(asc.items).toEqual([...asc.items].sort(order));
      }
    });

    test(`behavior: ${kind} of a token without rows is an empty page`, async () => {
      const res = await h.get(`/api/v1/tokens/${tokenAddress(5)}/${kind}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [] });
    });

    test(`error: ${kind} limits and order`, async () => {
      for (const q of ["limit=0", "limit=101", "limit=x", "limit=", "order=up"]) {
        const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/${kind}?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.body.error.code).toBe("invalid_request");
      }
      expect((await h.get(`/api/v1/tokens/${tokenAddress(1)}/${kind}?limit=100`)).body.items).toHaveLength(
        25,
      );
    });
  }

  test("behavior: trade fields", async () => {
    const res = await h.get(`/api/v1/tokens/${tokenAddress(1)}/trades?order=asc&limit=1`);
    expect(res.body.items[0]).toEqual({
      token_address: tokenAddress(1),
      trader: addr(0x500),
      side: "sell",
      token_amount: "1000000000000000000000",
      reserve_amount: "10000000000000000",
      curve_value: "10150000000000000",
      protocol_fee: "100000000000000",
      creator_fee: "50000000000000",
      source: "curve",
      block_number: 120,
      transaction_index: 0,
      transaction_hash: txHash(120_000),
      log_index: 0,
      reserve_amount_usd: null, // no ETH/USD answer indexed in these fixtures
    });
    const activity = await h.get(`/api/v1/tokens/${tokenAddress(1)}/activity?order=asc&limit=1`);
    expect(activity.body.items[0]).toEqual({
      event_name: "TokensSold",
      decoded: { token: tokenAddress(1), reserveAmount: "10000000000000000" },
      block_number: 120,
      transaction_index: 0,
      transaction_hash: txHash(120_000),
      log_index: 0,
    });
  });
});

describe("trending", () => {
  test("default", async () => {
    for (const url of ["/api/v1/tokens/trending", "/api/v1/trending"]) {
      const res = await h.get(url);
      expect(res.status).toBe(200);
      h.validate(url, 200, res.body);
      // The snapshot's tokens by rank, then every other token, newest launch first.
      expect(res.body.items.map((t: any) => t.address)).toEqual([
        ...[3, 1, 5, 7, 9, 12, 11, 10, 8, 6, 4, 2].map(tokenAddress),
        GRADUATED,
      ]);
      expect(res.body.next_cursor).toBeUndefined();
    }
  });

  test("behavior: a cursor keeps paging its snapshot after a newer one appears; a pruned snapshot's cursor is 400", async () => {
    const first = await h.get("/api/v1/trending?limit=2");
    expect(first.body.items.map((t: any) => t.address)).toEqual([3, 1].map(tokenAddress));
    await h.admin.query(
      `INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (2, 86400, 401, $1)`,
      [T0 + 12],
    );
    await h.admin.query(`INSERT INTO trending_entries VALUES (2, 1, $1, '5', 1, 1), (2, 2, $2, '4', 1, 1)`, [
      tokenAddress(12),
      tokenAddress(3),
    ]);
    const second = await h.get(`/api/v1/tokens/trending?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.items.map((t: any) => t.address)).toEqual([5, 7].map(tokenAddress));
    const third = await h.get(`/api/v1/trending?limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body.items.map((t: any) => t.address)).toEqual([9, 12].map(tokenAddress));
    // The second part (tokens outside the snapshot) stays on the cursor's snapshot too.
    const rest = await h.get(`/api/v1/trending?limit=100&cursor=${third.body.next_cursor}`);
    expect(rest.body.items.map((t: any) => t.address)).toEqual([
      ...[11, 10, 8, 6, 4, 2].map(tokenAddress),
      GRADUATED,
    ]);
    // New first pages come from the newest snapshot.
    expect((await h.get("/api/v1/trending?limit=3")).body.items.map((t: any) => t.address)).toEqual([
      tokenAddress(12),
      tokenAddress(3),
      tokenAddress(11),
    ]);
    await h.admin.query("DELETE FROM trending_snapshots WHERE id = 1");
    const gone = await h.get(`/api/v1/trending?limit=2&cursor=${second.body.next_cursor}`);
    expect(gone.status).toBe(400);
    expect(gone.body.error.code).toBe("invalid_request");
    // Restore snapshot 1 as the latest for the other tests.
    await h.admin.query("DELETE FROM trending_snapshots WHERE id = 2");
    await h.admin.query(
      `INSERT INTO trending_snapshots (id, window_seconds, as_of_block_number, as_of_timestamp) VALUES (3, 86400, 402, $1)`,
      [T0],
    );
    for (const [rank, i] of [3, 1, 5, 7, 9].entries()) {
      await h.admin.query(`INSERT INTO trending_entries VALUES (3, $1, $2, '1', 1, 1)`, [
        rank + 1,
        tokenAddress(i),
      ]);
    }
  });

  test("error: limit", async () => {
    for (const q of ["limit=0", "limit=101", "limit=1.5"]) {
      expect((await h.get(`/api/v1/trending?${q}`)).body.error.code).toBe("invalid_request");
    }
  });
});

describe("creators", () => {
  test("default", async () => {
    const res = await h.get(`/api/v1/creators/${CREATOR_A}?limit=4`);
    expect(res.status).toBe(200);
    h.validate("/api/v1/creators/{address}", 200, res.body);
    expect(res.body).toMatchObject({ address: CREATOR_A, token_count: 6, volume: "18000000000000000000" });
    expect(res.body.tokens.map((t: any) => t.address)).toEqual([6, 5, 4, 3].map(tokenAddress));
    expect(res.body.next_cursor).toBeTypeOf("string");
    // The profile's cursor pages the creator's tokens on either route.
    const rest = await h.get(`/api/v1/creators/${CREATOR_A}/tokens?limit=4&cursor=${res.body.next_cursor}`);
    expect(rest.status).toBe(200);
    h.validate("/api/v1/creators/{address}/tokens", 200, rest.body);
    expect(rest.body.items.map((t: any) => t.address)).toEqual([2, 1].map(tokenAddress));
    expect(rest.body.next_cursor).toBeUndefined();
    const again = await h.get(`/api/v1/creators/${CREATOR_A}?limit=4&cursor=${res.body.next_cursor}`);
    expect(again.body.tokens.map((t: any) => t.address)).toEqual([2, 1].map(tokenAddress));
  });

  test("behavior: creator tokens walk; an address without launches has a zero profile", async () => {
    const { items } = await walk(`/api/v1/creators/${CREATOR_B}/tokens`, 2);
    expect(items.map((t) => t.address)).toEqual([12, 11, 10, 9, 8, 7].map(tokenAddress).concat(GRADUATED));
    const nobody = await h.get(`/api/v1/creators/${NOBODY}`);
    expect(nobody.status).toBe(200);
    expect(nobody.body).toEqual({ address: NOBODY, token_count: 0, volume: "0", tokens: [] });
    const page = await h.get(`/api/v1/creators/${NOBODY}/tokens`);
    expect(page.body).toEqual({ items: [] });
  });

  test("error: malformed address and limits", async () => {
    for (const url of ["/api/v1/creators/0x1", "/api/v1/creators/nope/tokens"]) {
      const res = await h.get(url);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_address");
    }
    for (const q of ["limit=0", "limit=101", "limit=abc"]) {
      expect((await h.get(`/api/v1/creators/${CREATOR_A}?${q}`)).body.error.code).toBe("invalid_request");
      expect((await h.get(`/api/v1/creators/${CREATOR_A}/tokens?${q}`)).body.error.code).toBe(
        "invalid_request",
      );
    }
  });
});

describe("exclusions", () => {
  test("behavior: tokens and creators excluded with the CLI disappear from discovery at once", async () => {
    const visible = async () => {
      const [list, search, trending, creatorA, creatorB] = await Promise.all([
        h.get("/api/v1/tokens?limit=100"),
        h.get("/api/v1/tokens?search=alp&limit=100"),
        h.get("/api/v1/trending?limit=100"),
        h.get(`/api/v1/creators/${CREATOR_A}?limit=100`),
        h.get(`/api/v1/creators/${CREATOR_B}/tokens?limit=100`),
      ]);
      return {
        list: list.body.items.map((t: any) => t.address),
        search: search.body.items.map((t: any) => t.address),
        trending: trending.body.items.map((t: any) => t.address),
        creatorA: creatorA.body,
        creatorB: creatorB.body.items.map((t: any) => t.address),
      };
    };
    const before = await visible();
    expect(before.list).toContain(tokenAddress(1));

    expect(
      await exclusionsCli(
        "add",
        tokenAddress(1).toUpperCase().replace("0X", "0x"),
        "--kind",
        "token",
        "--reason",
        "spam",
      ),
    ).toContain("added");
    let now = await visible();
    expect(now.list).not.toContain(tokenAddress(1));
    expect(now.list).toHaveLength(12);
    expect(now.search).toEqual([tokenAddress(2)]);
    expect(now.trending).toEqual([...[3, 5, 7, 9, 12, 11, 10, 8, 6, 4, 2].map(tokenAddress), GRADUATED]);
    expect(now.creatorA.tokens.map((t: any) => t.address)).not.toContain(tokenAddress(1));
    expect(now.creatorA.token_count).toBe(5);
    expect(now.creatorA.volume).toBe("15000000000000000000");
    // Direct lookups are not discovery: detail still answers.
    expect((await h.get(`/api/v1/tokens/${tokenAddress(1)}`)).status).toBe(200);

    expect(await exclusionsCli("add", CREATOR_B, "--kind", "creator", "--reason", "abuse")).toContain(
      "added",
    );
    now = await visible();
    expect(now.list).toEqual([6, 5, 4, 3, 2].map(tokenAddress));
    expect(now.trending).toEqual([3, 5, 6, 4, 2].map(tokenAddress));
    expect(now.creatorB).toEqual([]);
    const profileB = await h.get(`/api/v1/creators/${CREATOR_B}`);
    expect(profileB.body).toEqual({ address: CREATOR_B, token_count: 0, volume: "0", tokens: [] });

    const listed = await exclusionsCli("list");
    expect(listed).toContain(`${tokenAddress(1)}\ttoken`);
    expect(listed).toContain(`${CREATOR_B}\tcreator`);
    expect(await exclusionsCli("remove", tokenAddress(1), "--kind", "token")).toContain("removed");
    expect(await exclusionsCli("remove", CREATOR_B, "--kind", "creator")).toContain("removed");
    expect(await visible()).toEqual(before);
  });

  test("error: CLI usage", async () => {
    await expect(exclusionsCli("add", "0x12", "--kind", "token", "--reason", "x")).rejects.toThrow(/address/);
    await expect(exclusionsCli("add", CREATOR_A, "--kind", "wallet", "--reason", "x")).rejects.toThrow(
      /--kind/,
    );
    await expect(exclusionsCli("add", CREATOR_A, "--kind", "token")).rejects.toThrow(/--reason/);
    await expect(exclusionsCli("frobnicate")).rejects.toThrow(/unknown command/);
  });
});

describe("http", () => {
  test("behavior: ETag and 304", async () => {
    const first = await h.get(`/api/v1/tokens/${tokenAddress(1)}`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const second = await h.get(`/api/v1/tokens/${tokenAddress(1)}`, { "if-none-match": etag });
    expect(second.status).toBe(304);
    expect(second.body).toBe("");
    expect(second.headers.etag).toBe(etag);
    const other = await h.get(`/api/v1/tokens/${tokenAddress(1)}`, { "if-none-match": '"other"' });
    expect(other.status).toBe(200);
    const list = await h.get("/api/v1/tokens");
    expect((await h.get("/api/v1/tokens", { "if-none-match": list.headers.etag as string })).status).toBe(
      304,
    );
  });

  test("behavior: request ids, 404 and 405", async () => {
    const res = await h.get("/api/v1/tokens", { "x-request-id": "client-id-1" });
    expect(res.headers["x-request-id"]).toBe("client-id-1");
    const unknown = await h.get("/api/v1/unknown");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    expect(unknown.body.error.request_id).toBe(unknown.headers["x-request-id"]);
    const post = await h.app.inject({ method: "POST", url: "/api/v1/tokens" });
    expect(post.statusCode).toBe(405);
    expect(post.json().error.code).toBe("method_not_allowed");
    const del = await h.app.inject({ method: "DELETE", url: `/api/v1/tokens/${tokenAddress(1)}` });
    expect(del.statusCode).toBe(405);
  });

  test("error: the HTTP server's own errors answer in the envelope with a request id", async () => {
    for (const [url, status, code] of [
      ["/api/v1/tokens/%E0%A4%A", 400, "invalid_request"],
      [`/api/v1/tokens/0x${"a".repeat(300)}`, 414, "uri_too_long"],
      [`/api/v1/creators/${"%zz".repeat(3)}`, 400, "invalid_request"],
    ] as const) {
      const res = await h.app.inject({ url, headers: { "x-request-id": "own-1" } });
      expect(res.statusCode, url).toBe(status);
      expect(res.headers["x-request-id"], url).toBe("own-1");
      expect(res.json(), url).toEqual({ error: { code, message: expect.any(String), request_id: "own-1" } });
      h.validate("/api/v1/tokens/{address}", 400, res.json());
    }
  });

  test("behavior: CORS with any origin", async () => {
    const res = await h.get("/api/v1/tokens", { origin: "https://app.example" });
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(String(res.headers["access-control-expose-headers"])).toContain("ETag");
    const preflight = await h.app.inject({
      method: "OPTIONS",
      url: `/api/v1/tokens/${tokenAddress(1)}/trades`,
      headers: { origin: "https://app.example", "access-control-request-method": "GET" },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers["access-control-allow-methods"]).toContain("GET");
  });

  test("behavior: health, readiness, OpenAPI document and reference page", async () => {
    expect((await h.get("/health")).body).toMatchObject({ status: "ok", service: "query-api" });
    expect((await h.get("/readyz")).body).toMatchObject({ status: "ready", service: "query-api" });
    const doc = await h.get("/api/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    for (const path of [
      "/api/v1/tokens",
      "/api/v1/tokens/newest",
      "/api/v1/tokens/trending",
      "/api/v1/trending",
      "/api/v1/tokens/{address}",
      "/api/v1/tokens/{address}/pricing",
      "/api/v1/tokens/{address}/chart",
      "/api/v1/tokens/{address}/trades",
      "/api/v1/tokens/{address}/activity",
      "/api/v1/creators/{address}",
      "/api/v1/creators/{address}/tokens",
    ]) {
      expect(doc.body.paths[path]?.get, path).toBeDefined();
    }
    expect((await h.get("/docs")).status).toBe(301);
    const page = await h.get("/docs/");
    expect(page.status).toBe(200);
    expect(String(page.headers["content-type"])).toContain("text/html");
    expect(page.body).toContain("/api/v1/openapi.json");
  });
});

describe("failures and configuration", () => {
  test("error: an unreachable database is 500 internal_error (and readiness 503)", async () => {
    const dead = createReadPool({ url: "postgresql://postgres@127.0.0.1:1/nowhere", max: 1 });
    const app = await buildApp({
      pool: dead,
      config: { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: "*" },
      logger: createLogger({ service: "query-api-test", level: "silent" }),
    });
    try {
      for (const url of [
        "/api/v1/tokens",
        "/api/v1/trending",
        `/api/v1/tokens/${tokenAddress(1)}`,
        `/api/v1/tokens/${tokenAddress(1)}/pricing`,
        `/api/v1/tokens/${tokenAddress(1)}/chart`,
        `/api/v1/tokens/${tokenAddress(1)}/trades`,
        `/api/v1/tokens/${tokenAddress(1)}/activity`,
        `/api/v1/creators/${CREATOR_A}`,
        `/api/v1/creators/${CREATOR_A}/tokens`,
      ]) {
        const res = await app.inject({ url });
        expect(res.statusCode, url).toBe(500);
        expect(res.json()).toEqual({
          error: {
            code: "internal_error",
            message: "internal server error",
            request_id: res.headers["x-request-id"],
          },
        });
        expect(res.headers["cache-control"]).toBe("no-store");
      }
      const ready = await app.inject({ url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().error.code).toBe("not_ready");
      expect((await app.inject({ url: "/health" })).statusCode).toBe(200);
    } finally {
      await app.close();
      await dead.end();
    }
  });

  test("error: a connection terminated by the server mid-query is 500 internal_error", async () => {
    const pool = createReadPool({ url: h.database.url, max: 1 });
    // Every query waits on the server first, so that the backend can be terminated while it runs.
    const slow = {
      async query(text: string, values?: unknown[]) {
        await pool.query("SELECT pg_sleep(1)");
        return pool.query(text, values);
      },
    };
    const app = await buildApp({
      pool: slow as never,
      config: { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: "*" },
      logger: createLogger({ service: "query-api-test", level: "silent" }),
    });
    try {
      const pending = app.inject({ url: `/api/v1/tokens/${tokenAddress(1)}/trades` });
      await waitFor(
        async () =>
          (
            await h.admin.query(
              "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid()",
            )
          ).rowCount === 1,
        { message: "the request's query is running" },
      );
      const killed = await h.admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid()",
      );
      expect(killed.rowCount).toBe(1);
      const res = await pending;
      expect(res.statusCode).toBe(500);
      expect(res.json().error.code).toBe("internal_error");
    } finally {
      await app.close();
      await pool.end();
    }
  });

  test("behavior: CORS with configured origins", async () => {
    const app = await buildApp({
      pool: h.pool,
      config: { cursorSecret: TEST_CURSOR_SECRET, corsOrigins: ["https://allowed.example"] },
      logger: createLogger({ service: "query-api-test", level: "silent" }),
    });
    try {
      const allowed = await app.inject({
        url: "/api/v1/tokens",
        headers: { origin: "https://allowed.example" },
      });
      expect(allowed.headers["access-control-allow-origin"]).toBe("https://allowed.example");
      expect(String(allowed.headers.vary)).toContain("Origin");
      const denied = await app.inject({ url: "/api/v1/tokens", headers: { origin: "https://evil.example" } });
      expect(denied.statusCode).toBe(200);
      expect(denied.headers["access-control-allow-origin"]).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  test("behavior: the server's pool is read-only", async () => {
    await expect(h.pool.query("DELETE FROM tokens")).rejects.toThrow(/read-only/);
  });
});
