// `pnpm metadata unbind <token>` | `pnpm metadata show <token>`
// Operator command over `metadata_drafts` on DATABASE_URL (docs/operations.md "Metadata bindings"):
// `unbind` puts the draft bound to (or pending for) a token back to `draft`, so the token shows no
// metadata until someone finalizes again (an unsigned binding, or the creator's signed one);
// `show` prints who holds the token, for which launch transaction, and whether that binding is
// current (its launch is the indexed one) or was made for a launch a reorg removed (shown nowhere).
// Exit 0 done, 1 failure, 2 usage.

import { createDb } from "@tmi/db";
import { type CliFail, operatorCli } from "@tmi/shared/cli";
import { parseAddress } from "@tmi/shared/codec";
import { isAppError } from "@tmi/shared/errors";
import { findDraftByToken, isBindingCurrent, unbindToken } from "./drafts/draft-queries.js";

const USAGE = `usage:
  pnpm metadata unbind <token>   release the metadata bound to (or pending for) <token>
  pnpm metadata show <token>     print the draft bound to <token>, its launch transaction and
                                 whether the binding is current (not: its launch was reorged out)
env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/tmi)`;

/**
 * Who signed the draft's claim: `verified by <creator>` (bound, signed by the creator), `signed by
 * <address>` (pending, signed by the receipt's creator: it binds verified once indexed and no
 * other draft's finalize releases it), else `unverified`.
 */
function signature(draft: { verified: boolean; signer: string | null }): string {
  if (draft.verified) return `verified by ${draft.signer}`;
  return draft.signer !== null ? `signed by ${draft.signer}` : "unverified";
}

const cli = operatorCli(USAGE, {});
const { positionals, databaseUrl, cause } = cli;
const fail: CliFail = cli.fail;
const [command, tokenArg, ...rest] = positionals;
if (command !== "unbind" && command !== "show")
  fail(command === undefined ? "missing command" : `unknown command "${command}"`);
if (tokenArg === undefined) fail(`${command} needs a token address`);
if (rest.length > 0) fail(`unexpected arguments: ${rest.join(" ")}`);
let token: string;
try {
  token = parseAddress(tokenArg, "token");
} catch (error) {
  fail(isAppError(error) ? error.message : String(error));
}
const db = createDb({ url: databaseUrl(), max: 1, applicationName: "tmi-metadata-cli" });
try {
  if (command === "unbind") {
    const released = await unbindToken(db, token);
    process.stdout.write(
      released ? `unbound ${token} (draft ${released})\n` : `no metadata bound to ${token}\n`,
    );
  } else {
    const draft = await findDraftByToken(db, token);
    if (!draft) process.stdout.write(`no metadata bound to ${token}\n`);
    else {
      const launch = draft.transactionHash ?? "";
      const state =
        draft.status === "pending"
          ? "waiting for the indexer"
          : (await isBindingCurrent(db, token, launch))
            ? "current"
            : "not current (launch removed by a reorg)";
      process.stdout.write(
        `${token}\tdraft ${draft.id}\t${draft.status}\t${signature(draft)}\t${launch}\t${state}\n`,
      );
    }
  }
} catch (error) {
  process.stderr.write(`metadata: ${cause(error)}\n`);
  process.exitCode = 1;
} finally {
  await db.$disconnect().catch(() => {});
}
