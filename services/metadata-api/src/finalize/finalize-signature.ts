import { AppError } from "@tmi/shared/errors";
import { type Hex, verifyMessage } from "viem";

/** What a finalize signature covers: the chain, the draft and the launch (addresses/hashes lowercase). */
export interface FinalizeClaim {
  chainId: number;
  draftId: string;
  tokenAddress: `0x${string}`;
  transactionHash: `0x${string}`;
}

/**
 * The exact text the token's creator signs (EIP-191 `personal_sign`) to bind draft metadata as
 * verified: five lines joined by `\n`, no trailing newline, draft id and hex values lowercase:
 *
 * ```
 * Bind token metadata
 * chain_id: 8453
 * draft_id: 3f1c2a9e-7b4d-4c1e-9a0b-5d6e7f8a9b0c
 * token_address: 0x…(40 hex)
 * transaction_hash: 0x…(64 hex)
 * ```
 * Documented in docs/api.md ("Finalize signature"); any change breaks every signing client.
 */
export function finalizeMessage(claim: FinalizeClaim): string {
  return [
    "Bind token metadata",
    `chain_id: ${claim.chainId}`,
    `draft_id: ${claim.draftId.toLowerCase()}`,
    `token_address: ${claim.tokenAddress.toLowerCase()}`,
    `transaction_hash: ${claim.transactionHash.toLowerCase()}`,
  ].join("\n");
}

/**
 * A signature as 0x hex: 64 to 8,192 bytes. EOA signatures are 65 bytes (r, s, v) or 64
 * (EIP-2098); a smart-contract wallet's (ERC-1271) have the wallet's own format and length, and an
 * ERC-6492 signature (wallet not deployed yet) wraps one with the wallet's factory call.
 */
export const SIGNATURE_PATTERN = /^0x(?:[0-9a-fA-F]{2}){64,8192}$/;

/**
 * Checks a signature of a message by an address against the indexed chain (ERC-6492 counterfactual
 * wallets, ERC-1271 deployed wallets and EOAs, through one `eth_call` of the universal validator;
 * production: `createChainSignatureVerifier` in `wallet-signature.ts`). Resolves false only when the
 * chain answered that the signature does not verify.
 * @throws when the chain could not be asked (transport failure, timeout, HTTP or node error).
 */
export type ChainSignatureVerifier = (args: {
  address: `0x${string}`;
  message: string;
  signature: Hex;
}) => Promise<boolean>;

/**
 * True when `signature` is `signer`'s signature of {@link finalizeMessage}(`claim`): first ECDSA
 * recovery of the EIP-191 hash (an externally owned account; no I/O), else — when `chain` is given
 * — the chain decides (`signer` a smart-contract wallet: ERC-1271 when deployed, ERC-6492 when
 * the signature carries its factory call). A malformed or wrong signature is false.
 * @throws AppError `service_unavailable` when the chain cannot be asked (RPC failure).
 */
export async function isSignedBy(
  claim: FinalizeClaim,
  signature: Hex,
  signer: `0x${string}`,
  chain?: ChainSignatureVerifier,
): Promise<boolean> {
  const message = finalizeMessage(claim);
  try {
    if (await verifyMessage({ address: signer, message, signature })) return true;
  } catch {
    // not an ECDSA signature: maybe a wallet's
  }
  if (!chain) return false;
  try {
    return await chain({ address: signer, message, signature });
  } catch (error) {
    throw new AppError("service_unavailable", "the chain RPC is unavailable to check the signature", {
      cause: error,
    });
  }
}
