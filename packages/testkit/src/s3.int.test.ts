import { existsSync } from "node:fs";
import { Client } from "minio";
import { describe, expect, it } from "vitest";
import { startS3Server } from "./s3.js";

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

describe("startS3Server", () => {
  it("default", async () => {
    const s3 = await startS3Server();
    try {
      expect(s3.port).toBeGreaterThan(0);
      const client = new Client({
        endPoint: s3.endPoint,
        port: s3.port,
        useSSL: s3.useSSL,
        accessKey: s3.accessKey,
        secretKey: s3.secretKey,
        region: s3.region,
        pathStyle: true,
      });
      await client.makeBucket("tmi-objects", s3.region);
      expect(await client.bucketExists("tmi-objects")).toBe(true);
      const body = Buffer.from(JSON.stringify({ hello: "world" }));
      await client.putObject("tmi-objects", "metadata/abc.json", body, body.length, {
        "Content-Type": "application/json",
      });
      const stat = await client.statObject("tmi-objects", "metadata/abc.json");
      expect(stat.size).toBe(body.length);
      expect((await readAll(await client.getObject("tmi-objects", "metadata/abc.json"))).equals(body)).toBe(
        true,
      );
      await expect(client.statObject("tmi-objects", "missing.json")).rejects.toMatchObject({
        code: "NotFound",
      });
    } finally {
      await s3.stop();
    }
    expect(existsSync(s3.directory)).toBe(false);
  });

  it("behavior: two servers run side by side on their own ports", async () => {
    const [a, b] = await Promise.all([startS3Server(), startS3Server()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.directory).not.toBe(b.directory);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
