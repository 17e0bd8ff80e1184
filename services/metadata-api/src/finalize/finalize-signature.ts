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

/** A 65-byte (r, s, v) or 64-byte EIP-2098 signature as 0x hex. */
export const SIGNATURE_PATTERN = /^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/;

/**
 * True when `signature` is `signer`'s EIP-191 signature of {@link finalizeMessage}(`claim`)
 * (viem `verifyMessage`: ECDSA recovery, externally owned accounts). Never throws: a malformed
 * signature is false.
 */
export async function isSignedBy(
  claim: FinalizeClaim,
  signature: Hex,
  signer: `0x${string}`,
): Promise<boolean> {
  try {
    return await verifyMessage({ address: signer, message: finalizeMessage(claim), signature });
  } catch {
    return false;
  }
}
