import type { MetadataEnv } from "../env.js";
import { workspacePath } from "../env.js";
import { createFsStorage } from "./fs-storage.js";
import type { ObjectStorage } from "./object-storage.js";
import { createS3Storage } from "./s3-storage.js";

/**
 * The object storage of `STORAGE_DRIVER`: `fs` under `STORAGE_DIR` (relative to the workspace
 * root), or `s3` through the minio client (bucket created when missing).
 */
export async function createStorage(
  env: Pick<
    MetadataEnv,
    | "STORAGE_DRIVER"
    | "STORAGE_DIR"
    | "S3_ENDPOINT"
    | "S3_PORT"
    | "S3_USE_SSL"
    | "S3_ACCESS_KEY"
    | "S3_SECRET_KEY"
    | "S3_BUCKET"
    | "S3_REGION"
  >,
): Promise<ObjectStorage> {
  if (env.STORAGE_DRIVER === "s3") {
    const storage = createS3Storage({
      endPoint: env.S3_ENDPOINT,
      port: env.S3_PORT,
      useSSL: env.S3_USE_SSL,
      accessKey: env.S3_ACCESS_KEY,
      secretKey: env.S3_SECRET_KEY,
      bucket: env.S3_BUCKET,
      region: env.S3_REGION,
    });
    await storage.ensureBucket();
    return storage;
  }
  const storage = createFsStorage(workspacePath(env.STORAGE_DIR));
  await storage.ping();
  return storage;
}
