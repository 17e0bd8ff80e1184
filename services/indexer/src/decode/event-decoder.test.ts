import { aggregatorV3Abi, erc20Abi, launchpadAbi, uniswapV3PoolAbi } from "@tmi/shared/chain";
import { encodeAbiParameters, encodeEventTopics, getAddress, type Hex, toEventSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ALL_TOPIC0, decodedJson, decodedJsonText, decodeLog, type RpcLog, TOPIC0 } from "./event-decoder.js";

const TOKEN = "0x00000000000000000000000000000000000000aa";
const USER = getAddress("0xabcdef0000000000000000000000000000000001");

function log(topics: (Hex | null)[], data: Hex, extra: Partial<RpcLog> = {}): RpcLog {
  return {
    address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    topics: topics as string[],
    data,
    blockNumber: "0x10",
    blockHash: "0xABCD",
    blockTimestamp: "0x64",
    transactionHash: "0xFEED",
    transactionIndex: "0x2",
    logIndex: "0x5",
    ...extra,
  };
}

describe("decodeLog", () => {
  it("default", () => {
    const topics = encodeEventTopics({
      abi: launchpadAbi,
      eventName: "TokensBought",
      args: { token: TOKEN, buyer: USER },
    });
    const data = encodeAbiParameters(
      Array.from({ length: 7 }, () => ({ type: "uint256" })),
      [1n, 2n, 3n, 4n, 5n, 10n ** 30n, 2n ** 256n - 1n],
    );
    const e = decodeLog(log(topics, data))!;
    expect(e).toMatchObject({
      name: "TokensBought",
      address: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      blockNumber: 16,
      blockHash: "0xabcd",
      blockTimestamp: 100,
      transactionHash: "0xfeed",
      transactionIndex: 2,
      logIndex: 5,
    });
    expect(e.args).toEqual({
      token: TOKEN,
      buyer: USER.toLowerCase(),
      reserveAmount: 1n,
      tokenAmount: 2n,
      curveValue: 3n,
      protocolFee: 4n,
      creatorFee: 5n,
      reserveBalance: 10n ** 30n,
      tokenBalance: 2n ** 256n - 1n,
    });
    expect(decodedJson(e.args)).toMatchObject({ token: TOKEN, tokenBalance: (2n ** 256n - 1n).toString() });
  });

  it("behavior: dynamic strings of TokenCreated decode through the ABI", () => {
    const topics = encodeEventTopics({
      abi: launchpadAbi,
      eventName: "TokenCreated",
      args: { token: TOKEN, creator: USER },
    });
    const data = encodeAbiParameters(
      [
        { type: "string" },
        { type: "string" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
      ],
      ["Ünïcode \t name", "SYM", 10n ** 27n, 1n, 2n, 3n],
    );
    expect(decodeLog(log(topics, data))!.args).toEqual({
      token: TOKEN,
      creator: USER.toLowerCase(),
      name: "Ünïcode \t name",
      symbol: "SYM",
      initialSupply: 10n ** 27n,
      reserveBalance: 1n,
      tokenBalance: 2n,
      graduationThreshold: 3n,
    });
  });

  it("behavior: signed Swap amounts and int24 ticks are two's complement", () => {
    const topics = encodeEventTopics({
      abi: uniswapV3PoolAbi,
      eventName: "Swap",
      args: { sender: USER, recipient: TOKEN },
    });
    const data = encodeAbiParameters(
      [{ type: "int256" }, { type: "int256" }, { type: "uint160" }, { type: "uint128" }, { type: "int24" }],
      [-5n, 7n, 2n ** 96n, 1000n, -887200],
    );
    expect(decodeLog(log(topics, data))!.args).toEqual({
      sender: USER.toLowerCase(),
      recipient: TOKEN,
      amount0: -5n,
      amount1: 7n,
      sqrtPriceX96: 2n ** 96n,
      liquidity: 1000n,
      tick: -887200n,
    });
  });

  it("behavior: Transfer, TokenGraduated and AnswerUpdated (all indexed) decode", () => {
    const transfer = encodeEventTopics({
      abi: erc20Abi,
      eventName: "Transfer",
      args: { from: USER, to: TOKEN },
    });
    expect(decodeLog(log(transfer, encodeAbiParameters([{ type: "uint256" }], [42n])))!.args).toEqual({
      from: USER.toLowerCase(),
      to: TOKEN,
      value: 42n,
    });
    const answer = encodeEventTopics({
      abi: aggregatorV3Abi,
      eventName: "AnswerUpdated",
      args: { current: -3n, roundId: 9n },
    });
    expect(decodeLog(log(answer, encodeAbiParameters([{ type: "uint256" }], [1700n])))!.args).toEqual({
      current: -3n,
      roundId: 9n,
      updatedAt: 1700n,
    });
    expect(ALL_TOPIC0).toContain(TOPIC0.TokenGraduated);
  });

  it("error: unknown topic0, missing topics and short data give null", () => {
    const other = toEventSelector(
      "event Approval(address indexed owner, address indexed spender, uint256 value)",
    );
    expect(decodeLog(log([other, null, null], "0x"))).toBeNull();
    // An ERC-721 Transfer has the same topic0 but the amount indexed: four topics.
    const transfer = encodeEventTopics({
      abi: erc20Abi,
      eventName: "Transfer",
      args: { from: USER, to: TOKEN },
    });
    expect(decodeLog(log([...transfer, `0x${"0".repeat(64)}`], "0x"))).toBeNull();
    expect(decodeLog(log(transfer, "0x"))).toBeNull();
    expect(decodeLog(log([], "0x"))).toBeNull();
  });
});

describe("decodedJsonText", () => {
  it("default", () => {
    const args = {
      token: "0xab",
      name: 'quote " back\\slash \n ünï',
      amount: 12345678901234567890123n,
      neg: -5n,
      flag: true,
    };
    expect(JSON.parse(decodedJsonText(args, { pool: "0xcd" }))).toEqual(decodedJson(args, { pool: "0xcd" }));
    expect(decodedJsonText(args, { pool: "0xcd" })).toBe(JSON.stringify(decodedJson(args, { pool: "0xcd" })));
  });
});
