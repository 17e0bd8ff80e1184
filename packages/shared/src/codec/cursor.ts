import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "../errors/index.js";

/** One component of a keyset position: strings, safe integers or bigints (sent as strings). */
export type CursorValue = string | number | bigint;

const VERSION = 1;
const TAG_BYTES = 16;

/**
 * Opaque pagination cursors (docs/api.md): a keyset position, bound to one route, encoded as
 * base64url JSON plus a truncated HMAC-SHA256 tag keyed with `CURSOR_SECRET`.
 * Format: `<base64url(json)>.<base64url(tag)>`, json = `{"v":1,"r":route,"p":[...]}`;
 * bigints travel as `{"b":"<decimal>"}` so they come back as bigints.
 */
export interface CursorCodec {
  /** Encodes `position` for `route` (a stable route id such as `"tokens.trades"`). */
  encode(route: string, position: readonly CursorValue[]): string;
  /**
   * Decodes a cursor made by {@link encode} for the same `route`.
   * @throws AppError `invalid_request` when the cursor is malformed, tampered with,
   *   made for another route, of another format version, or of another arity than `arity`.
   */
  decode(route: string, cursor: string, arity?: number): CursorValue[];
}

/** Creates a cursor codec keyed with `secret` (at least 16 characters). */
export function createCursorCodec(secret: string): CursorCodec {
  if (secret.length < 16) throw new Error("CURSOR_SECRET must be at least 16 characters");
  const tag = (payload: string) =>
    createHmac("sha256", secret).update(payload).digest().subarray(0, TAG_BYTES);
  const invalid = () =>
    new AppError("invalid_request", "invalid cursor", {
      details: [{ field: "cursor", reason: "not a cursor issued by this route" }],
    });

  return {
    encode(route, position) {
      const p = position.map((v) => (typeof v === "bigint" ? { b: v.toString() } : v));
      const payload = Buffer.from(JSON.stringify({ v: VERSION, r: route, p })).toString("base64url");
      return `${payload}.${tag(`${route}\n${payload}`).toString("base64url")}`;
    },
    decode(route, cursor, arity) {
      if (cursor.length === 0 || cursor.length > 1024 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(cursor))
        throw invalid();
      const [payload, mac] = cursor.split(".") as [string, string];
      const given = Buffer.from(mac, "base64url");
      const expected = tag(`${route}\n${payload}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        throw invalid();
      }
      if (typeof parsed !== "object" || parsed === null) throw invalid();
      const { v, r, p } = parsed as { v?: unknown; r?: unknown; p?: unknown };
      if (v !== VERSION || r !== route || !Array.isArray(p)) throw invalid();
      if (arity !== undefined && p.length !== arity) throw invalid();
      return p.map((item: unknown) => {
        if (typeof item === "string") return item;
        if (typeof item === "number" && Number.isSafeInteger(item)) return item;
        if (typeof item === "object" && item !== null && typeof (item as { b?: unknown }).b === "string") {
          const s = (item as { b: string }).b;
          if (!/^-?\d{1,80}$/.test(s)) throw invalid();
          return BigInt(s);
        }
        throw invalid();
      });
    },
  };
}
