import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Devnet, startDevnet } from "@tmi/devnet";
import { createTestDatabase, startServiceProcess, type TestDatabase, waitFor } from "@tmi/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

let devnet: Devnet;
let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  devnet = await startDevnet({ port: 0, blockTime: "automine", deploy: false });
  database = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "tmi-meta-main-"));
});

afterAll(async () => {
  await database?.drop();
  await devnet?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string>) {
  return {
    PORT: "0",
    DATABASE_URL: database.url,
    RPC_URL: devnet.rpcUrl,
    STORAGE_DIR: join(dir, "objects"),
    QUEUE_PREFIX: `tmi-test-meta-main-${process.pid}`,
    FACTORY_ADDRESS: undefined,
    ...extra,
  };
}

describe("metadata-api process (src/main.ts)", () => {
  test("default", async () => {
    const deployment = join(dir, "devnet.json");
    const factory = "0x00000000000000000000000000000000000000bb";
    await writeFile(deployment, JSON.stringify({ chainId: devnet.chainId, contracts: { factory } }));
    const service = startServiceProcess({
      service: "metadata-api",
      env: env({ DEPLOYMENT_FILE: deployment }),
    });
    try {
      const base = await waitFor(() => /"address":"(http:[^"]+)"/.exec(service.output())?.[1], {
        timeoutMs: 60_000,
        message: `did not start\n${service.output()}`,
      });
      expect(service.output()).toContain(`"factory":"${factory}"`);
      const health = await fetch(`${base}/health`);
      expect(await health.json()).toMatchObject({ status: "ok", service: "metadata-api" });
      expect(health.headers.get("x-request-id")).toBeTruthy();
      expect(await (await fetch(`${base}/readyz`)).json()).toMatchObject({ status: "ready" });
      expect((await fetch(`${base}/objects/images/${"0".repeat(64)}.png`)).status).toBe(404);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  test("error: refuses to start when the RPC serves another chain than CHAIN_ID", async () => {
    const service = startServiceProcess({
      service: "metadata-api",
      env: env({ CHAIN_ID: "8453", FACTORY_ADDRESS: "0x00000000000000000000000000000000000000bb" }),
    });
    await waitFor(() => service.child.exitCode !== null, { timeoutMs: 60_000, message: "did not exit" });
    expect(service.child.exitCode).toBe(1);
    expect(service.output()).toContain("CHAIN_ID is 8453");
  });

  test("error: in production it refuses to start on a Redis without AOF (the machine's test Redis has none)", async () => {
    const service = startServiceProcess({
      service: "metadata-api",
      env: env({ NODE_ENV: "production", FACTORY_ADDRESS: "0x00000000000000000000000000000000000000bb" }),
    });
    await waitFor(() => service.child.exitCode !== null, { timeoutMs: 60_000, message: "did not exit" });
    expect(service.child.exitCode).toBe(1);
    expect(service.output()).toContain("metadata-api refuses to start in production");
  });

  test("error: invalid settings are all reported at once", async () => {
    const service = startServiceProcess({
      service: "metadata-api",
      env: env({ STORAGE_DRIVER: "ftp", IMAGE_MAX_BYTES: "-1", FACTORY_ADDRESS: "0x12" }),
    });
    await waitFor(() => service.child.exitCode !== null, { timeoutMs: 60_000, message: "did not exit" });
    expect(service.child.exitCode).toBe(1);
    for (const key of ["STORAGE_DRIVER", "IMAGE_MAX_BYTES", "FACTORY_ADDRESS"])
      expect(service.output()).toContain(key);
  });
});
