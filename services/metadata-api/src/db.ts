import { createDb, type Db } from "@tmi/db";
import type { Logger } from "@tmi/shared/logger";

/**
 * The metadata-api's read-write Prisma client for one process (`tmi-metadata-api` server,
 * `tmi-metadata-worker`): `applicationName` shows in `pg_stat_activity`; Prisma's warnings
 * and errors and pool errors go to `logger` at `warn` (a database outage is answered as a 503,
 * not a crash: see database-errors.ts). Lazy: connects on first query.
 */
export function createMetadataDb(url: string, applicationName: string, logger: Logger): Db {
  return createDb({
    url,
    applicationName,
    logger: {
      info: (message) => logger.info(message),
      warn: (message) => logger.warn(message),
      error: (message) => logger.warn(message),
    },
  });
}
