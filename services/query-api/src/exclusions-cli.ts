// `pnpm exclusions add|remove|list [<address>] [--kind token|creator] [--reason "..."]`
// Operator CLI over `excluded_addresses` (docs/operations.md "Exclusions"), on DATABASE_URL (the
// primary: this is the one write path of query-api's package, separate from the server's
// read-only pool), through the read-write Prisma client.

import { createDb } from "@tmi/db";
import { type CliFail, operatorCli } from "@tmi/shared/cli";
import { isAppError } from "@tmi/shared/errors";
import { addExclusion, type ExclusionKind, listExclusions, removeExclusion } from "./exclusions.js";

const USAGE = `usage:
  pnpm exclusions add <address> --kind token|creator --reason "<why>"
  pnpm exclusions remove <address> --kind token|creator
  pnpm exclusions list [<address>] [--kind token|creator]
env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/tmi)`;

const cli = operatorCli(USAGE, {
  kind: { type: "string" },
  reason: { type: "string" },
});
const { values, positionals, databaseUrl, cause } = cli;
const fail: CliFail = cli.fail;
const [command, address, ...rest] = positionals;
if (rest.length > 0) fail(`unexpected arguments: ${rest.join(" ")}`);
const kindValue = values.kind;
if (kindValue !== undefined && kindValue !== "token" && kindValue !== "creator")
  fail("--kind must be token or creator");
const kind = kindValue as ExclusionKind | undefined;

const client = createDb({ url: databaseUrl(), max: 1, applicationName: "tmi-exclusions-cli" });

try {
  switch (command) {
    case "add": {
      if (address === undefined) fail("add needs an address");
      if (kind === undefined) fail("add needs --kind token|creator");
      const reason = typeof values.reason === "string" ? values.reason.trim() : "";
      if (reason === "") fail('add needs --reason "<why>"');
      const inserted = await addExclusion(client, { address, kind, reason });
      process.stdout.write(`${inserted ? "added" : "updated"} ${kind} ${address.toLowerCase()}\n`);
      break;
    }
    case "remove": {
      if (address === undefined) fail("remove needs an address");
      if (kind === undefined) fail("remove needs --kind token|creator");
      const removed = await removeExclusion(client, { address, kind });
      process.stdout.write(`${removed ? "removed" : "not excluded:"} ${kind} ${address.toLowerCase()}\n`);
      break;
    }
    case "list": {
      const rows = await listExclusions(client, {
        ...(kind ? { kind } : {}),
        ...(address ? { address } : {}),
      });
      for (const row of rows)
        process.stdout.write(`${row.address}\t${row.kind}\t${row.created_at}\t${row.reason}\n`);
      if (rows.length === 0) process.stdout.write("no exclusions\n");
      break;
    }
    default:
      fail(command === undefined ? "missing command" : `unknown command "${command}"`);
  }
} catch (error) {
  if (isAppError(error)) fail(error.message);
  fail(`exclusions: ${cause(error)}`, 1);
} finally {
  await client.$disconnect().catch(() => {});
}
