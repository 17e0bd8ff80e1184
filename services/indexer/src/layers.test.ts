import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The indexer's folders from the bottom up: a module may import only modules of a lower layer
 * (or of its own folder). The write path runs one way — fetch → select → build → prepare → write —
 * under the orchestrators (`core/`, `sync/`, the entry point). Files directly in `src/` are each
 * their own node (`errors.ts`, …).
 */
const LAYERS: readonly (readonly string[])[] = [
  ["sql", "errors.ts", "config.ts", "metrics.ts", "sync-telemetry.ts", "app.ts"],
  ["rpc", "decode"],
  ["model"],
  ["events"],
  ["fetch"],
  ["select"],
  ["build"],
  ["prepare"],
  ["write"],
  ["core"],
  ["sync"],
  ["testing", "main.ts"],
];

const SRC = dirname(fileURLToPath(import.meta.url));

/** Source files of `src/` outside tests and declaration files. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return d.name.endsWith(".ts") && !d.name.endsWith(".test.ts") && !d.name.endsWith(".d.ts") ? [p] : [];
  });
}

/** The node of a file: its top folder under `src/`, or its own name for a file directly there. */
const nodeOf = (file: string): string => relative(SRC, file).split("/")[0]!;

/** folder → folder imports (relative specifiers of `import`/`export … from`/`import()`), counted. */
function folderImports(): Map<string, Map<string, number>> {
  const graph = new Map<string, Map<string, number>>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const from = nodeOf(file);
      const to = nodeOf(resolve(dirname(file), m[1]!).replace(/\.js$/, ".ts"));
      if (from === to) continue;
      const out = graph.get(from) ?? new Map<string, number>();
      out.set(to, (out.get(to) ?? 0) + 1);
      graph.set(from, out);
    }
  }
  return graph;
}

describe("indexer folder layers", () => {
  const graph = folderImports();
  const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((node) => [node, i] as const)));

  it("default: every folder and top-level file has a declared layer", () => {
    const nodes = new Set(sourceFiles(SRC).map(nodeOf));
    expect([...nodes].filter((n) => !rank.has(n))).toEqual([]);
  });

  it("default: each import goes to a lower layer (the write path runs one way)", () => {
    const upward: string[] = [];
    for (const [from, out] of graph)
      for (const to of out.keys()) if (!(rank.get(to)! < rank.get(from)!)) upward.push(`${from} -> ${to}`);
    expect(upward).toEqual([]);
  });

  it("default: the folder graph has no cycle", () => {
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (node: string, path: string[]): void => {
      if (state.get(node) === "done") return;
      if (state.get(node) === "open") {
        cycles.push([...path.slice(path.indexOf(node)), node].join(" -> "));
        return;
      }
      state.set(node, "open");
      for (const to of graph.get(node)?.keys() ?? []) visit(to, [...path, node]);
      state.set(node, "done");
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it("error: the check sees an upward import (the graph is read, not empty)", () => {
    expect(graph.get("sync")?.get("core")).toBeGreaterThan(0);
    expect(graph.get("build")?.get("events")).toBeGreaterThan(0);
  });
});
