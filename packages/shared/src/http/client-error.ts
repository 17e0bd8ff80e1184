import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { AppError, type ErrorCode, errorBody } from "../errors/index.js";

/**
 * Answers an HTTP request the server could not parse or did not receive in time (Node's
 * `clientError`), in the error envelope with a new request id (the headers were not read):
 * headers over the size limit (an over-long URL counts) → 431 `headers_too_large`; the request
 * not received within the request/headers timeout → 503 `timeout`; any other malformed request
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
    code = "timeout";
    message = "the request was not received in time";
  }
  const appError = new AppError(code, message);
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(appError, requestId));
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${requestId}\r\n` +
        "Cache-Control: no-store\r\nConnection: close\r\n\r\n" +
        body,
    );
  }
  socket.destroy(error);
}
