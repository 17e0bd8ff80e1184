import {
  CallExecutionError,
  ExecutionRevertedError,
  HttpRequestError,
  InternalRpcError,
  LimitExceededRpcError,
  RpcRequestError,
  TimeoutError,
} from "viem";
import { describe, expect, test } from "vitest";
import { isValidatorRevert } from "./wallet-signature.js";

const url = "http://127.0.0.1:8545";
const body = { method: "eth_call" };
const nodeError = (code: number, message: string) =>
  new RpcRequestError({ body, url, error: { code, message } });
// The shapes viem's `call` throws (CallExecutionError around what the transport or the node gave).
const callError = (cause: Error) => new CallExecutionError(cause as never, {});

describe("isValidatorRevert", () => {
  test("default", () => {
    const revert = new ExecutionRevertedError({ cause: nodeError(3, "execution reverted") });
    expect(isValidatorRevert(callError(revert))).toBe(true);
  });

  test("error: transport failures, timeouts and node errors are not the chain's answer", () => {
    const notAsked = [
      new TimeoutError({ body, url }),
      new HttpRequestError({ body, url, details: "fetch failed", cause: new Error("ECONNRESET") }),
      new HttpRequestError({ body, url, status: 502 }),
      new InternalRpcError(nodeError(-32603, "EVM error OutOfGas")),
      new LimitExceededRpcError(nodeError(-32005, "rate limited")),
      nodeError(-32000, "header not found"),
    ];
    for (const error of notAsked) expect(isValidatorRevert(callError(error)), error.name).toBe(false);
    expect(isValidatorRevert(new Error("execution reverted"))).toBe(false);
  });
});
