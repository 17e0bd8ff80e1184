import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { devnetAggregatorAbi, devnetAggregatorBytecode } from "@tmi/contracts";
import {
  type Devnet,
  localPublicClient,
  localWalletClient,
  rpc,
  setEthUsdRound,
  setSequencerStatus,
  startDevnet,
} from "@tmi/devnet";
import { parseEnv } from "@tmi/shared/env";
import { createLogger } from "@tmi/shared/logger";
import { startServiceProcess, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "./app.js";
import { oracleEnvSchema } from "./config.js";
import { createFeedReader } from "./feed/feed-reader.js";
import { MULTICALL3_RUNTIME_BYTECODE } from "./test/multicall3-bytecode.js";

const logger = createLogger({ service: "oracle-price-test", level: "silent" });
/** Sends the 18-decimal feed's transactions (devnet account 8; the devnet's feed helpers use account 9). */
const OWN_ACCOUNT = 8;
/** Where the tests place Multicall3's code (the canonical address stays empty, like on a plain anvil). */
const TEST_MULTICALL3 = "0x00000000000000000000000000000000000ca113" as const;

let devnet: Devnet;
let feed18: `0x${string}`;
let roundId = 100n;

const now = () => BigInt(Math.floor(Date.now() / 1000));

/** Sets the latest ETH/USD round (a fresh round id each time); omitted fields describe a fresh, complete round. */
async function setRound(round: { answer: bigint; updatedAt?: bigint; answeredInRound?: bigint }) {
  roundId += 1n;
  const updatedAt = round.updatedAt ?? now() - 5n;
  await setEthUsdRound(devnet.rpcUrl, devnet.deployment, {
    roundId,
    answer: round.answer,
    startedAt: updatedAt,
    updatedAt,
    answeredInRound: round.answeredInRound ?? roundId,
  });
}

function appWith(env: Record<string, string | undefined>) {
  const config = parseEnv(oracleEnvSchema, {
    ORACLE_RPC_URL: devnet.rpcUrl,
    ORACLE_CHAIN_ID: String(devnet.chainId),
    ORACLE_ETH_USD_ADDRESS: devnet.deployment.contracts.ethUsdFeed,
    ORACLE_SEQUENCER_UPTIME_ADDRESS: devnet.deployment.contracts.sequencerUptimeFeed,
    ...env,
  });
  return buildApp({ logger, config });
}

async function getPrice(env: Record<string, string | undefined> = {}) {
  const app = appWith(env);
  try {
    const response = await app.inject({ method: "GET", url: "/api/v1/prices/eth-usd" });
    return {
      status: response.statusCode,
      headers: response.headers,
      // An answer or an error body (docs/api.md); tests read `error` only of a non-200 answer.
      body: response.json() as Record<string, unknown> & { error: { code: string; details?: unknown } },
    };
  } finally {
    await app.close();
  }
}

function detailFields(body: Record<string, unknown>): string[] {
  return ((body.error as { details?: { field: string }[] } | undefined)?.details ?? []).map((d) => d.field);
}

/** A TCP server that accepts connections and never answers (an RPC that hangs). */
async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => sockets.push(socket));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine" });
  const wallet = localWalletClient(devnet.rpcUrl, OWN_ACCOUNT, devnet.chainId);
  const client = localPublicClient(devnet.rpcUrl, devnet.chainId);
  const hash = await wallet.deployContract({
    abi: devnetAggregatorAbi,
    bytecode: devnetAggregatorBytecode,
    args: [18, "ETH / USD (18 decimals)"],
  });
  feed18 = (await client.waitForTransactionReceipt({ hash })).contractAddress as `0x${string}`;
  await rpc(devnet.rpcUrl, "anvil_setCode", [TEST_MULTICALL3, MULTICALL3_RUNTIME_BYTECODE]);
});

afterAll(async () => {
  await devnet?.stop();
});

beforeEach(async () => {
  // Every test starts from a fresh 3,012.45 USD round and a sequencer up for two hours.
  await setRound({ answer: 301245000000n });
  await setSequencerStatus(devnet.rpcUrl, devnet.deployment, { answer: 0n, startedAt: now() - 7200n });
});

describe("GET /api/v1/prices/eth-usd", () => {
  it("default", async () => {
    const updatedAt = now() - 30n;
    await setRound({ answer: 301245678900n, updatedAt });
    const { status, headers, body } = await getPrice();
    expect(status).toBe(200);
    expect(headers["cache-control"]).toBe("no-store");
    expect(headers["x-request-id"]).toBeTruthy();
    // The platform's shape (its running API and web client), plus the spec's `decimals`/`chain_id`.
    expect(body).toEqual({
      price: "3012.45678900",
      price_decimals: 8,
      updated_at: new Date(Number(updatedAt) * 1000).toISOString().replace(".000Z", "Z"),
      feed: devnet.deployment.contracts.ethUsdFeed.toLowerCase(),
      source: "chainlink_eth_usd",
      max_age_seconds: 1800,
      decimals: 8,
      chain_id: devnet.chainId,
      updated_at_unix: Number(updatedAt),
    });
    expect(body.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it("behavior: every request reads the feed again (no cache)", async () => {
    const app = appWith({});
    try {
      await setRound({ answer: 100000000n });
      expect((await app.inject({ url: "/api/v1/prices/eth-usd" })).json().price).toBe("1.00000000");
      await setRound({ answer: 200000001n });
      expect((await app.inject({ url: "/api/v1/prices/eth-usd" })).json().price).toBe("2.00000001");
    } finally {
      await app.close();
    }
  });

  it("behavior: floors an 18-decimal feed to 8 fractional digits", async () => {
    const wallet = localWalletClient(devnet.rpcUrl, OWN_ACCOUNT, devnet.chainId);
    const client = localPublicClient(devnet.rpcUrl, devnet.chainId);
    const t = now() - 3n;
    const hash = await wallet.writeContract({
      address: feed18,
      abi: devnetAggregatorAbi,
      functionName: "setRoundData",
      args: [7n, 3012456789012345678901n, t, t, 7n],
    });
    await client.waitForTransactionReceipt({ hash });
    const { status, body } = await getPrice({ ORACLE_ETH_USD_ADDRESS: feed18 });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      price: "3012.45678901",
      price_decimals: 8,
      decimals: 8,
      feed: feed18.toLowerCase(),
      updated_at_unix: Number(t),
    });
  });

  it("behavior: reads through Multicall3 when the chain has it, with the same answer", async () => {
    await setRound({ answer: 255501000000n });
    const reader = createFeedReader({
      rpcUrl: devnet.rpcUrl,
      feedAddress: devnet.deployment.contracts.ethUsdFeed,
      sequencerAddress: devnet.deployment.contracts.sequencerUptimeFeed,
      timeoutMs: 3000,
      multicall: "auto",
      multicallAddress: TEST_MULTICALL3,
    });
    const first = await reader.read();
    expect(first.via).toBe("batch");
    await waitFor(() => reader.multicallState() === "present", { timeoutMs: 5000 });
    const second = await reader.read();
    expect(second.via).toBe("multicall");
    expect({ ...second, via: "batch" }).toEqual(first);

    const config = parseEnv(oracleEnvSchema, {
      ORACLE_RPC_URL: devnet.rpcUrl,
      ORACLE_CHAIN_ID: String(devnet.chainId),
      ORACLE_ETH_USD_ADDRESS: devnet.deployment.contracts.ethUsdFeed,
      ORACLE_SEQUENCER_UPTIME_ADDRESS: devnet.deployment.contracts.sequencerUptimeFeed,
    });
    const app = buildApp({ logger, config, reader });
    try {
      const response = await app.inject({ url: "/api/v1/prices/eth-usd" });
      expect(response.json()).toMatchObject({ price: "2555.01000000", chain_id: devnet.chainId });
      await setSequencerStatus(devnet.rpcUrl, devnet.deployment, { answer: 1n, startedAt: now() - 10n });
      const down = await app.inject({ url: "/api/v1/prices/eth-usd" });
      expect(down.statusCode).toBe(503);
      expect(detailFields(down.json())).toEqual(["sequencer"]);
    } finally {
      await app.close();
    }
  });

  it("error: answer 0 and a negative answer", async () => {
    for (const answer of [0n, -123n]) {
      await setRound({ answer });
      const { status, headers, body } = await getPrice();
      expect(status).toBe(503);
      expect(headers["cache-control"]).toBe("no-store");
      expect(body).toEqual({
        error: {
          code: "oracle_unavailable",
          message: "the ETH/USD reference price is unavailable",
          request_id: expect.any(String),
          details: [{ field: "answer", reason: `the answer ${answer} is not positive` }],
        },
      });
    }
  });

  it("error: data older than ORACLE_ETH_USD_MAX_AGE", async () => {
    await setRound({ answer: 301245000000n, updatedAt: now() - 1900n });
    const stale = await getPrice();
    expect(stale.status).toBe(503);
    expect(detailFields(stale.body)).toEqual(["updated_at"]);
    // The same round is fresh enough under a longer max age.
    const tolerant = await getPrice({ ORACLE_ETH_USD_MAX_AGE: "2000" });
    expect(tolerant.status).toBe(200);
    expect(tolerant.body.max_age_seconds).toBe(2000);
  });

  it("error: incomplete rounds (updatedAt 0, answeredInRound < roundId)", async () => {
    await setRound({ answer: 301245000000n, updatedAt: 0n });
    const zero = await getPrice();
    expect(zero.status).toBe(503);
    expect(detailFields(zero.body)).toEqual(["round"]);

    await setRound({ answer: 301245000000n, answeredInRound: roundId });
    const carried = await getPrice();
    expect(carried.status).toBe(503);
    expect(carried.body.error.details).toEqual([
      { field: "round", reason: expect.stringMatching(/answeredInRound \d+ < roundId/) },
    ]);
  });

  it("error: sequencer down, then up for less than the grace period", async () => {
    await setSequencerStatus(devnet.rpcUrl, devnet.deployment, { answer: 1n, startedAt: now() - 120n });
    const down = await getPrice();
    expect(down.status).toBe(503);
    expect(down.body.error.details).toEqual([
      { field: "sequencer", reason: expect.stringContaining("down") },
    ]);

    await setSequencerStatus(devnet.rpcUrl, devnet.deployment, { answer: 0n, startedAt: now() - 60n });
    const recent = await getPrice();
    expect(recent.status).toBe(503);
    expect(recent.body.error.details).toEqual([
      { field: "sequencer", reason: expect.stringContaining("grace period") },
    ]);
    // With a shorter grace period the sequencer counts as up.
    expect((await getPrice({ ORACLE_SEQUENCER_GRACE_PERIOD: "30" })).status).toBe(200);
    // Without a sequencer feed configured, its status is not consulted.
    expect((await getPrice({ ORACLE_SEQUENCER_UPTIME_ADDRESS: undefined })).status).toBe(200);
  });

  it("error: RPC down, and an RPC that does not answer within ORACLE_TIMEOUT_MS", async () => {
    const down = await getPrice({ ORACLE_RPC_URL: await closedPortUrl() });
    expect(down.status).toBe(503);
    expect(down.body.error.details).toEqual([
      { field: "rpc", reason: expect.stringMatching(/^rpc_unreachable: /) },
    ]);

    const silent = await startSilentServer();
    try {
      const hung = await getPrice({ ORACLE_RPC_URL: silent.url, ORACLE_TIMEOUT_MS: "300" });
      expect(hung.status).toBe(503);
      expect(hung.body.error.details).toEqual([
        { field: "rpc", reason: expect.stringMatching(/^timeout: .*300 ms/) },
      ]);
    } finally {
      await silent.close();
    }
  });

  it("error: the RPC serves another chain than ORACLE_CHAIN_ID", async () => {
    const wrong = await getPrice({ ORACLE_CHAIN_ID: "8453" });
    expect(wrong.status).toBe(503);
    expect(wrong.body.error.details).toEqual([
      { field: "chain_id", reason: `the RPC serves chain ${devnet.chainId}, not ORACLE_CHAIN_ID 8453` },
    ]);
    const app = appWith({ ORACLE_CHAIN_ID: "8453" });
    try {
      const ready = await app.inject({ url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ error: { code: "not_ready" } });
    } finally {
      await app.close();
    }
  });

  it("error: settings missing", async () => {
    const { status, body } = await getPrice({ ORACLE_RPC_URL: undefined, ORACLE_ETH_USD_ADDRESS: undefined });
    expect(status).toBe(503);
    expect(body.error.details).toEqual([
      { field: "settings", reason: "ORACLE_RPC_URL is not set" },
      { field: "settings", reason: "ORACLE_ETH_USD_ADDRESS is not set" },
    ]);
    const app = appWith({ ORACLE_ETH_USD_ADDRESS: undefined });
    try {
      expect((await app.inject({ url: "/readyz" })).statusCode).toBe(503);
      expect((await app.inject({ url: "/health" })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("error: an address without a feed", async () => {
    const { status, body } = await getPrice({
      ORACLE_ETH_USD_ADDRESS: "0x000000000000000000000000000000000000dead",
    });
    expect(status).toBe(503);
    expect(body.error.details).toEqual([
      { field: "rpc", reason: expect.stringMatching(/^invalid_response: /) },
    ]);
  });
});

describe("oracle-price process", () => {
  it("default", async () => {
    const service = startServiceProcess({
      service: "oracle-price",
      env: {
        PORT: "0",
        ORACLE_RPC_URL: devnet.rpcUrl,
        ORACLE_CHAIN_ID: String(devnet.chainId),
        ORACLE_ETH_USD_ADDRESS: devnet.deployment.contracts.ethUsdFeed,
        ORACLE_SEQUENCER_UPTIME_ADDRESS: devnet.deployment.contracts.sequencerUptimeFeed,
      },
    });
    try {
      const address = await waitFor(() => /"address":"(http:\/\/[^"]+)"/.exec(service.output())?.[1], {
        timeoutMs: 30_000,
        message: "oracle-price did not start",
      });
      const ready = await fetch(`${address}/readyz`);
      expect(await ready.json()).toMatchObject({ status: "ready", service: "oracle-price" });
      const price = await fetch(`${address}/api/v1/prices/eth-usd`, {
        headers: { "x-request-id": "oracle-e2e-1" },
      });
      expect(price.status).toBe(200);
      expect(price.headers.get("x-request-id")).toBe("oracle-e2e-1");
      expect(await price.json()).toMatchObject({ price: "3012.45000000", source: "chainlink_eth_usd" });
      expect(await service.stop()).toBe(0);
    } finally {
      await service.kill();
    }
  });
});
