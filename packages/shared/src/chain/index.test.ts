import { toEventSelector, toFunctionSelector } from "viem";
import { describe, expect, test } from "vitest";
import {
  aggregatorV3Abi,
  erc20Abi,
  feeManagerV3Abi,
  graduationManagerV3Abi,
  uniswapV3PoolAbi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "./index.js";

const selector = (abi: readonly { type: string; name?: string }[], name: string) => {
  const item = abi.find((i) => i.type === "event" && i.name === name);
  if (!item) throw new Error(`no event ${name}`);
  return toEventSelector(item as Parameters<typeof toEventSelector>[0]);
};

describe("ABIs", () => {
  test("default: standard event topics match their canonical signatures", () => {
    // Well-known topic0 values of ERC-20 Transfer, Uniswap V3 Swap and Chainlink AnswerUpdated.
    expect(selector(erc20Abi, "Transfer")).toBe(
      "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
    );
    expect(selector(uniswapV3PoolAbi, "Swap")).toBe(
      "0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67",
    );
    expect(selector(aggregatorV3Abi, "AnswerUpdated")).toBe(
      "0x0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f",
    );
  });

  test("behavior: createToken has the platform's selector 0x72c46e10", () => {
    const item = zonkFactoryV3Abi.find((i) => i.type === "function" && i.name === "createToken");
    if (item?.type !== "function") throw new Error("no createToken");
    expect(toFunctionSelector(item)).toBe("0x72c46e10");
  });

  test("behavior: V3 events carry the platform's signatures", () => {
    const signature = (abi: readonly { type: string; name?: string }[], name: string) => {
      const item = abi.find((i) => i.type === "event" && i.name === name);
      if (!item || !("inputs" in item)) throw new Error(`no event ${name}`);
      const inputs = item.inputs as readonly { type: string }[];
      return `${name}(${inputs.map((i) => i.type).join(",")})`;
    };
    expect(signature(zonkFactoryV3Abi, "TokenLaunchedV3")).toBe(
      "TokenLaunchedV3(address,address,address,string,uint256,uint256,uint256,address,address,bytes32,bytes32,uint16)",
    );
    expect(signature(zonkCurveV3Abi, "TokensBought")).toBe(
      "TokensBought(address,address,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)",
    );
    expect(signature(zonkCurveV3Abi, "TokensSold")).toBe(
      "TokensSold(address,address,uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)",
    );
    expect(signature(zonkCurveV3Abi, "Graduated")).toBe("Graduated(address,address,uint256,uint256,uint256)");
    expect(signature(zonkCurveV3Abi, "GraduationReserveForwarded")).toBe(
      "GraduationReserveForwarded(uint256,uint256)",
    );
    expect(signature(graduationManagerV3Abi, "LaunchRegistered")).toBe(
      "LaunchRegistered(address,address,address,address,bytes32,bytes32,uint16)",
    );
    expect(signature(graduationManagerV3Abi, "GraduatedV3")).toBe(
      "GraduatedV3(address,address,uint256,uint128)",
    );
    expect(signature(feeManagerV3Abi, "FeesDeposited")).toBe(
      "FeesDeposited(address,address,bool,uint256,uint256,uint256,uint256,uint256)",
    );
    expect(signature(feeManagerV3Abi, "TokenRegistered")).toBe(
      "TokenRegistered(address,address,address,address)",
    );
  });
});
