// Checks real answers against the OpenAPI document the API publishes (`/api/v1/openapi.json`), so
// that the document cannot drift from what is served: for a request that matches a documented
// route, the answer's status must be documented and its JSON body must validate against the
// documented schema of that status (JSON Schema 2020-12, as OpenAPI 3.1 uses).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** A documented operation. */
export interface OpenApiOperation {
  method: string;
  /** Path template, e.g. `/api/v1/tokens/{address}`. */
  template: string;
  /** Documented statuses. */
  statuses: Set<number>;
}

/** Result of {@link OpenApiChecker.check}: `null` when the answer agrees with the document. */
export type OpenApiProblem = string | null;

/** Checker over one OpenAPI document (see the file comment). */
export interface OpenApiChecker {
  operations: OpenApiOperation[];
  /** The operation a request matches (literal routes before templated ones), if any. */
  find(method: string, path: string): OpenApiOperation | undefined;
  /** Compares an answer with the document; requests of no documented route are not checked. */
  check(method: string, pathAndQuery: string, status: number, body: unknown): OpenApiProblem;
}

/**
 * Statuses any route may answer that docs/api.md documents once for all routes (not per route in
 * the document): 304 (If-None-Match), 405, 414/431 (over-long URL or headers), 429 (rate limit).
 */
export const GLOBAL_STATUSES: ReadonlySet<number> = new Set([304, 405, 414, 429, 431]);

type Doc = { paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

/** JSON pointer segment, URI-fragment encoded. */
const pointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, "~0").replace(/\//g, "~1"));

/** Builds a checker for `doc` (an OpenAPI 3.1 document). */
export function openApiChecker(doc: unknown): OpenApiChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, "openapi");
  const operations: (OpenApiOperation & { regex: RegExp; literal: boolean })[] = [];
  for (const [template, ops] of Object.entries((doc as Doc).paths ?? {})) {
    const regex = new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}/?$`,
    );
    for (const [method, op] of Object.entries(ops)) {
      operations.push({
        method: method.toUpperCase(),
        template,
        regex,
        literal: !template.includes("{"),
        statuses: new Set(
          Object.keys(op.responses ?? {})
            .map(Number)
            .filter(Number.isFinite),
        ),
      });
    }
  }
  operations.sort((a, b) => Number(b.literal) - Number(a.literal));
  const validators = new Map<string, ReturnType<Ajv2020["compile"]> | null>();
  const validator = (op: OpenApiOperation, status: number) => {
    const key = `${op.method} ${op.template} ${status}`;
    if (!validators.has(key)) {
      const response = (doc as Doc).paths?.[op.template]?.[op.method.toLowerCase()]?.responses?.[status] as
        | { content?: Record<string, { schema?: unknown }> }
        | undefined;
      const json = response?.content && Object.keys(response.content).find((t) => t.includes("json"));
      validators.set(
        key,
        json && response?.content?.[json]?.schema
          ? ajv.compile({
              $ref: `openapi#/paths/${pointer(op.template)}/${op.method.toLowerCase()}/responses/${status}/content/${pointer(json)}/schema`,
            })
          : null,
      );
    }
    return validators.get(key) ?? null;
  };
  const find = (method: string, path: string) =>
    operations.find((op) => op.method === method && op.regex.test(path));
  return {
    operations,
    find,
    check(method, pathAndQuery, status, body) {
      const path = pathAndQuery.split("?")[0]!;
      const op = find(method, path);
      if (!op) return null;
      if (!op.statuses.has(status))
        return GLOBAL_STATUSES.has(status)
          ? null
          : `${method} ${op.template}: status ${status} is not documented`;
      const validate = validator(op, status);
      if (!validate || validate(body)) return null;
      return `${method} ${op.template} → ${status}: ${ajv.errorsText(validate.errors, { separator: "; " }).slice(0, 400)}`;
    },
  };
}
