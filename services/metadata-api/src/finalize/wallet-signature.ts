import {
  BaseError,
  ExecutionRevertedError,
  encodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  hashMessage,
  hexToBigInt,
  type PublicClient,
} from "viem";
import type { ChainSignatureVerifier } from "./finalize-signature.js";

/**
 * True when a failed validator `eth_call` is the chain's answer "not valid": the node executed the
 * call and it reverted (viem's `ExecutionRevertedError`: JSON-RPC code 3, or a node's "execution
 * reverted" message). Anything else — the request did not reach the node or got no answer
 * (`HttpRequestError`: refused or dropped connection, HTTP error status; `TimeoutError`), or the
 * node answered with an error of its own (rate limit, internal error, out of gas of the whole
 * call, unknown) — is false: the chain could not be asked, and the caller must not call the
 * signature invalid.
 */
export function isValidatorRevert(error: unknown): boolean {
  return error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError) !== null;
}

/** Options of {@link createChainSignatureVerifier}. */
export interface ChainSignatureVerifierOptions {
  /**
   * Gas limit of the validator's `eth_call` (`SIGNATURE_VERIFY_GAS`): caps what an ERC-6492 factory
   * or an ERC-1271 wallet may burn on the node per finalize. The wallet's calls run as sub-calls, so
   * a wallet that needs more reverts inside the validator (an invalid signature), and the node's own
   * cap (often 50M) is never reached.
   */
  gas: bigint;
}

/**
 * A {@link ChainSignatureVerifier} over `client` (viem, the indexed chain): one `eth_call` of the
 * ERC-6492 universal validator deployed in the call (viem's `erc6492SignatureValidatorByteCode`,
 * the same check as viem's `verifyMessage`: ERC-6492 wrapped signatures simulate the wallet's
 * factory call first, ERC-1271 `isValidSignature` for a deployed wallet, ECDSA recovery otherwise)
 * on the EIP-191 hash of `message`, with a gas limit. Resolves true when the validator answers
 * true; false when it answers false or reverts ({@link isValidatorRevert}).
 * Unlike viem's `verifyMessage` — which turns every failure of the call into false — it rejects
 * when the chain could not be asked (timeouts, dropped connections, HTTP and node errors), so a
 * valid signature is never called invalid because the RPC failed.
 * @throws the viem error of the call when the chain could not be asked.
 */
export function createChainSignatureVerifier(
  client: Pick<PublicClient, "call">,
  options: ChainSignatureVerifierOptions,
): ChainSignatureVerifier {
  return async ({ address, message, signature }) => {
    const data = encodeDeployData({
      abi: erc6492SignatureValidatorAbi,
      args: [address, hashMessage(message), signature],
      bytecode: erc6492SignatureValidatorByteCode,
    });
    try {
      const result = await client.call({ data, gas: options.gas });
      // The validator returns one byte, 0x01 for a valid signature.
      return result.data !== undefined && result.data !== "0x" && hexToBigInt(result.data) === 1n;
    } catch (error) {
      if (isValidatorRevert(error)) return false;
      throw error;
    }
  };
}
