import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadIndexerConfig } from "./config.js";

const NO_FILE = { DEPLOYMENT_FILE: "/nonexistent/devnet.json" };

function deploymentFile(contents: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "indexer-config-"));
  const path = join(dir, "devnet.json");
  writeFileSync(path, JSON.stringify(contents));
  return path;
}

describe("loadIndexerConfig", () => {
  it("default", () => {
    const c = loadIndexerConfig({
      ...NO_FILE,
      RPC_URL: "http://127.0.0.1:9999",
      CHAIN_ID: "8453",
      FACTORY_ADDRESS: "0x00000000000000000000000000000000000000AA",
      START_BLOCK: "12",
    });
    expect(c.FACTORY_ADDRESS).toBe("0x00000000000000000000000000000000000000aa");
    expect(c.START_BLOCK).toBe(12);
    expect(c.CHAIN_ID).toBe(8453);
    expect(c.RPC_URL).toBe("http://127.0.0.1:9999");
    expect(c.WETH_ADDRESS).toBeNull();
    expect(c.GRADUATION_MANAGER_ADDRESS).toBeNull();
    expect(c.ETH_USD_FEED_ADDRESS).toBeNull();
    expect(c.sources.FACTORY_ADDRESS).toBe("env");
    expect(c.KNOWN_TOKENS_CACHE).toBe(50_000);
  });

  it("behavior: KNOWN_TOKENS_CACHE is a positive token count", () => {
    const base = {
      ...NO_FILE,
      RPC_URL: "http://127.0.0.1:9999",
      CHAIN_ID: "8453",
      FACTORY_ADDRESS: "0x00000000000000000000000000000000000000aa",
      START_BLOCK: "1",
    };
    expect(loadIndexerConfig({ ...base, KNOWN_TOKENS_CACHE: "2000" }).KNOWN_TOKENS_CACHE).toBe(2_000);
    expect(() => loadIndexerConfig({ ...base, KNOWN_TOKENS_CACHE: "0" })).toThrow();
  });

  it("behavior: NETWORK=base fills the Base mainnet deployment", () => {
    const c = loadIndexerConfig({ ...NO_FILE, NETWORK: "base", RPC_URL: "https://base.example/rpc" });
    expect(c.CHAIN_ID).toBe(8453);
    expect(c.FACTORY_ADDRESS).toBe("0x90B371F571975a0b0693Dc3C46Eea19733c72ddD".toLowerCase());
    expect(c.START_BLOCK).toBe(50_184_361);
    expect(c.WETH_ADDRESS).toBe("0x4200000000000000000000000000000000000006");
    expect(c.GRADUATION_MANAGER_ADDRESS).toBe("0x5917ce7AFF3a5F276334464E3dEa2a96e94c81D8".toLowerCase());
    expect(c.FEE_MANAGER_ADDRESS).toBe("0x016b62B2597954a0C3c2a3a800A9ec29182A1915".toLowerCase());
    expect(c.ETH_USD_FEED_ADDRESS).toBe("0x71041dddad3595F9CEd3DcCFBe3D1F4b0a16Bb70".toLowerCase());
    expect(c.sources.START_BLOCK).toBe("network");
  });

  it("behavior: settings in the environment win over NETWORK", () => {
    const c = loadIndexerConfig({
      ...NO_FILE,
      NETWORK: "base",
      RPC_URL: "http://127.0.0.1:8545",
      START_BLOCK: "50200000",
      CHAIN_ID: "31337",
    });
    expect(c.START_BLOCK).toBe(50_200_000);
    expect(c.CHAIN_ID).toBe(31337);
    expect(c.FACTORY_ADDRESS).toBe("0x90b371f571975a0b0693dc3c46eea19733c72ddd");
    expect(c.sources).toMatchObject({ START_BLOCK: "env", CHAIN_ID: "env", FACTORY_ADDRESS: "network" });
  });

  it("behavior: NETWORK ignores the devnet deployment file", () => {
    const file = deploymentFile({
      chainId: 31337,
      startBlock: 3,
      contracts: {
        factory: "0x00000000000000000000000000000000000000cc",
        weth: "0x00000000000000000000000000000000000000dd",
      },
    });
    const c = loadIndexerConfig({ DEPLOYMENT_FILE: file, NETWORK: "base", RPC_URL: "http://x.example" });
    expect(c.FACTORY_ADDRESS).toBe("0x90b371f571975a0b0693dc3c46eea19733c72ddd");
    expect(c.WETH_ADDRESS).toBe("0x4200000000000000000000000000000000000006");
  });

  it("behavior: the deployment file fills what is unset when it describes the same factory", () => {
    const file = deploymentFile({
      chainId: 31337,
      rpcUrl: "http://127.0.0.1:8545",
      startBlock: 3,
      contracts: {
        factory: "0x00000000000000000000000000000000000000CC",
        weth: "0x00000000000000000000000000000000000000dd",
        graduationManager: "0x00000000000000000000000000000000000000ee",
        feeManager: "0x00000000000000000000000000000000000000ff",
        ethUsdFeed: "0x0000000000000000000000000000000000000011",
      },
    });
    const same = loadIndexerConfig({ DEPLOYMENT_FILE: file });
    expect(same).toMatchObject({
      FACTORY_ADDRESS: "0x00000000000000000000000000000000000000cc",
      START_BLOCK: 3,
      CHAIN_ID: 31337,
      WETH_ADDRESS: "0x00000000000000000000000000000000000000dd",
      GRADUATION_MANAGER_ADDRESS: "0x00000000000000000000000000000000000000ee",
      FEE_MANAGER_ADDRESS: "0x00000000000000000000000000000000000000ff",
      ETH_USD_FEED_ADDRESS: "0x0000000000000000000000000000000000000011",
    });
    expect(same.sources.FACTORY_ADDRESS).toBe("deployment");
    // Another factory: the file's start block, WETH and feed are not this factory's.
    expect(() =>
      loadIndexerConfig({
        DEPLOYMENT_FILE: file,
        FACTORY_ADDRESS: "0x00000000000000000000000000000000000000ab",
      }),
    ).toThrow(/START_BLOCK is not set/);
    const other = loadIndexerConfig({
      DEPLOYMENT_FILE: file,
      FACTORY_ADDRESS: "0x00000000000000000000000000000000000000ab",
      START_BLOCK: "7",
    });
    expect(other.WETH_ADDRESS).toBeNull();
    expect(other.ETH_USD_FEED_ADDRESS).toBeNull();
    expect(other.CHAIN_ID).toBe(31337);
  });

  it("error: NETWORK without RPC_URL, and no factory, are reported together", () => {
    expect(() => loadIndexerConfig({ ...NO_FILE, NETWORK: "base" })).toThrow(/RPC_URL is not set/);
    expect(() => loadIndexerConfig({ ...NO_FILE })).toThrow(
      /FACTORY_ADDRESS is not set[\s\S]*START_BLOCK is not set/,
    );
    expect(() => loadIndexerConfig({ ...NO_FILE, NETWORK: "mainnet" })).toThrow(/NETWORK/);
  });
});
