// Collects real responses seen through the gateway during the contract tests and renders them as
// docs/api-examples.md (written only when API_EXAMPLES_OUT names the file: `pnpm docs:api-examples`).
import { writeFileSync } from "node:fs";
import type { JsonResponse } from "./system.js";

/** One captured exchange. */
export interface ApiExample {
  /** Section it is listed under (e.g. "Tokens"). */
  section: string;
  title: string;
  method: string;
  /** Path and query as sent. */
  path: string;
  /** Request body as shown (JSON value or a description of a multipart form). */
  request?: unknown;
  /** Response headers worth showing (lowercase names). */
  headers?: string[];
  response: JsonResponse;
  /** Items kept of a list (`items`, `tokens`, `candles`); the rest is cut and the title says so. */
  keepItems?: number;
}

const LIST_KEYS = ["items", "tokens", "candles"] as const;

/** Copy of `body` with its long lists cut to `keep` items; returns the body and how many were cut. */
function cutLists(body: unknown, keep: number): { body: unknown; cut: number } {
  if (!body || typeof body !== "object" || Array.isArray(body)) return { body, cut: 0 };
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  let cut = 0;
  for (const key of LIST_KEYS) {
    const list = copy[key];
    if (Array.isArray(list) && list.length > keep) {
      cut += list.length - keep;
      copy[key] = key === "candles" ? list.slice(-keep) : list.slice(0, keep);
    }
  }
  return { body: copy, cut };
}

/** Collects {@link ApiExample}s in order and renders them. */
export class ApiExampleLog {
  readonly examples: ApiExample[] = [];

  /** Adds an example; returns its response for chaining. */
  add(example: ApiExample): JsonResponse {
    this.examples.push(example);
    return example.response;
  }

  /** The markdown document (sections in first-seen order). */
  render(intro: string): string {
    const sections = new Map<string, ApiExample[]>();
    for (const example of this.examples) {
      const list = sections.get(example.section) ?? [];
      list.push(example);
      sections.set(example.section, list);
    }
    const out: string[] = ["# API examples, as actually returned", "", intro.trim(), ""];
    for (const [section, examples] of sections) {
      out.push(`## ${section}`, "");
      for (const example of examples) {
        const { body, cut } = cutLists(example.response.body, example.keepItems ?? 2);
        const note = cut > 0 ? ` (${cut} list items cut)` : "";
        out.push(`### ${example.title}${note}`, "");
        out.push(`\`${example.method} ${example.path}\` → ${example.response.status}`, "");
        if (example.request !== undefined) {
          const form = (example.request as Record<string, unknown> | null)?.["multipart/form-data"];
          const [label, shown] = form
            ? ["Request (multipart/form-data fields):", form]
            : ["Request body:", example.request];
          out.push(label, "", "```json", JSON.stringify(shown, null, 2), "```", "");
        }
        const shown = (example.headers ?? [])
          .map((name) => [name, example.response.headers.get(name)] as const)
          .filter(([, value]) => value !== null);
        if (shown.length > 0) {
          out.push("```http", ...shown.map(([name, value]) => `${name}: ${value}`), "```", "");
        }
        if (typeof body === "string") out.push("```", body, "```", "");
        else if (body !== null) out.push("```json", JSON.stringify(body, null, 2), "```", "");
      }
    }
    return `${out.join("\n").trimEnd()}\n`;
  }

  /** Writes {@link render} to `file`. */
  write(file: string, intro: string): void {
    writeFileSync(file, this.render(intro));
  }
}
