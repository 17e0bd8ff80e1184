import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import type { MultipartFile, MultipartValue } from "@fastify/multipart";
import { parseAddress, parseTransactionHash } from "@tmi/shared/codec";
import { AppError, type ErrorCode, type ErrorDetail, isAppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import type { Logger } from "pino";
import {
  type DraftFields,
  TEXT_FIELDS,
  type TextField,
  validateDraftFields,
} from "../drafts/draft-fields.js";
import { insertDraft } from "../drafts/draft-queries.js";
import { findBoundToken } from "../finalize/bound-token-queries.js";
import { type FinalizeDeps, finalizeDraft } from "../finalize/finalize-service.js";
import { SIGNATURE_PATTERN } from "../finalize/finalize-signature.js";
import { ImageFetchError, type ImageFetcher } from "../images/image-fetcher.js";
import type { ImageVerdict } from "../images/image-inspect.js";
import { type SpooledImage, spoolImage } from "../images/image-spool.js";
import { imageKey, metadataKey, type ObjectStorage } from "../storage/object-storage.js";
import { draftView, objectPath } from "./draft-view.js";

/** Dependencies of the token-metadata routes. */
export interface TokenMetadataDeps extends FinalizeDeps {
  storage: ObjectStorage;
  fetcher: ImageFetcher;
  chainId: number;
  spoolDir: string;
  imageMaxBytes: number;
  imageMaxPixels: number;
  logger: Logger;
}

/** Room for the text fields and multipart framing on top of the image cap. */
export const FORM_OVERHEAD_BYTES = 256 * 1024;
const FIELD_MAX_BYTES = 16 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function drain(stream: Readable): Promise<void> {
  for await (const _ of stream) {
    // discard
  }
}

/**
 * Registers `POST /api/v1/token-metadata` (create a draft, multipart, streaming) and
 * `POST /api/v1/token-metadata/:draft/finalize`.
 */
export function registerTokenMetadataRoutes(app: HttpApp, deps: TokenMetadataDeps): void {
  app.post("/api/v1/token-metadata", async (request, reply) => {
    if (!request.isMultipart()) {
      throw new AppError("invalid_upload", "the body must be multipart/form-data", {
        details: [{ field: "body", reason: "multipart/form-data required" }],
      });
    }
    const declared = Number(request.headers["content-length"]);
    const cap = deps.imageMaxBytes + FORM_OVERHEAD_BYTES;
    if (Number.isFinite(declared) && declared > cap) {
      // Up to twice the cap (any body the gateway forwards) the rest is read and dropped, so the
      // sender (the gateway, curl) reads the 413 instead of a reset connection; beyond that the
      // connection is closed unread.
      if (declared <= 2 * cap) request.raw.resume();
      else reply.header("connection", "close");
      throw new AppError("payload_too_large", `the image must be at most ${deps.imageMaxBytes} bytes`);
    }

    const raw: Partial<Record<TextField, string>> = {};
    const details: ErrorDetail[] = [];
    let upload: SpooledImage | null = null;
    let fetched: SpooledImage | null = null;
    let tooLarge = false;
    try {
      try {
        const parts = request.parts({
          limits: {
            fileSize: deps.imageMaxBytes,
            files: 4,
            fields: 32,
            fieldSize: FIELD_MAX_BYTES,
            parts: 40,
          },
          throwFileSizeLimit: false,
        } as Parameters<typeof request.parts>[0]);
        for await (const part of parts) {
          if (part.type === "file") {
            const file = part as MultipartFile;
            if (file.fieldname !== "image" || upload) {
              await drain(file.file);
              details.push({
                field: file.fieldname,
                reason: file.fieldname === "image" ? "only one image is accepted" : "unknown file field",
              });
              continue;
            }
            const spooled = await spoolImage(file.file, {
              spoolDir: deps.spoolDir,
              maxBytes: deps.imageMaxBytes,
              maxPixels: deps.imageMaxPixels,
              truncated: () => file.file.truncated,
            });
            if (spooled.tooLarge) tooLarge = true;
            if (spooled.size === 0 && !spooled.tooLarge && !file.filename) {
              await spooled.discard(); // an empty file input of a browser form: no image
              continue;
            }
            upload = spooled;
          } else {
            const field = part as MultipartValue<unknown>;
            const name = field.fieldname;
            if (!(TEXT_FIELDS as readonly string[]).includes(name)) {
              details.push({ field: name, reason: name === "image" ? "must be a file" : "unknown field" });
            } else if (Object.hasOwn(raw, name)) {
              details.push({ field: name, reason: "given more than once" });
            } else if (field.valueTruncated) {
              details.push({ field: name, reason: `must be at most ${FIELD_MAX_BYTES} bytes` });
              raw[name as TextField] = "";
            } else {
              raw[name as TextField] = String(field.value);
            }
          }
        }
      } catch (error) {
        throw malformedMultipart(error);
      }
      if (tooLarge) {
        throw new AppError("payload_too_large", `the image must be at most ${deps.imageMaxBytes} bytes`);
      }

      const validated = validateDraftFields(raw, upload !== null);
      if (!validated.ok || details.length > 0) {
        const all = [...details, ...(validated.ok ? [] : validated.details)];
        throw new AppError(validationCode(all), "invalid metadata fields", { details: all });
      }
      const fields = validated.fields;

      let image: SpooledImage;
      let verdict: ImageVerdict;
      if (upload) {
        image = upload;
        verdict = await upload.inspector.finish(() => upload!.readHead());
        if (!verdict.ok) {
          throw new AppError(
            verdict.kind === "type" ? "unsupported_image_type" : "invalid_image",
            `image refused: ${verdict.reason}`,
            { details: [{ field: "image", reason: verdict.reason }] },
          );
        }
      } else {
        fetched = await fetchImage(deps, fields.imageUrl!);
        image = fetched;
        verdict = await fetched.inspector.finish(() => fetched!.readHead());
        if (!verdict.ok) {
          throw new AppError("image_unavailable", `image_url is not an allowed image: ${verdict.reason}`, {
            details: [{ field: "image_url", reason: verdict.reason }],
          });
        }
      }

      const imgKey = imageKey(image.sha256, verdict.ext);
      const document = Buffer.from(JSON.stringify(metadataDocument(fields, objectPath(imgKey))), "utf8");
      const metaKey = metadataKey(createHash("sha256").update(document).digest("hex"));
      try {
        await deps.storage.put(imgKey, createReadStream(image.path), image.size, verdict.mime);
        await deps.storage.put(metaKey, document, document.length, "application/json");
      } catch (error) {
        throw new AppError("storage_unavailable", "object storage is unavailable; try again later", {
          cause: error,
        });
      }

      const draft = await insertDraft(deps.db, {
        id: randomUUID(),
        chainId: deps.chainId,
        name: fields.name,
        symbol: fields.symbol,
        description: fields.description,
        initialSupply: fields.initialSupply,
        websiteUrl: fields.websiteUrl,
        xUrl: fields.xUrl,
        telegramUrl: fields.telegramUrl,
        discordUrl: fields.discordUrl,
        imageKey: imgKey,
        metadataKey: metaKey,
      });
      request.log.info({ draft_id: draft.id, image_key: imgKey, action: "create_draft" }, "draft created");
      return reply.status(201).header("cache-control", "no-store").send(draftView(draft));
    } finally {
      await upload?.discard();
      await fetched?.discard();
    }
  });

  app.post("/api/v1/token-metadata/:draft/finalize", async (request, reply) => {
    const draftId = (request.params as { draft: string }).draft.toLowerCase();
    const body = request.body as Record<string, unknown> | null | undefined;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw new AppError(
        "invalid_request",
        "the body must be a JSON object {token_address, transaction_hash, signature?}",
        {
          details: [{ field: "body", reason: "JSON object required" }],
        },
      );
    }
    const missing: ErrorDetail[] = [];
    for (const field of ["token_address", "transaction_hash"]) {
      if (typeof body[field] !== "string") missing.push({ field, reason: "required string" });
    }
    if (body.signature !== undefined && typeof body.signature !== "string") {
      missing.push({ field: "signature", reason: "must be a 0x hex string" });
    }
    if (missing.length > 0)
      throw new AppError("invalid_request", "missing finalize fields", { details: missing });
    const tokenAddress = parseAddress(body.token_address, "token_address");
    const transactionHash = parseTransactionHash(body.transaction_hash, "transaction_hash");
    const signature = body.signature as string | undefined;
    if (signature !== undefined && !SIGNATURE_PATTERN.test(signature)) {
      throw new AppError(
        "invalid_request",
        "signature must be 0x hex of 64 to 8192 bytes (EOA, ERC-1271 or ERC-6492)",
        {
          details: [
            {
              field: "signature",
              reason: "must be 0x followed by an even number (128 to 16384) of hex digits",
            },
          ],
        },
      );
    }
    if (!UUID.test(draftId)) throw new AppError("not_found", "no such draft");
    const draft = await finalizeDraft(deps, {
      draftId,
      tokenAddress,
      transactionHash,
      ...(signature !== undefined ? { signature: signature as `0x${string}` } : {}),
    });
    const token = await findBoundToken(deps.db, draft);
    if (!token) {
      throw new AppError("not_indexed", "the launch is not indexed anymore", {
        details: [{ field: "token_address", reason: "launch not indexed" }],
      });
    }
    // The block a following read through a query-api replica passes as `min_block` (docs/api.md).
    return reply
      .status(200)
      .header("cache-control", "no-store")
      .header("x-min-block", String(token.created_at.block_number))
      .send(token);
  });
}

/** The platform's code of a draft validation failure: the code of its first problem's field. */
const FIELD_CODES: Record<string, ErrorCode> = {
  name: "invalid_name",
  symbol: "invalid_symbol",
  initial_supply: "invalid_supply",
  description: "invalid_description",
  website_url: "invalid_website_url",
  x_url: "invalid_x_url",
  telegram_url: "invalid_telegram_url",
  discord_url: "invalid_discord_url",
  image: "invalid_image",
  image_url: "invalid_image",
};

/**
 * The error code of a failed draft validation (`details` in the order found): the field code of
 * the first problem (`invalid_name`, ...), `invalid_upload` for problems of the form itself
 * (unknown or repeated parts).
 */
export function validationCode(details: readonly ErrorDetail[]): ErrorCode {
  return FIELD_CODES[details[0]?.field ?? ""] ?? "invalid_upload";
}

/**
 * Maps what the multipart parser throws: our errors and Fastify's coded errors (limits → 413)
 * pass through; busboy's parse errors (no boundary, truncated or malformed parts, a boundary
 * longer than its search buffer: 253+ characters, "needle" in its message) become 400
 * `invalid_upload`.
 */
function malformedMultipart(error: unknown): unknown {
  if (isAppError(error)) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && code.startsWith("FST_")) return error;
  if (
    error instanceof Error &&
    /multipart|unexpected end|malformed|terminated|boundary|needle/i.test(error.message)
  ) {
    return new AppError("invalid_upload", "malformed multipart/form-data body", {
      details: [{ field: "body", reason: "malformed multipart/form-data" }],
      cause: error,
    });
  }
  return error;
}

/** Fetches `image_url` into a spool file (SSRF rules in the fetcher); failures → 422 `image_unavailable`. */
async function fetchImage(deps: TokenMetadataDeps, url: string): Promise<SpooledImage> {
  try {
    return await deps.fetcher.fetch(url, async ({ body }) => {
      const spooled = await spoolImage(body, {
        spoolDir: deps.spoolDir,
        maxBytes: deps.imageMaxBytes,
        maxPixels: deps.imageMaxPixels,
        stopWhenTooLarge: true,
      });
      if (spooled.tooLarge) {
        await spooled.discard();
        throw new ImageFetchError(`image_url is larger than ${deps.imageMaxBytes} bytes`);
      }
      return spooled;
    });
  } catch (error) {
    if (error instanceof ImageFetchError) {
      throw new AppError("image_unavailable", error.message, {
        details: [{ field: "image_url", reason: error.message }],
        cause: error,
      });
    }
    throw new AppError("image_unavailable", "image_url could not be fetched", {
      details: [{ field: "image_url", reason: "could not be fetched" }],
      cause: error,
    });
  }
}

/**
 * The public metadata JSON document of a draft (stored at `metadata/<sha256>.json`): name,
 * symbol, description, image path, links and initial supply. Key order is fixed so that equal
 * drafts share one object.
 */
export function metadataDocument(fields: DraftFields, imagePath: string) {
  return {
    name: fields.name,
    symbol: fields.symbol,
    description: fields.description,
    image: imagePath,
    initial_supply: fields.initialSupply.toString(10),
    links: {
      website_url: fields.websiteUrl,
      x_url: fields.xUrl,
      telegram_url: fields.telegramUrl,
      discord_url: fields.discordUrl,
    },
  };
}
