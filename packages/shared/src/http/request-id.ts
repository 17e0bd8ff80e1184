import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id header, kept from the client or made (docs/api.md). */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * Returns the incoming `X-Request-ID` when it is 1–128 characters of `[A-Za-z0-9._:-]`,
 * otherwise a new random UUID.
 */
export function requestIdFrom(req: Pick<IncomingMessage, "headers">): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}
