#!/usr/bin/env node
// `pnpm test`: everything CI runs. Build (contracts, Prisma client, tsc -b type check), lint,
// schema/migration drift check, then the unit and integration test projects. Ends with one
// summary line "N passed, M failed".
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";

const run = (label, cmd, args, options = {}) => {
  process.stdout.write(`\n== ${label}\n`);
  const started = Date.now();
  const result = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...options.env } });
  process.stdout.write(
    `== ${label}: ${result.status === 0 ? "ok" : "FAILED"} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
  return result.status === 0;
};

const only = process.argv.slice(2);
let ok = true;
ok = run("build", "pnpm", ["build"]) && ok;
if (!ok) process.exit(1);
ok = run("lint", "pnpm", ["exec", "biome", "ci", "."]) && ok;
ok = run("schema drift check", "pnpm", ["db:check"]) && ok;

mkdirSync(".data", { recursive: true });
const report = ".data/vitest-report.json";
const vitestOk = run("vitest (unit + integration)", "pnpm", [
  "exec",
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
  ...only,
]);
ok = vitestOk && ok;

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed = json.numPassedTests ?? 0;
  failed = (json.numFailedTests ?? 0) + (json.numFailedTestSuites ?? 0);
  skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
} catch {
  failed += 1;
}
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(ok && failed === 0 && passed > 0 ? 0 : 1);
