import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { Client } from "minio";
import { etagOf, type ObjectStat, type ObjectStorage, parseObjectKey } from "./object-storage.js";

/** Settings of the `s3` driver (MinIO or any S3 API). */
export interface S3StorageOptions {
  endPoint: string;
  port?: number | undefined;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === "NoSuchKey" || code === "NotFound" || code === "NoSuchObject";
}

/**
 * The `s3` driver through the `minio` client (`pathStyle: true`). Always passes the object size
 * to `putObject` (s3rver has no multipart upload). {@link ensureBucket} creates the bucket when missing.
 */
export function createS3Storage(
  options: S3StorageOptions,
): ObjectStorage & { ensureBucket(): Promise<void> } {
  const client = new Client({
    endPoint: options.endPoint,
    ...(options.port ? { port: options.port } : {}),
    useSSL: options.useSSL,
    accessKey: options.accessKey,
    secretKey: options.secretKey,
    region: options.region,
    pathStyle: true,
  });
  const bucket = options.bucket;
  const check = (key: string) => {
    if (!parseObjectKey(key)) throw new Error(`refused object key: ${key}`);
  };

  return {
    async ensureBucket() {
      if (!(await client.bucketExists(bucket))) {
        try {
          await client.makeBucket(bucket, options.region);
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code !== "BucketAlreadyOwnedByYou" && code !== "BucketAlreadyExists") throw error;
        }
      }
    },
    async put(key, body, size, contentType) {
      check(key);
      const source = Buffer.isBuffer(body) ? Readable.from([body]) : body;
      await client.putObject(bucket, key, source, size, { "Content-Type": contentType });
    },
    async get(key) {
      check(key);
      let response: IncomingMessage;
      try {
        response = (await client.getObject(bucket, key)) as unknown as IncomingMessage;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      const length = Number(response.headers["content-length"]);
      return {
        body: response,
        size: Number.isFinite(length) ? length : -1,
        contentType: parseObjectKey(key)!.contentType,
        etag: etagOf(key),
      };
    },
    async stat(key): Promise<ObjectStat | null> {
      check(key);
      try {
        const info = await client.statObject(bucket, key);
        return { size: info.size, contentType: parseObjectKey(key)!.contentType, etag: etagOf(key) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async ping() {
      await client.bucketExists(bucket);
    },
    async close() {},
  };
}
