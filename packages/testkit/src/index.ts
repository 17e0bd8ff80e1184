// Test infrastructure shared by the integration tests: real PostgreSQL, Redis, anvil, S3.
// Each file has one owner; see the header comment of each.

export * from "./database.js";
export * from "./impostor.js";
export * from "./indexer.js";
export * from "./pgbouncer.js";
export * from "./positions-oracle.js";
export * from "./postgres-cluster.js";
export * from "./postgres-replay.js";
export * from "./process.js";
export * from "./redis.js";
export * from "./rpc-proxy.js";
export * from "./s3.js";
