import { describe, expect, test } from "vitest";
import { AppError } from "../errors/index.js";
import { createCursorCodec } from "./cursor.js";

const codec = createCursorCodec("test-secret-0123456789");

describe("createCursorCodec", () => {
  test("default: round-trips strings, numbers and bigints", () => {
    const position = ["0xabc", 42, 123456789012345678901234567890n];
    const cursor = codec.encode("tokens.trades", position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode("tokens.trades", cursor, 3)).toEqual(position);
  });

  test("error: a cursor of another route is invalid_request", () => {
    const cursor = codec.encode("tokens.trades", [1]);
    expect(() => codec.decode("tokens.activity", cursor)).toThrowError(AppError);
    try {
      codec.decode("tokens.activity", cursor);
    } catch (error) {
      expect((error as AppError).code).toBe("invalid_request");
      expect((error as AppError).status).toBe(400);
    }
  });

  test("error: a tampered payload is rejected", () => {
    const cursor = codec.encode("tokens.list", [10, 2]);
    const [payload, mac] = cursor.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ v: 1, r: "tokens.list", p: [0, 0] })).toString("base64url");
    expect(() => codec.decode("tokens.list", `${forged}.${mac}`)).toThrowError(/invalid cursor/);
    expect(() => codec.decode("tokens.list", `${payload}.${mac.slice(1)}A`)).toThrowError(/invalid cursor/);
  });

  test("error: a cursor made with another secret is rejected", () => {
    const other = createCursorCodec("another-secret-0123456789");
    expect(() => codec.decode("tokens.list", other.encode("tokens.list", [1]))).toThrowError(
      /invalid cursor/,
    );
  });

  test("error: garbage, empty, oversized and wrong-arity cursors are rejected", () => {
    for (const bad of ["", "abc", "a.b.c", "!!.??", "x".repeat(2000)]) {
      expect(() => codec.decode("tokens.list", bad), bad).toThrowError(/invalid cursor/);
    }
    expect(() => codec.decode("tokens.list", codec.encode("tokens.list", [1, 2]), 3)).toThrowError(
      /invalid cursor/,
    );
  });

  test("error: a short secret is refused at construction", () => {
    expect(() => createCursorCodec("short")).toThrowError(/at least 16/);
  });
});
