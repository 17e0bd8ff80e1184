import { parseEnv } from "@tmi/shared/env";
import { describe, expect, it } from "vitest";
import { corsOrigins, gatewayEnvSchema } from "./config.js";
import { upstreamError } from "./routes/proxy-routes.js";

describe("gatewayEnvSchema", () => {
  it("default", () => {
    expect(parseEnv(gatewayEnvSchema, {})).toMatchObject({
      GATEWAY_PORT: 8080,
      QUERY_API_URL: ["http://127.0.0.1:3001"],
      METADATA_API_URL: ["http://127.0.0.1:3002"],
      ORACLE_PRICE_URL: ["http://127.0.0.1:3003"],
      RATE_LIMIT_PER_MINUTE: 600,
      TRUST_PROXY: false,
      UPSTREAM_TIMEOUT_MS: 10_000,
      GATEWAY_MAX_EVENT_LOOP_DELAY_MS: 200,
      GATEWAY_MAX_EVENT_LOOP_UTILIZATION: 0,
      GATEWAY_RATE_LIMIT_FREE_PER_MIN: 1_200,
      GATEWAY_RATE_LIMIT_PRO_PER_MIN: 6_000,
      API_KEY_CACHE_MS: 500,
    });
  });

  it("error: an API key cache longer than 1 s (a revocation must reach every replica within it)", () => {
    expect(parseEnv(gatewayEnvSchema, { API_KEY_CACHE_MS: "0" }).API_KEY_CACHE_MS).toBe(0);
    expect(() => parseEnv(gatewayEnvSchema, { API_KEY_CACHE_MS: "1001" })).toThrow(/API_KEY_CACHE_MS/);
    expect(() => parseEnv(gatewayEnvSchema, { GATEWAY_RATE_LIMIT_PRO_PER_MIN: "0" })).toThrow(
      /GATEWAY_RATE_LIMIT_PRO_PER_MIN/,
    );
  });

  it("behavior: lists of upstream replicas, trusted proxies and origins", () => {
    const env = parseEnv(gatewayEnvSchema, {
      QUERY_API_URL: "http://10.0.0.1:3001/, http://10.0.0.2:3001",
      TRUST_PROXY: "10.0.0.0/8,loopback",
      RATE_LIMIT_PER_MINUTE: "0",
    });
    expect(env.QUERY_API_URL).toEqual(["http://10.0.0.1:3001", "http://10.0.0.2:3001"]);
    expect(env.TRUST_PROXY).toEqual(["10.0.0.0/8", "loopback"]);
    expect(env.RATE_LIMIT_PER_MINUTE).toBe(0);
    expect(parseEnv(gatewayEnvSchema, { TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
    expect(corsOrigins("*")).toBe(true);
    expect(corsOrigins("https://a.example, https://b.example")).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
  });

  it("error: malformed upstream URLs", () => {
    expect(() => parseEnv(gatewayEnvSchema, { METADATA_API_URL: "ftp://x" })).toThrow(/METADATA_API_URL/);
  });
});

describe("upstreamError", () => {
  it("default", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const error = upstreamError("query-api", Object.assign(new Error("Internal"), { cause: refused }));
    expect(error).toMatchObject({
      code: "service_unavailable",
      status: 503,
      message: "query-api is unreachable",
    });
  });

  it("behavior: timeouts are 504 upstream_timeout, anything else 503", () => {
    const timeout = Object.assign(new Error("Gateway Timeout"), { code: "FST_REPLY_FROM_GATEWAY_TIMEOUT" });
    expect(upstreamError("metadata-api", timeout)).toMatchObject({ code: "upstream_timeout", status: 504 });
    expect(upstreamError("oracle-price", new Error("odd"))).toMatchObject({
      code: "service_unavailable",
      status: 503,
    });
  });
});
