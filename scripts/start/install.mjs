// Step 1 of `pnpm start`: a recent enough Node, the workspace's dependencies installed, and the
// contracts, Prisma client and TypeScript projects the system runs built when missing or stale.
// Node built-ins only: this runs before the dependencies exist.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fail, say, warn } from "./output.mjs";
import { ROOT } from "./settings.mjs";

/** The projects the running system needs, in build order. */
const SERVICE_PROJECTS = [
  "services/indexer",
  "services/query-api",
  "services/metadata-api",
  "services/oracle-price",
  "services/gateway",
];
const PROJECTS = ["packages/shared", "prisma", "packages/contracts", "packages/devnet", ...SERVICE_PROJECTS];
/** Files the start needs from the build. */
const REQUIRED_OUTPUTS = [
  "prisma/dist/index.js",
  "packages/devnet/dist/cli.js",
  ...SERVICE_PROJECTS.map((p) => `${p}/dist/main.js`),
  "services/metadata-api/dist/worker.js",
];

const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** Newest modification time (ms) of the build inputs under `dir` (skips node_modules, dist, dot files, tests). */
function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
      if (entry.name.endsWith(".test.ts")) continue;
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  walk(dir);
  return newest;
}

/** Runs a command in the foreground (output inherited); exits with a message when it fails. */
function runOrFail(command, args, what) {
  say(`${what}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  if (result.error) fail(`${what} failed: ${result.error.message}`);
  if (result.status !== 0) fail(`${what} failed (exit ${result.status}); see the output above`);
}

/** Exits with a message on a Node older than the workspace's engines (>= 20.18). */
export function ensureNode() {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 18))
    fail(`Node ${process.versions.node} is too old: Node >= 20.18 is needed`);
}

/** Runs `pnpm install --frozen-lockfile` when node_modules is missing or older than the lockfile. */
export function ensureInstalled() {
  const marker = join(ROOT, "node_modules", ".modules.yaml");
  if (existsSync(marker) && mtime(marker) >= mtime(join(ROOT, "pnpm-lock.yaml")) - 1000) return;
  const pnpm = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (pnpm.error || pnpm.status !== 0) {
    fail(
      "pnpm is not installed. Install it with `npm install -g pnpm@12` (or `corepack enable`) and run `pnpm start` again.",
    );
  }
  runOrFail("pnpm", ["install", "--frozen-lockfile"], "installing dependencies");
}

/**
 * Builds what the system runs when it is missing or older than its sources: the contracts (their
 * build script returns at once when its inputs' hash is unchanged), the Prisma client, and the
 * TypeScript projects. tsc emits JavaScript despite type errors: the start goes on with a warning.
 */
export function ensureBuilt() {
  const contracts = spawnSync(
    process.execPath,
    [join(ROOT, "packages/contracts/scripts/build.mjs"), "--quiet"],
    {
      cwd: ROOT,
      stdio: "inherit",
    },
  );
  if (contracts.status !== 0)
    fail("compiling the contracts failed (packages/contracts/scripts/build.mjs); see above");
  const reasons = [];
  const generated = join(ROOT, "prisma/src/generated");
  if (!existsSync(generated) || newestMtime(generated) < mtime(join(ROOT, "prisma/schema.prisma")))
    reasons.push("prisma client");
  const stale = PROJECTS.filter((project) => {
    const info = join(ROOT, project, "dist/.tsbuildinfo");
    return !existsSync(info) || newestMtime(join(ROOT, project, "src")) > mtime(info);
  });
  const missing = REQUIRED_OUTPUTS.filter((file) => !existsSync(join(ROOT, file)));
  reasons.push(...new Set([...stale, ...missing.map((f) => f.split("/dist/")[0])]));
  if (!reasons.length) return;
  say(`building (${[...new Set(reasons)].join(", ")})`);
  if (reasons.includes("prisma client"))
    runOrFail("pnpm", ["--filter", "@tmi/db", "generate"], "generating the Prisma client");
  say(`compiling TypeScript: tsc -b ${PROJECTS.join(" ")}`);
  const tsc = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-b", ...PROJECTS], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (tsc.error) fail(`compiling TypeScript failed: ${tsc.error.message}`);
  if (tsc.status !== 0) warn("TypeScript reported errors (above); starting with the JavaScript it emitted");
  const stillMissing = REQUIRED_OUTPUTS.filter((file) => !existsSync(join(ROOT, file)));
  if (stillMissing.length) fail(`the build did not produce ${stillMissing.join(", ")}`);
}
