import { describe, expect, test } from "vitest";
import { buildOpenApiDocument } from "./openapi-document.js";

type Doc = {
  openapi: string;
  paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
  components: { schemas: Record<string, unknown> };
};

describe("buildOpenApiDocument", () => {
  test("default", async () => {
    const doc = (await buildOpenApiDocument()) as Doc;
    expect(doc.openapi).toBe("3.1.0");
    // Every registered resource, the plugin-registered stream included.
    for (const path of [
      "/api/v1/tokens",
      "/api/v1/tokens/{address}",
      "/api/v1/tokens/{address}/chart",
      "/api/v1/tokens/{address}/trades",
      "/api/v1/creators/{address}",
      "/api/v1/status",
      "/api/v1/stream",
    ]) {
      expect(doc.paths, path).toHaveProperty([path, "get"]);
    }
    const chartQuery = doc.paths["/api/v1/tokens/{address}/chart"]?.get?.parameters
      ?.filter((p) => p.in === "query")
      .map((p) => p.name)
      .sort();
    expect(chartQuery).toEqual(["countback", "currency", "from", "interval", "limit", "to"]);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["Token", "Chart", "UsdChart"]),
    );
  }, 60_000);
});
