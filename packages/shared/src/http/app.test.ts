import { describe, expect, test } from "vitest";
import { z } from "zod";
import { AppError } from "../errors/index.js";
import { createLogger } from "../logger/index.js";
import { createHttpApp } from "./app.js";

const logger = createLogger({ service: "test", level: "silent" });

function build(readiness?: () => Promise<void>) {
  const app = createHttpApp({ service: "test-svc", logger, readiness });
  app.get("/boom", async () => {
    throw new Error("connection string postgres://secret@db");
  });
  app.get("/gone", async () => {
    throw new AppError("not_found", "token has no canonical record");
  });
  app.get(
    "/items",
    { schema: { querystring: z.object({ limit: z.coerce.number().int().min(1).max(100) }) } },
    async (req) => ({ limit: req.query.limit }),
  );
  app.post("/echo", async (req) => req.body);
  return app;
}

describe("createHttpApp", () => {
  test("default: /health answers without I/O, with the request id", async () => {
    const app = build();
    const res = await app.inject({ url: "/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: "ok",
      service: "test-svc",
      request_id: res.headers["x-request-id"],
    });
  });

  test("behavior: a valid incoming X-Request-ID is kept, an invalid one replaced", async () => {
    const app = build();
    const kept = await app.inject({ url: "/health", headers: { "x-request-id": "client-1.2:3_x" } });
    expect(kept.headers["x-request-id"]).toBe("client-1.2:3_x");
    const replaced = await app.inject({ url: "/health", headers: { "x-request-id": "bad id with spaces" } });
    expect(replaced.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await app.inject({ url: "/health", headers: { "x-request-id": "a".repeat(129) } });
    expect(tooLong.headers["x-request-id"]).not.toBe("a".repeat(129));
  });

  test("behavior: /readyz runs the probe; failure is 503 not_ready", async () => {
    expect((await build(async () => {}).inject({ url: "/readyz" })).json().status).toBe("ready");
    const down = await build(async () => {
      throw new Error("db down");
    }).inject({ url: "/readyz" });
    expect(down.statusCode).toBe(503);
    expect(down.json().error.code).toBe("not_ready");
    expect(down.headers["x-request-id"]).toBeDefined();
  });

  test("error: unknown errors become 500 internal_error without internals", async () => {
    const res = await build().inject({ url: "/boom" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: {
        code: "internal_error",
        message: "internal server error",
        request_id: res.headers["x-request-id"],
      },
    });
    expect(res.body).not.toContain("secret");
  });

  test("error: AppError maps through the table", async () => {
    const res = await build().inject({ url: "/gone" });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("not_found");
    expect(res.headers["content-type"]).toContain("application/json");
  });

  test("error: schema validation is invalid_request with field details", async () => {
    const res = await build().inject({ url: "/items?limit=101" });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
    expect(res.json().error.details[0].field).toBe("limit");
  });

  test("error: unknown route 404, wrong method 405 with Allow", async () => {
    const app = build();
    const missing = await app.inject({ url: "/nope" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe("not_found");
    const wrong = await app.inject({ method: "DELETE", url: "/items" });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.json().error.code).toBe("method_not_allowed");
    expect(wrong.headers.allow).toContain("GET");
  });

  test("error: malformed JSON body is invalid_request", async () => {
    const res = await build().inject({
      method: "POST",
      url: "/echo",
      headers: { "content-type": "application/json" },
      payload: "{bad",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("invalid_request");
  });
});
