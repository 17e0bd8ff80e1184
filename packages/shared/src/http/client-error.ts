import { randomUUID } from "node:crypto";
import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { AppError, type ErrorCode, errorBody } from "../errors/index.js";
import { requestIdFrom } from "./request-id.js";

/**
 * Answers an HTTP request the server could not parse or did not receive in time (Node's
 * `clientError`), in the error envelope with a new request id (the headers were not read):
 * headers over the size limit (an over-long URL counts) → 431 `headers_too_large`; the request
 * not received within the request/headers timeout → 408 `request_timeout` (the client was too slow,
 * as for a slow body at the gateway); any other malformed request
 * → 400 `invalid_request`. The connection is closed. Nothing is written to a socket that is gone
 * or already carries a response.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  let code: ErrorCode = "invalid_request";
  let message = "malformed HTTP request";
  if (error.code === "HPE_HEADER_OVERFLOW") {
    code = "headers_too_large";
    message = "request line and headers exceed the size limit";
  } else if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    code = "request_timeout";
    message = "the request was not received in time";
  }
  const appError = new AppError(code, message);
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!inFlight?.headersSent) writeRawError(socket, appError, randomUUID());
  socket.destroy(error);
}

/**
 * Answers a `CONNECT` request (Node hands it to the server's `connect` event and, without a
 * listener, closes the connection unanswered): 405 `method_not_allowed` in the error envelope,
 * `Allow` listing `allowed` when the path is a route, then the connection is closed. No service
 * tunnels connections.
 */
export function answerConnect(req: IncomingMessage, socket: Duplex, allowed: readonly string[]): void {
  socket.on("error", () => {});
  const path = (req.url ?? "").split("?")[0]?.slice(0, 200) ?? "";
  const error = new AppError("method_not_allowed", `method CONNECT is not allowed on ${path}`);
  writeRawError(socket, error, requestIdFrom(req), allowed.length > 0 ? { Allow: allowed.join(", ") } : {});
  socket.end();
}

/** Writes `error` as a whole HTTP/1.1 response in the envelope, with `Connection: close` (the caller closes). */
function writeRawError(
  socket: Duplex,
  error: AppError,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) return;
  const body = JSON.stringify(errorBody(error, requestId));
  let extra = "";
  for (const [name, value] of Object.entries(headers)) extra += `${name}: ${value}\r\n`;
  socket.write(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${requestId}\r\n` +
      extra +
      "Cache-Control: no-store\r\nConnection: close\r\n\r\n" +
      body,
  );
}
