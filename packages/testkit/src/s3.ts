// Owner: db (prisma/ + testkit database/redis/s3/global-setup).
// An S3 API server (s3rver) for integration tests of the object storage.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

/** A running s3rver: its connection settings (the shape of the `minio` client's options) and `stop()`. */
export interface S3TestServer {
  /** Host to connect to: always `127.0.0.1`. */
  endPoint: string;
  port: number;
  useSSL: false;
  accessKey: string;
  secretKey: string;
  region: "us-east-1";
  /** Folder holding the buckets (a fresh temporary directory, removed by `stop()`). */
  directory: string;
  /** Closes the server and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts s3rver 3.7.1 on 127.0.0.1 and a free port (chosen by the OS), storing into a new
 * temporary directory. Credentials are s3rver's fixed `S3RVER`/`S3RVER`; signatures are checked.
 * Use it with the `minio` client as `new Client({ endPoint, port, useSSL, accessKey, secretKey,
 * region, pathStyle: true })` and always pass the object size to `putObject` (s3rver has no
 * multipart upload).
 */
export async function startS3Server(): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), "tmi-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, vhostBuckets: false });
  const address = await server.run();
  let stopped = false;
  return {
    endPoint: "127.0.0.1",
    port: address.port,
    useSSL: false,
    accessKey: "S3RVER",
    secretKey: "S3RVER",
    region: "us-east-1",
    directory,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
