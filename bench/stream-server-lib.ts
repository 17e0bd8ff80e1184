// Server process of `pnpm bench stream`: the full query-api app (`buildApp` of
// services/query-api/src/app.ts) with the live stream plugin (passed in `plugins`), on DATABASE_URL, listening on a free
// port of 127.0.0.1; prints `{"listening": "<url>"}` on stdout once ready.
import { createLogger } from "../packages/shared/src/logger/index.js";
import { buildApp } from "../services/query-api/src/app.js";
import { createReadPool } from "../services/query-api/src/db.js";
import { streamRoutes } from "../services/query-api/src/stream/stream-routes.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const logger = createLogger({ service: "query-api", level: process.env.LOG_LEVEL ?? "warn" });
const pool = createReadPool({ url, max: 4 });
const app = await buildApp({
  pool,
  logger,
  config: { cursorSecret: "bench-cursor-secret-0123456789abcdef", corsOrigins: "*" },
  // The stream through `plugins` (how main.ts is to wire it), listening on the primary.
  plugins: [
    streamRoutes({
      listenerUrl: url,
      config: { maxConnectionsPerIp: 100_000, maxConnections: 100_000, eager: true },
    }),
  ],
});
const address = await app.listen({ host: "127.0.0.1", port: 0, backlog: 4096 });
process.stdout.write(`${JSON.stringify({ listening: address })}\n`);
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
