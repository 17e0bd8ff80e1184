import type { DraftRow } from "../drafts/draft-queries.js";

/**
 * The JSON form of a new draft (create response 201), as the platform's client parses it:
 * `description` is always a string (`""` when not given), `image_url`/`metadata_url` are paths
 * under `/objects/`, the social URLs are present only when given (never null).
 */
export interface DraftView {
  draft_id: string;
  /** `draft` (a new draft) */
  status: DraftRow["status"];
  chain_id: number;
  name: string;
  symbol: string;
  /** uint256 decimal string */
  initial_supply: string;
  description: string;
  website_url?: string;
  x_url?: string;
  telegram_url?: string;
  discord_url?: string;
  /** `/objects/images/<sha256>.<ext>` */
  image_url: string;
  /** `/objects/metadata/<sha256>.json` */
  metadata_url: string;
  /** Unix seconds */
  created_at: number;
}

/** Path under which an object key is served. */
export function objectPath(key: string): string {
  return `/objects/${key}`;
}

/** Converts a draft row to its JSON form. */
export function draftView(draft: DraftRow): DraftView {
  const view: DraftView = {
    draft_id: draft.id,
    status: draft.status,
    chain_id: draft.chainId,
    name: draft.name,
    symbol: draft.symbol,
    initial_supply: draft.initialSupply.toString(10),
    description: draft.description ?? "",
    image_url: objectPath(draft.imageKey),
    metadata_url: objectPath(draft.metadataKey),
    created_at: Math.floor(draft.createdAt.getTime() / 1000),
  };
  if (draft.websiteUrl !== null) view.website_url = draft.websiteUrl;
  if (draft.xUrl !== null) view.x_url = draft.xUrl;
  if (draft.telegramUrl !== null) view.telegram_url = draft.telegramUrl;
  if (draft.discordUrl !== null) view.discord_url = draft.discordUrl;
  return view;
}
