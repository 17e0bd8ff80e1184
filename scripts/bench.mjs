#!/usr/bin/env node
// `pnpm bench [name...]`: runs bench/<name>.ts from sources (all benchmarks when no name is given).
// Each prints a table, then one JSON line per figure set ({"bench": "...", ...}).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const available = readdirSync(new URL("../bench/", import.meta.url))
  .filter((f) => f.endsWith(".ts") && !f.includes(".test.") && !f.startsWith("_") && !f.includes("-lib"))
  .map((f) => f.replace(/\.ts$/, ""));
const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const extra = process.argv.slice(2).filter((a) => a.startsWith("-"));
const chosen = names.length > 0 ? names : available;
for (const name of chosen) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(", ")}`);
    process.exit(2);
  }
  const result = spawnSync(
    process.execPath,
    ["--conditions=tmi-source", "--import", "tsx", `bench/${name}.ts`, ...extra],
    { stdio: "inherit" },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}
