import { toEventSelector } from "viem";
import { describe, expect, test } from "vitest";
import { aggregatorV3Abi, erc20Abi, launchpadAbi, uniswapV3PoolAbi } from "./index.js";

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

  test("behavior: launchpad events carry the argument orders of DESIGN.md §2", () => {
    const bought = launchpadAbi.find((i) => i.type === "event" && i.name === "TokensBought");
    expect(bought && "inputs" in bought ? bought.inputs.map((i) => i.name) : []).toEqual([
      "token",
      "buyer",
      "reserveAmount",
      "tokenAmount",
      "curveValue",
      "protocolFee",
      "creatorFee",
      "reserveBalance",
      "tokenBalance",
    ]);
  });
});
