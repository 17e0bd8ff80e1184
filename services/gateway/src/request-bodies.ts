import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { AppError } from "@tmi/shared/errors";
import type { FastifyRequest } from "fastify";

/** Limits on the request bodies the gateway receives before forwarding them (docs/operations.md). */
export interface BodyLimits {
  /** Largest body (bytes, `GATEWAY_BODY_LIMIT_BYTES`); then 413 `payload_too_large`. */
  limitBytes: number;
  /** Time every body has (ms, `GATEWAY_BODY_TIMEOUT_MS`), extended by the bytes received at the minimum rate. */
  timeoutMs: number;
  /** Minimum rate (bytes per second, `GATEWAY_BODY_MIN_RATE_BYTES_PER_S`): each byte received adds `1 / rate` s to the time. */
  minBytesPerSecond: number;
  /** Bodies one client address may be sending at once (`GATEWAY_MAX_BODIES_PER_CLIENT`, 0 = no cap); then 429 `rate_limited`. */
  maxPerClient: number;
  /** Bytes of every body being received at once (`GATEWAY_MAX_BUFFERED_BYTES`, 0 = no cap); then 503 `service_unavailable`. */
  maxBufferedBytes: number;
}

/** A content-type parser of Fastify (`addContentTypeParser("*", parser)`). */
export type BodyParser = (
  request: FastifyRequest,
  payload: IncomingMessage,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/** The answer ends the connection: the rest of a refused body is not read. */
const CLOSE = { connection: "close" };

/**
 * The gateway's parser of every request body: receives the whole body before anything is sent
 * upstream, so that a slow client holds only its own socket, never a connection of an upstream pool.
 * The body is handed on as a stream of its chunks as received (no copy; forwarded with its
 * `Content-Length`, which a chunked body gets). The bytes are counted against `maxBufferedBytes`
 * until then. Refused, each with `Connection: close`:
 * - a body over `limitBytes` → 413 `payload_too_large`;
 * - a body not complete within `timeoutMs` + (bytes received so far) / `minBytesPerSecond` (the
 *   time grows as data arrives, as Apache's mod_reqtimeout `MinRate`) → 408 `request_timeout`;
 * - a body while `maxPerClient` others from the same client address (`request.ip`, as the rate
 *   limit) are still arriving at this gateway process → 429 `rate_limited` with `Retry-After: 1`;
 * - a body whose bytes would take the bytes held by every body being received past
 *   `maxBufferedBytes` (the gateway's memory) → 503 `service_unavailable` with `Retry-After: 5`.
 * A client that disconnects mid-body ends it (nothing is forwarded).
 */
export function createBodyParser(limits: BodyLimits): BodyParser {
  const inFlight = new Map<string, number>();
  let buffered = 0;
  const release = (client: string) => {
    const count = (inFlight.get(client) ?? 1) - 1;
    if (count <= 0) inFlight.delete(client);
    else inFlight.set(client, count);
  };

  return (request, payload, done) => {
    const client = request.ip;
    const count = inFlight.get(client) ?? 0;
    if (limits.maxPerClient > 0 && count >= limits.maxPerClient) {
      done(
        new AppError(
          "rate_limited",
          `more than ${limits.maxPerClient} request bodies in flight from one client`,
          {
            headers: { "retry-after": "1", ...CLOSE },
          },
        ),
      );
      return;
    }
    inFlight.set(client, count + 1);
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const started = performance.now();

    const finish = (error: Error | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      release(client);
      buffered -= received;
      payload.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (error) {
        done(error);
        return;
      }
      request.headers["content-length"] = String(received);
      delete request.headers["transfer-encoding"];
      done(null, Readable.from(chunks));
    };
    const check = () => {
      const allowedMs = limits.timeoutMs + (received / limits.minBytesPerSecond) * 1000;
      const elapsedMs = performance.now() - started;
      if (elapsedMs < allowedMs) {
        timer = setTimeout(check, allowedMs - elapsedMs);
        return;
      }
      finish(
        new AppError(
          "request_timeout",
          `request body not received in time (${received} bytes in ${Math.round(elapsedMs)} ms)`,
          { headers: CLOSE },
        ),
      );
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      buffered += chunk.length;
      if (limits.maxBufferedBytes > 0 && buffered > limits.maxBufferedBytes) {
        finish(
          new AppError("service_unavailable", "the gateway holds too many request bodies; retry shortly", {
            headers: { "retry-after": "5", ...CLOSE },
          }),
        );
        return;
      }
      if (received > limits.limitBytes) {
        finish(
          new AppError("payload_too_large", `request body larger than ${limits.limitBytes} bytes`, {
            headers: CLOSE,
          }),
        );
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    // Nobody reads the answer: a client error (logged at info), not a failure of the gateway.
    const gone = (cause?: Error) =>
      finish(
        new AppError("invalid_request", "the client left before its request body was complete", { cause }),
      );
    const onError = (error: Error) => gone(error);
    const onClose = () => gone();
    let timer = setTimeout(check, limits.timeoutMs);
    payload.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  };
}
