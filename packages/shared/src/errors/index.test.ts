import { describe, expect, test } from "vitest";
import { AppError, codeForStatus, ERROR_STATUS, errorBody, isAppError } from "./index.js";

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
    expect(errorBody(plain, "rid")).toEqual({
      error: { code: "not_found", message: "no token", request_id: "rid" },
    });
    const withDetails = new AppError("invalid_request", "bad", {
      details: [{ field: "name", reason: "too long" }],
    });
    expect(errorBody(withDetails, "rid").error.details).toEqual([{ field: "name", reason: "too long" }]);
    expect(isAppError(withDetails)).toBe(true);
    expect(isAppError(new Error("x"))).toBe(false);
  });

  test("behavior: a bare status maps to the code of the table with that status", () => {
    for (const status of [400, 404, 405, 408, 413, 414, 415, 429, 431, 500, 503, 504]) {
      expect(ERROR_STATUS[codeForStatus(status)]).toBe(status);
    }
    expect(codeForStatus(418)).toBe("invalid_request");
    expect(codeForStatus(502)).toBe("service_unavailable");
  });
});
