import type { DraftRow } from "../queries/draft-queries.js";

/** The JSON form of a draft (create response 201, finalize response 200). */
export interface DraftView {
  draft_id: string;
  /** `draft` | `pending` | `finalized` */
  status: DraftRow["status"];
  chain_id: number;
  name: string;
  symbol: string;
  /** uint256 decimal string */
  initial_supply: string;
  description: string | null;
  website_url: string | null;
  x_url: string | null;
  telegram_url: string | null;
  discord_url: string | null;
  /** `/objects/images/<sha256>.<ext>` */
  image_url: string;
  /** `/objects/metadata/<sha256>.json` */
  metadata_url: string;
  token_address: string | null;
  transaction_hash: string | null;
  /** Unix seconds */
  created_at: number;
  /** Unix seconds, null until finalized */
  finalized_at: number | null;
}

/** Path under which an object key is served. */
export function objectPath(key: string): string {
  return `/objects/${key}`;
}

/** Converts a draft row to its JSON form. */
export function draftView(draft: DraftRow): DraftView {
  return {
    draft_id: draft.id,
    status: draft.status,
    chain_id: draft.chainId,
    name: draft.name,
    symbol: draft.symbol,
    initial_supply: draft.initialSupply.toString(10),
    description: draft.description,
    website_url: draft.websiteUrl,
    x_url: draft.xUrl,
    telegram_url: draft.telegramUrl,
    discord_url: draft.discordUrl,
    image_url: objectPath(draft.imageKey),
    metadata_url: objectPath(draft.metadataKey),
    token_address: draft.tokenAddress,
    transaction_hash: draft.transactionHash,
    created_at: Math.floor(draft.createdAt.getTime() / 1000),
    finalized_at: draft.finalizedAt ? Math.floor(draft.finalizedAt.getTime() / 1000) : null,
  };
}
