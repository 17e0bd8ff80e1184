// `pnpm api-keys create --name <name> [--tier free|pro]` | `pnpm api-keys list` | `pnpm api-keys revoke <id>`
// Operator CLI over `api_keys` (docs/api.md "API keys", docs/operations.md "API keys"), on
// DATABASE_URL (the primary). `create` prints the key once: only its SHA-256 is stored.
import { type CliFail, operatorCli } from "@tmi/shared/cli";
import pg from "pg";
import {
  API_KEY_TIERS,
  type ApiKeyTier,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from "./api-keys/api-keys.js";

const USAGE = `usage:
  pnpm api-keys create --name <name> [--tier free|pro]   (prints the key once)
  pnpm api-keys list
  pnpm api-keys revoke <id>
env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/tmi)`;

const cli = operatorCli(USAGE, {
  name: { type: "string" },
  tier: { type: "string" },
});
const { values, positionals, databaseUrl } = cli;
const fail: CliFail = cli.fail;
const [command, id, ...rest] = positionals;
if (rest.length > 0) fail(`unexpected arguments: ${rest.join(" ")}`);

const db = new pg.Pool({ connectionString: databaseUrl(), max: 1, application_name: "tmi-api-keys-cli" });

try {
  switch (command) {
    case "create": {
      if (id !== undefined) fail("create takes no positional argument");
      const name = typeof values.name === "string" ? values.name.trim() : "";
      if (name === "" || name.length > 200) fail("create needs --name <name> (1 to 200 characters)");
      const tier = (values.tier ?? "free") as ApiKeyTier;
      if (!API_KEY_TIERS.includes(tier)) fail("--tier must be free or pro");
      const created = await createApiKey(db, { name, tier });
      process.stdout.write(
        `id\t${created.id}\nname\t${name}\ntier\t${tier}\nkey\t${created.key}\n(the key is shown only now: store it)\n`,
      );
      break;
    }
    case "list": {
      if (id !== undefined) fail("list takes no argument");
      const rows = await listApiKeys(db);
      for (const row of rows)
        process.stdout.write(
          `${row.id}\t${row.tier}\t${row.keyStart}…\t${row.createdAt.toISOString()}\t${row.revokedAt ? `revoked ${row.revokedAt.toISOString()}` : "active"}\t${row.name}\n`,
        );
      if (rows.length === 0) process.stdout.write("no api keys\n");
      break;
    }
    case "revoke": {
      if (id === undefined) fail("revoke needs an id");
      const outcome = await revokeApiKey(db, id);
      if (outcome === "not_found") fail(`no api key ${id}`, 1);
      process.stdout.write(`${outcome === "revoked" ? "revoked" : "already revoked:"} ${id}\n`);
      break;
    }
    default:
      fail(command === undefined ? "missing command" : `unknown command "${command}"`);
  }
} catch (error) {
  fail(`api-keys: ${(error as Error).message}`, 1);
} finally {
  await db.end().catch(() => {});
}
