import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, test } from "vitest";
import { type FinalizeClaim, finalizeMessage, isSignedBy, SIGNATURE_PATTERN } from "./finalize-signature.js";

// anvil's first default key: a well-known test key, never a real one.
const creator = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const stranger = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const claim: FinalizeClaim = {
  chainId: 8453,
  draftId: "3F1C2A9E-7B4D-4C1E-9A0B-5D6E7F8A9B0C",
  tokenAddress: "0x00000000000000000000000000000000000000AB",
  transactionHash: `0x${"CD".repeat(32)}`,
};

describe("finalizeMessage", () => {
  test("default", () => {
    expect(finalizeMessage(claim)).toBe(
      [
        "Bind token metadata",
        "chain_id: 8453",
        "draft_id: 3f1c2a9e-7b4d-4c1e-9a0b-5d6e7f8a9b0c",
        "token_address: 0x00000000000000000000000000000000000000ab",
        `transaction_hash: 0x${"cd".repeat(32)}`,
      ].join("\n"),
    );
  });
});

describe("isSignedBy", () => {
  test("default", async () => {
    const signature = await creator.signMessage({ message: finalizeMessage(claim) });
    expect(SIGNATURE_PATTERN.test(signature)).toBe(true);
    expect(await isSignedBy(claim, signature, creator.address)).toBe(true);
    // Letter case of the claim does not matter: the message is lowercase.
    expect(
      await isSignedBy({ ...claim, draftId: claim.draftId.toLowerCase() }, signature, creator.address),
    ).toBe(true);
  });

  test("error: another signer, another claim, or a malformed signature", async () => {
    const signature = await creator.signMessage({ message: finalizeMessage(claim) });
    expect(await isSignedBy(claim, signature, stranger.address)).toBe(false);
    const byStranger = await stranger.signMessage({ message: finalizeMessage(claim) });
    expect(await isSignedBy(claim, byStranger, creator.address)).toBe(false);
    for (const other of [
      { ...claim, chainId: 1 },
      { ...claim, draftId: "00000000-0000-4000-8000-000000000000" },
      { ...claim, tokenAddress: "0x00000000000000000000000000000000000000ac" as const },
      { ...claim, transactionHash: `0x${"ce".repeat(32)}` as const },
    ]) {
      expect(await isSignedBy(other, signature, creator.address)).toBe(false);
    }
    expect(await isSignedBy(claim, `0x${"00".repeat(65)}`, creator.address)).toBe(false);
  });
});

describe("isSignedBy with a chain verifier (smart-contract wallets)", () => {
  const wallet = "0x00000000000000000000000000000000000000ee" as const;

  test("behavior: a signature that is not the address's ECDSA one is left to the chain", async () => {
    const signature = await creator.signMessage({ message: finalizeMessage(claim) });
    const asked: unknown[] = [];
    const chain = async (args: unknown) => {
      asked.push(args);
      return true;
    };
    expect(await isSignedBy(claim, signature, wallet, chain)).toBe(true);
    expect(asked).toEqual([{ address: wallet, message: finalizeMessage(claim), signature }]);
    // An EOA's own signature never needs the chain.
    expect(await isSignedBy(claim, signature, creator.address, chain)).toBe(true);
    expect(asked).toHaveLength(1);
    expect(await isSignedBy(claim, signature, wallet, async () => false)).toBe(false);
  });

  test("error: the chain cannot be asked → service_unavailable, not a wrong signature", async () => {
    const signature = await stranger.signMessage({ message: finalizeMessage(claim) });
    await expect(
      isSignedBy(claim, signature, wallet, async () => {
        throw new Error("connect ECONNREFUSED");
      }),
    ).rejects.toMatchObject({ code: "service_unavailable" });
  });

  test("behavior: the pattern admits wallet signatures of any even length from 64 to 8192 bytes", () => {
    expect(SIGNATURE_PATTERN.test(`0x${"ab".repeat(64)}`)).toBe(true);
    expect(SIGNATURE_PATTERN.test(`0x${"ab".repeat(700)}`)).toBe(true);
    expect(SIGNATURE_PATTERN.test(`0x${"ab".repeat(8192)}`)).toBe(true);
    for (const bad of [`0x${"ab".repeat(63)}`, `0x${"ab".repeat(8193)}`, `0x${"ab".repeat(70)}a`, "0x12"])
      expect(SIGNATURE_PATTERN.test(bad)).toBe(false);
  });
});
