import { parseEnv } from "@tmi/shared/env";
import { describe, expect, it } from "vitest";
import { missingOracleSettings, oracleEnvSchema } from "./config.js";

describe("oracleEnvSchema", () => {
  it("default", () => {
    const env = parseEnv(oracleEnvSchema, {});
    expect(env).toMatchObject({
      PORT: 3003,
      ORACLE_CHAIN_ID: 8453,
      ORACLE_ETH_USD_MAX_AGE: 1800,
      ORACLE_SEQUENCER_GRACE_PERIOD: 3600,
      ORACLE_TIMEOUT_MS: 3000,
      ORACLE_MULTICALL: "auto",
    });
    expect(missingOracleSettings(env)).toEqual(["ORACLE_RPC_URL", "ORACLE_ETH_USD_ADDRESS"]);
  });

  it("behavior: addresses are lowercased and a full configuration misses nothing", () => {
    const env = parseEnv(oracleEnvSchema, {
      ORACLE_RPC_URL: "http://127.0.0.1:8545",
      ORACLE_ETH_USD_ADDRESS: "0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70",
    });
    expect(env.ORACLE_ETH_USD_ADDRESS).toBe("0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70");
    expect(missingOracleSettings(env)).toEqual([]);
  });

  it("behavior: NETWORK=base fills the chain id and the Chainlink ETH/USD feed of Base mainnet", () => {
    const env = parseEnv(oracleEnvSchema, { NETWORK: "base", ORACLE_RPC_URL: "https://base.example" });
    expect(env.ORACLE_CHAIN_ID).toBe(8453);
    expect(env.ORACLE_ETH_USD_ADDRESS).toBe("0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70");
    expect(missingOracleSettings(env)).toEqual([]);
    const own = parseEnv(oracleEnvSchema, {
      NETWORK: "base",
      ORACLE_ETH_USD_ADDRESS: "0x00000000000000000000000000000000000000AA",
    });
    expect(own.ORACLE_ETH_USD_ADDRESS).toBe("0x00000000000000000000000000000000000000aa");
  });

  it("error: malformed values are rejected at start", () => {
    expect(() =>
      parseEnv(oracleEnvSchema, { ORACLE_RPC_URL: "ws://x", ORACLE_ETH_USD_ADDRESS: "0x12" }),
    ).toThrow(/ORACLE_RPC_URL[\s\S]*ORACLE_ETH_USD_ADDRESS/);
  });
});
