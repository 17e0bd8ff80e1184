import {
  aggregatorProxyAbi,
  aggregatorV3Abi,
  erc20Abi,
  feeManagerV3Abi,
  graduationManagerV3Abi,
  uniswapV3PoolAbi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { encodeAbiParameters, encodeEventTopics, getAddress, type Hex, toEventSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ALL_TOPIC0, decodeLog, TOPIC0 } from "../events/index.js";
import { copyValue } from "../sql/sql-text.js";
import { decodedJson, decodedJsonText, type RpcLog } from "./event-decoder.js";

const TOKEN = "0x00000000000000000000000000000000000000aa";
const USER = getAddress("0xabcdef0000000000000000000000000000000001");

/** A raw log of `topics` as viem's `encodeEventTopics` gives them (a null topic is written as null, as some nodes do). */
function log(topics: readonly (Hex | Hex[] | null)[], data: Hex, extra: Partial<RpcLog> = {}): RpcLog {
  return {
    address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    topics: topics as unknown as string[],
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
      abi: zonkCurveV3Abi,
      eventName: "TokensBought",
      args: { token: TOKEN, buyer: USER },
    });
    const data = encodeAbiParameters(
      Array.from({ length: 10 }, () => ({ type: "uint256" })),
      [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 10n ** 30n, 2n ** 256n - 1n],
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
      submittedGross: 1n,
      acceptedGross: 2n,
      netCurveInput: 3n,
      tokensOut: 4n,
      totalFee: 5n,
      creatorFee: 6n,
      protocolFee: 7n,
      communityFee: 8n,
      traderRewardsFee: 10n ** 30n,
      refund: 2n ** 256n - 1n,
    });
    expect(decodedJson(e.args)).toMatchObject({ token: TOKEN, refund: (2n ** 256n - 1n).toString() });
  });

  it("behavior: TokenLaunchedV3 decodes its string through the ABI, sanitized", () => {
    const topics = encodeEventTopics({
      abi: zonkFactoryV3Abi,
      eventName: "TokenLaunchedV3",
      args: { creator: USER, token: TOKEN, curve: TOKEN },
    });
    const data = encodeAbiParameters(
      [
        { type: "string" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "address" },
        { type: "address" },
        { type: "bytes32" },
        { type: "bytes32" },
        { type: "uint16" },
      ],
      [
        "endpoint\u0000-cp-v3",
        10n ** 27n,
        8n * 10n ** 26n,
        2n * 10n ** 26n,
        USER,
        USER,
        `0x${"AB".repeat(32)}`,
        `0x${"00".repeat(31)}01`,
        7,
      ],
    );
    expect(decodeLog(log(topics, data))!.args).toEqual({
      creator: USER.toLowerCase(),
      token: TOKEN,
      curve: TOKEN,
      protocolVersion: "endpoint\uFFFD-cp-v3",
      totalSupply: 10n ** 27n,
      curveAllocation: 8n * 10n ** 26n,
      lpAllocation: 2n * 10n ** 26n,
      initialCreatorPayout: USER.toLowerCase(),
      canonicalPool: USER.toLowerCase(),
      launchSeed: `0x${"ab".repeat(32)}`,
      candidateSalt: `0x${"00".repeat(31)}01`,
      attemptIndex: 7,
    });
  });

  it("behavior: manager and fee manager events decode", () => {
    const v3 = encodeEventTopics({
      abi: graduationManagerV3Abi,
      eventName: "GraduatedV3",
      args: { token: TOKEN, custodian: USER, tokenId: 12n },
    });
    expect(decodeLog(log(v3, encodeAbiParameters([{ type: "uint128" }], [99n])))!).toMatchObject({
      name: "GraduatedV3",
      args: { token: TOKEN, custodian: USER.toLowerCase(), tokenId: 12n, liquidity: 99n },
    });
    const fees = encodeEventTopics({
      abi: feeManagerV3Abi,
      eventName: "FeesDeposited",
      args: { token: TOKEN, curve: USER, isBuy: true },
    });
    const data = encodeAbiParameters(
      Array.from({ length: 5 }, () => ({ type: "uint256" })),
      [100n, 35n, 30n, 20n, 15n],
    );
    expect(decodeLog(log(fees, data))!.args).toEqual({
      token: TOKEN,
      curve: USER.toLowerCase(),
      isBuy: true,
      totalFee: 100n,
      creatorFee: 35n,
      protocolFee: 30n,
      communityFee: 20n,
      traderRewardsFee: 15n,
    });
    const fwd = encodeEventTopics({ abi: zonkCurveV3Abi, eventName: "GraduationReserveForwarded" });
    expect(
      decodeLog(log(fwd, encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [3n, 4n])))!.args,
    ).toEqual({
      terminalReserveCoordinate: 3n,
      ethForwarded: 4n,
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
      tick: -887200,
    });
  });

  it("behavior: Transfer, AnswerUpdated and AggregatorConfirmed (all indexed) decode", () => {
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
    const confirmed = encodeEventTopics({
      abi: aggregatorProxyAbi,
      eventName: "AggregatorConfirmed",
      args: { previous: USER, latest: TOKEN },
    });
    expect(decodeLog(log(confirmed, "0x"))).toMatchObject({
      name: "AggregatorConfirmed",
      args: { previous: USER.toLowerCase(), latest: TOKEN },
    });
    expect(ALL_TOPIC0).toContain(TOPIC0.Graduated);
    // 18 before the fee economy (issue 29), + 11 of its events, + the distributor's 2
    expect(ALL_TOPIC0).toHaveLength(31);
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

  it("as a COPY text field: what copyValue makes of the JSON text", () => {
    const args = { name: 'quote " back\\slash \t tab \n ünï', plain: "abc", amount: 7n };
    for (const token of [undefined, "0xab", { pool: 'a\\b "c"' }]) {
      const copy = decodedJsonText(args, token, true);
      expect(copy).toBe(copyValue(decodedJsonText(args, token)));
      expect(copy).not.toBe(decodedJsonText(args, token));
    }
    expect(decodedJsonText({ plain: "abc" }, "0xab", true)).toBe('{"token":"0xab","plain":"abc"}');
  });
});
