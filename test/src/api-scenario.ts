// A small market on the devnet for the contract and fuzz tests and the API examples: metadata
// drafts, two launches by one creator, curve buys and sells, a graduation into the canonical pool
// and pool swaps, all sent from wallets (@tmi/devnet's createTrader) and indexed by the real indexer.
import { createTrader, type Trader, type TxResult } from "@tmi/devnet";
import { waitFor } from "@tmi/testkit";
import type { JsonResponse, System } from "./system.js";

const ETH = 10n ** 18n;

/** Every token of the platform has this fixed supply (10^9 whole tokens, 18 decimals). */
export const TOTAL_SUPPLY = 10n ** 27n;

/** A 1×1 PNG (the image of the drafts). */
export const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** The text fields of a metadata draft (multipart form fields of `POST /api/v1/token-metadata`). */
export type DraftFields = Record<string, string>;

/** A multipart form of `fields` plus, unless `image` is null, the 1×1 PNG (or the given bytes). */
export function draftForm(fields: DraftFields, image: Uint8Array | null = PNG_1X1): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  if (image) form.set("image", new Blob([image], { type: "application/octet-stream" }), "image.bin");
  return form;
}

/** `POST /api/v1/token-metadata/{draft}/finalize` with a JSON body. */
export function finalize(system: System, draftId: string, body: unknown): Promise<JsonResponse> {
  return system.request(`/api/v1/token-metadata/${encodeURIComponent(draftId)}/finalize`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** What {@link seedMarket} built. */
export interface Market {
  creator: Trader;
  traders: Trader[];
  /** Launched with a full metadata draft, graduated, then swapped in its canonical pool. */
  alpha: { token: `0x${string}`; launch: TxResult; draftId: string };
  /** Same creator, curve only, no metadata. */
  beta: { token: `0x${string}`; launch: TxResult };
  /** The draft of alpha as created (201 body). */
  alphaDraft: Record<string, string>;
  /**
   * The finalize answers seen before the indexer ran (409 `not_indexed` expected): alpha's draft
   * with alpha's launch; another draft with a transaction that has no receipt.
   */
  beforeIndexing: { launchNotIndexed: JsonResponse; receiptNotVisible: JsonResponse };
}

/** Metadata of alpha's draft: every optional field given. */
export const ALPHA_FIELDS: DraftFields = {
  name: "Alpha Launch",
  symbol: "ALPHA",
  initial_supply: TOTAL_SUPPLY.toString(),
  description: "The first token of the contract test.",
  website_url: "https://alpha.example.com/home",
  x_url: "https://x.com/alpha",
  telegram_url: "https://t.me/alpha",
  discord_url: "https://discord.gg/alpha",
};

/**
 * Builds the market on `system` (indexer not yet started): alpha's draft, alpha's launch, two
 * finalize calls before indexing (the launch; a transaction without a receipt), then starts the
 * indexer, launches beta, trades, graduates alpha, swaps in its pool, waits until everything is
 * indexed and until alpha's draft is bound (the worker or a finalize retry).
 * @throws Error when a transaction reverts or indexing does not catch up within its timeouts.
 */
export async function seedMarket(system: System): Promise<Market> {
  const { deployment, rpcUrl } = system.devnet;
  const [creator, bob, carol, dave] = [1, 2, 3, 4].map((account) =>
    createTrader({ rpcUrl, deployment, account }),
  ) as [Trader, Trader, Trader, Trader];

  const created = await system.request("/api/v1/token-metadata", {
    method: "POST",
    body: draftForm(ALPHA_FIELDS),
  });
  if (created.status !== 201) throw new Error(`draft: ${created.status} ${JSON.stringify(created.body)}`);
  const alphaDraft = created.body as Record<string, string>;
  const alphaLaunch = await creator.createToken(ALPHA_FIELDS.name!, ALPHA_FIELDS.symbol!);
  const alpha = { token: alphaLaunch.token, launch: alphaLaunch, draftId: alphaDraft.draft_id! };

  const launchNotIndexed = await finalize(system, alpha.draftId, {
    token_address: alpha.token,
    transaction_hash: alphaLaunch.hash,
  });
  // A transaction the node has no receipt for (yet), on a draft of its own (alpha's draft now waits
  // for alpha's launch and would refuse another).
  const other = await system.request("/api/v1/token-metadata", {
    method: "POST",
    body: draftForm(ALPHA_FIELDS),
  });
  if (other.status !== 201) throw new Error(`draft: ${other.status} ${JSON.stringify(other.body)}`);
  const receiptNotVisible = await finalize(system, other.body.draft_id, {
    token_address: "0x00000000000000000000000000000000000000aa",
    transaction_hash: `0x${"ab".repeat(32)}`,
  });

  system.startIndexer();
  const betaLaunch = await creator.createToken("Beta Coin", "BETA");
  const beta = { token: betaLaunch.token, launch: betaLaunch };
  await bob.buy(alpha.token, ETH / 2n);
  await carol.buy(alpha.token, (3n * ETH) / 10n);
  await bob.sell(alpha.token, (await bob.balanceOf(alpha.token)) / 2n);
  await dave.buy(beta.token, ETH / 5n);
  await dave.sell(beta.token, (await dave.balanceOf(beta.token)) / 3n);
  await bob.graduate(alpha.token);
  await carol.swapExactEthForTokens(alpha.token, ETH / 20n);
  await bob.swapExactTokensForEth(alpha.token, (await bob.balanceOf(alpha.token)) / 4n);
  await creator.transfer(alpha.token, dave.address, (await creator.balanceOf(alpha.token)) / 10n);

  await system.indexToHead(120_000);
  await waitFor(
    async () => {
      const answer = await finalize(system, alpha.draftId, {
        token_address: alpha.token,
        transaction_hash: alphaLaunch.hash,
      });
      if (answer.status === 200) return true;
      if (answer.status === 409 && answer.body?.error?.code === "not_indexed") return false;
      throw new Error(`finalize after indexing: ${answer.status} ${JSON.stringify(answer.body)}`);
    },
    { timeoutMs: 60_000, intervalMs: 250, message: "alpha's draft bound" },
  );
  return {
    creator,
    traders: [bob, carol, dave],
    alpha,
    beta,
    alphaDraft,
    beforeIndexing: { launchNotIndexed, receiptNotVisible },
  };
}
