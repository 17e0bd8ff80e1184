import { describe, expect, test } from "vitest";
import { AppError, ERROR_STATUS, errorBody, isAppError } from "./index.js";

describe("AppError", () => {
  test("default: status comes from the one table", () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(new AppError(code as keyof typeof ERROR_STATUS, "x").status).toBe(status);
    }
    expect(ERROR_STATUS.invalid_interval).toBe(400);
    expect(ERROR_STATUS.not_indexed).toBe(409);
    expect(ERROR_STATUS.oracle_unavailable).toBe(503);
  });

  test("behavior: body carries details only when present, never the cause", () => {
    const plain = new AppError("not_found", "no token", { cause: new Error("secret sql") });
    expect(errorBody(plain, "rid")).toEqual({ code: "not_found", message: "no token", request_id: "rid" });
    const withDetails = new AppError("invalid_request", "bad", {
      details: [{ field: "name", reason: "too long" }],
    });
    expect(errorBody(withDetails, "rid").details).toEqual([{ field: "name", reason: "too long" }]);
    expect(isAppError(withDetails)).toBe(true);
    expect(isAppError(new Error("x"))).toBe(false);
  });
});
