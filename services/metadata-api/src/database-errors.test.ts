import { describe, expect, test } from "vitest";
import { databaseUnavailable } from "./database-errors.js";

describe("databaseUnavailable", () => {
  test("default", () => {
    const error = databaseUnavailable(
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5"), { code: "ECONNREFUSED" }),
    );
    expect(error).toMatchObject({
      code: "service_unavailable",
      status: 503,
      headers: { "retry-after": "5" },
    });
  });

  test("behavior: connection losses, server shutdown and exhausted pools through cause chains", () => {
    const cases: unknown[] = [
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      Object.assign(new Error("x"), { code: "08006" }),
      Object.assign(new Error("pool timeout"), { code: "P2024" }),
      Object.assign(new Error("wrapped"), {
        cause: Object.assign(new Error("write EPIPE"), { code: "EPIPE" }),
      }),
      Object.assign(new Error("adapter"), {
        meta: { driverAdapterError: { cause: { code: "ECONNRESET" } } },
      }),
      new Error("Connection terminated unexpectedly"),
    ];
    for (const error of cases) expect(databaseUnavailable(error), String(error)).not.toBeNull();
  });

  test("error: other errors are not an outage", () => {
    for (const error of [
      new Error("boom"),
      Object.assign(new Error("duplicate key"), { code: "23505" }),
      Object.assign(new Error("syntax"), { code: "42601" }),
      null,
      "text",
    ]) {
      expect(databaseUnavailable(error)).toBeNull();
    }
  });
});
