import { describe, expect, test } from "vitest";
import { DEV_CURSOR_SECRET, loadQueryApiSettings, parseCorsOrigins, parseTrustProxy } from "./config.js";

describe("loadQueryApiSettings", () => {
  test("default", () => {
    const settings = loadQueryApiSettings({});
    expect(settings).toMatchObject({
      port: 3001,
      databaseUrl: "postgresql://postgres@127.0.0.1:5432/tmi",
      databaseReadUrl: "postgresql://postgres@127.0.0.1:5432/tmi",
      cursorSecret: DEV_CURSOR_SECRET,
      cursorSecretIsDefault: true,
      corsOrigins: "*",
      poolMax: 10,
      dexScreener: {
        dexKey: "zonkfun",
        wethAddress: "0x4200000000000000000000000000000000000006",
        maxBlockRange: 10_000,
      },
    });
  });

  test("behavior and error: the DEX Screener adapter's settings", () => {
    const settings = loadQueryApiSettings({
      DEXSCREENER_DEX_KEY: "my-dex",
      WETH_ADDRESS: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2",
      DEXSCREENER_MAX_BLOCK_RANGE: "500",
    });
    expect(settings.dexScreener).toEqual({
      dexKey: "my-dex",
      wethAddress: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
      maxBlockRange: 500,
    });
    expect(() => loadQueryApiSettings({ WETH_ADDRESS: "0x12" })).toThrow(/WETH_ADDRESS/);
    expect(() => loadQueryApiSettings({ DEXSCREENER_DEX_KEY: "Bad Key" })).toThrow(/DEXSCREENER_DEX_KEY/);
    expect(() => loadQueryApiSettings({ DEXSCREENER_MAX_BLOCK_RANGE: "0" })).toThrow(
      /DEXSCREENER_MAX_BLOCK_RANGE/,
    );
  });

  test("behavior: read replica, origins and pool size", () => {
    const settings = loadQueryApiSettings({
      DATABASE_URL: "postgresql://a/primary",
      DATABASE_READ_URL: "postgresql://b/replica",
      CORS_ORIGINS: "https://a.example, https://b.example,",
      DB_POOL_MAX: "32",
      CURSOR_SECRET: "s".repeat(16),
    });
    expect(settings.databaseReadUrl).toBe("postgresql://b/replica");
    expect(settings.corsOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(settings.poolMax).toBe(32);
    expect(settings.cursorSecretIsDefault).toBe(false);
  });

  test("error: production needs CURSOR_SECRET; short secrets and bad URLs are refused", () => {
    expect(() => loadQueryApiSettings({ NODE_ENV: "production" })).toThrow(/CURSOR_SECRET/);
    expect(() => loadQueryApiSettings({ CURSOR_SECRET: "short" })).toThrow(/CURSOR_SECRET/);
    expect(() => loadQueryApiSettings({ DATABASE_READ_URL: "mysql://x" })).toThrow(/DATABASE_READ_URL/);
    expect(loadQueryApiSettings({ NODE_ENV: "production", CURSOR_SECRET: "x".repeat(20) }).cursorSecret).toBe(
      "x".repeat(20),
    );
  });
});

describe("parseCorsOrigins", () => {
  test("default", () => {
    expect(parseCorsOrigins("*")).toBe("*");
    expect(parseCorsOrigins("https://a.example")).toEqual(["https://a.example"]);
  });
});

describe("parseTrustProxy", () => {
  test("default", () => {
    expect(loadQueryApiSettings({}).trustProxy).toBe(false);
    expect(parseTrustProxy("false")).toBe(false);
    expect(parseTrustProxy("true")).toBe(true);
    expect(parseTrustProxy("loopback, 10.0.0.0/8,::1")).toEqual(["loopback", "10.0.0.0/8", "::1"]);
    expect(loadQueryApiSettings({ TRUST_PROXY: "127.0.0.1" }).trustProxy).toEqual(["127.0.0.1"]);
  });

  test("error: hop counts, host names and bad CIDRs are refused", () => {
    for (const value of ["1", "gateway", "10.0.0.0/33", "10.0.0.1/8/1", ","])
      expect(parseTrustProxy(value), value).toBeUndefined();
    expect(() => loadQueryApiSettings({ TRUST_PROXY: "2" })).toThrow(/TRUST_PROXY/);
  });
});
