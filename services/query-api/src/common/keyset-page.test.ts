import { createCursorCodec } from "@tmi/shared/codec";
import { describe, expect, it } from "vitest";
import { TOKEN_HOLDERS } from "../tokens/holders/holder-queries.js";
import {
  CHAIN_POSITION_KEY,
  decodeKeyset,
  type KeysetSource,
  keysetPositionOf,
  keysetSql,
} from "./keyset-page.js";

const trades: KeysetSource = {
  name: "t",
  select: "r.block_number, r.transaction_index, r.log_index, r.transaction_hash",
  from: "trades r",
  where: "r.token_address = $1",
  key: CHAIN_POSITION_KEY,
  parent: { from: "tokens t", where: "t.address = $1" },
};

const holders = TOKEN_HOLDERS;

describe("keysetSql", () => {
  it("default: the first page orders by the key under the constant limit, the page size after the filters, inside the parent's lateral join", () => {
    expect(keysetSql(trades, "desc", false, 1)).toBe(`SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT * FROM (SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash
  FROM trades r WHERE r.token_address = $1
  ORDER BY r.block_number DESC, r.transaction_index DESC, r.log_index DESC, r.transaction_hash DESC
  LIMIT 101) page ORDER BY page.block_number DESC, page.transaction_index DESC, page.log_index DESC, page.transaction_hash DESC LIMIT $2) x ON true WHERE t.address = $1`);
  });

  it("behavior: one direction is a row comparison; asc reverses it", () => {
    const desc = keysetSql(trades, "desc", true, 1);
    expect(desc).toContain(
      "AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) < ($2::int8, $3::int4, $4::int4, $5::text)",
    );
    expect(desc).toContain("LIMIT 101) page ORDER BY");
    expect(desc).toContain("LIMIT $6)");
    const asc = keysetSql(trades, "asc", true, 1);
    expect(asc).toContain(") > ($2::int8, $3::int4, $4::int4, $5::text)");
    expect(asc).toContain(
      "ORDER BY r.block_number ASC, r.transaction_index ASC, r.log_index ASC, r.transaction_hash ASC",
    );
  });

  it("behavior: mixed directions expand lexicographically; no parent, no lateral join", () => {
    const sql = keysetSql(holders, "desc", true, 3);
    expect(sql).toContain(
      "AND b.balance <= $4::numeric AND (b.balance < $4::numeric OR (b.balance = $4::numeric AND b.holder > $5::text))",
    );
    expect(sql).toContain(
      "ORDER BY b.balance DESC, b.holder ASC\n  LIMIT 101) page ORDER BY page.balance DESC, page.holder ASC LIMIT $6",
    );
    expect(sql.startsWith("SELECT * FROM (SELECT b.holder, b.balance,")).toBe(true);
    expect(keysetSql(holders, "asc", true, 3)).toContain(
      "AND b.balance >= $4::numeric AND (b.balance > $4::numeric OR (b.balance = $4::numeric AND b.holder < $5::text))",
    );
  });
});

describe("keyset cursors", () => {
  const cursors = createCursorCodec("keyset-test-secret-0123456789");

  it("default: a row's position round-trips through a cursor of its route", () => {
    const position = keysetPositionOf(holders, { holder: "0xab", balance: "1000000000000000000000" });
    expect(position).toEqual([10n ** 21n, "0xab"]);
    expect(decodeKeyset(cursors, "r", holders, cursors.encode("r", position))).toEqual(position);
    expect(
      keysetPositionOf(trades, {
        block_number: "7",
        transaction_index: 1,
        log_index: 2,
        transaction_hash: "0x1",
      }),
    ).toEqual([7n, 1, 2, "0x1"]);
  });

  it("error: a cursor of another route or of another shape is invalid_request", () => {
    expect(() => decodeKeyset(cursors, "r", holders, cursors.encode("other", [1n, "0xab"]))).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
    expect(() => decodeKeyset(cursors, "r", holders, cursors.encode("r", ["1", "0xab"]))).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
    expect(() => decodeKeyset(cursors, "r", trades, cursors.encode("r", [1n, "0xab"]))).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
    expect(decodeKeyset(cursors, "r", trades, undefined)).toBeNull();
  });
});
