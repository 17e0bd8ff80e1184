import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";

/**
 * Starts `app` on `host:port` and closes it (then `onClose`) on SIGINT/SIGTERM, exiting 0;
 * a second signal or a close that takes longer than `graceMs` exits 1.
 * Returns the address the server listens on.
 */
export async function serve(
  app: FastifyInstance,
  options: { host: string; port: number; logger: Logger; onClose?: () => Promise<void>; graceMs?: number },
): Promise<string> {
  const address = await app.listen({ host: options.host, port: options.port });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    options.logger.info({ signal, action: "shutdown" }, "shutting down");
    const timer = setTimeout(() => process.exit(1), options.graceMs ?? 10_000);
    timer.unref();
    app
      .close()
      .then(() => options.onClose?.())
      .then(() => process.exit(0))
      .catch((error) => {
        options.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      });
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  return address;
}
