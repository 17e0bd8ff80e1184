// Plans of query-api's prepared statements for the plan tests: the statement as a pooled
// connection runs it (custom or generic plan), executed under `EXPLAIN (ANALYZE, FORMAT JSON)`,
// and the rows each of its scans examined.
import { createTestDatabase, type TestDatabase } from "@tmi/testkit";
import pg from "pg";
import { READ_SESSION_SETTINGS } from "../src/db.js";
import { insertSeriesTokens } from "./seed.js";

/** A node of a JSON plan (the fields the tests read). */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Join Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  /** Under VERBOSE: the columns the node outputs. */
  Output?: string[];
  /** A CTE's or subplan's name (`CTE walk`). */
  "Subplan Name"?: string;
  Plans?: PlanNode[];
}

/** Every node of `plan`, depth first (init plans and subplans included). */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/**
 * Rows a node examined over all its executions: the rows it returned and the ones its filters
 * removed (EXPLAIN gives both per loop), times its loops.
 */
export function rowsExamined(node: PlanNode): number {
  const perLoop =
    node["Actual Rows"] +
    (node["Rows Removed by Filter"] ?? 0) +
    (node["Rows Removed by Join Filter"] ?? 0) +
    (node["Rows Removed by Index Recheck"] ?? 0);
  return perLoop * node["Actual Loops"];
}

/** Rows examined by the scans of `relation` in `plan`, summed. */
export function rowsExaminedOn(plan: PlanNode, relation: string): number {
  return planNodes(plan)
    .filter((n) => n["Relation Name"] === relation)
    .reduce((sum, n) => sum + rowsExamined(n), 0);
}

/**
 * `EXECUTE name(<values as literals>)` for the prepared statement `name` on `client`: EXECUTE
 * takes literals (parameters of an EXPLAIN around it do not reach it); arrays as text arrays.
 */
export function executeText(client: pg.ClientBase, name: string, values: readonly unknown[]): string {
  const literal = (v: unknown) =>
    v === null
      ? "NULL"
      : Array.isArray(v)
        ? client.escapeLiteral(`{${v.map((x) => `"${String(x)}"`).join(",")}}`)
        : client.escapeLiteral(String(v));
  return `EXECUTE ${name}${values.length === 0 ? "" : `(${values.map(literal).join(", ")})`}`;
}

/** The plan of `EXPLAIN (<options>, FORMAT JSON) EXECUTE name(values)` on `client`. */
async function explainExecute(
  client: pg.ClientBase,
  options: string,
  name: string,
  values: readonly unknown[],
): Promise<PlanNode> {
  const { rows } = await client.query(
    `EXPLAIN (${options}, FORMAT JSON) ${executeText(client, name, values)}`,
  );
  return (rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
}

/**
 * Runs the prepared statement `name` (already prepared on `client` by the query function under
 * test) with `values` under `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` and returns its plan; the
 * plan is the generic or a custom one as `client`'s `plan_cache_mode` says.
 */
export const explainPrepared = (client: pg.ClientBase, name: string, values: readonly unknown[]) =>
  explainExecute(client, "ANALYZE, BUFFERS", name, values);

/**
 * The plan of the prepared statement `name` on `client` with `values` under
 * `EXPLAIN (VERBOSE, FORMAT JSON)` (not run): each node with its `Output` columns (no actual rows).
 */
export const explainVerbose = (client: pg.ClientBase, name: string, values: readonly unknown[]) =>
  explainExecute(client, "VERBOSE", name, values);

/** The columns every node of `plan` (EXPLAIN VERBOSE) outputs, depth first. */
export function outputsOf(plan: PlanNode): string[] {
  return planNodes(plan).flatMap((node) => node.Output ?? []);
}

/** A `SqlReader` over `client` that keeps the name and values of every prepared statement it runs. */
export function recordingDb(client: pg.ClientBase) {
  const statements: { name: string | undefined; text: string; values: unknown[] }[] = [];
  const db = {
    query(config: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]) {
      const statement =
        typeof config === "string"
          ? { name: undefined, text: config, values: values ?? [] }
          : { name: config.name, text: config.text, values: config.values ?? [] };
      statements.push(statement);
      return client.query(config as string, values);
    },
  };
  return { db: db as unknown as import("../src/db.js").SqlReader, statements };
}

/**
 * A new read session on `url` as query-api opens one (`READ_SESSION_SETTINGS`) under
 * `plan_cache_mode` `mode` (`force_generic_plan`, `force_custom_plan` or `auto`), connected; the
 * caller ends it.
 */
export async function planSession(url: string, mode: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(READ_SESSION_SETTINGS);
    await client.query(`SET plan_cache_mode = ${mode}`);
  } catch (error) {
    await client.end();
    throw error;
  }
  return client;
}

/**
 * A new test database holding tokens 1..`count` of `insertSeriesTokens` (creator: the SQL
 * expression `creator` over `i`), then `statements` run in order, then `ANALYZE`; the caller
 * drops it.
 */
export async function seriesDatabase(
  count: number,
  creator: string,
  statements: readonly string[],
): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await insertSeriesTokens(admin, count, creator);
    for (const statement of statements) await admin.query(statement);
    await admin.query("ANALYZE");
  } finally {
    await admin.end();
  }
  return database;
}
