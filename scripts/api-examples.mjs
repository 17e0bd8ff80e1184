#!/usr/bin/env node
// `pnpm docs:api-examples`: regenerates docs/api-examples.md from real answers. Runs the contract
// tests (test/contract/contract.int.test.ts: the whole system on a devnet, every route through the
// gateway, every answer parsed with the contract schemas) with API_EXAMPLES_OUT set; the document
// replaces docs/api-examples.md only when every contract test passed. Needs PostgreSQL and Redis
// as for `pnpm test`.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const out = fileURLToPath(new URL("../docs/api-examples.md", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "tmi-api-examples-"));
const draft = join(dir, "api-examples.md");
const result = spawnSync(
  "pnpm",
  ["exec", "vitest", "run", "--project", "integration", "test/contract/contract.int.test.ts"],
  { stdio: "inherit", env: { ...process.env, API_EXAMPLES_OUT: draft } },
);
try {
  if (result.status !== 0) {
    process.stderr.write("contract tests failed: docs/api-examples.md left as it was\n");
    process.exit(result.status ?? 1);
  }
  copyFileSync(draft, out);
  // The JSON blocks as the project's formatter writes them (CI's lint checks markdown too).
  spawnSync("pnpm", ["exec", "biome", "format", "--write", out], { stdio: "ignore" });
  process.stdout.write(`wrote ${out}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
