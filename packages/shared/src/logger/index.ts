import { type Logger, type LoggerOptions, pino } from "pino";

export type { Logger } from "pino";

/**
 * Creates the pino logger of a process: JSON lines with `service` on every line,
 * snake_case fields, secrets redacted (connection URLs, authorization headers).
 */
export function createLogger(options: {
  service: string;
  level?: string;
  destination?: pino.DestinationStream;
}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? "info",
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "database_url",
        "redis_url",
        "*.password",
        "*.secret",
        "config.CURSOR_SECRET",
        "config.DATABASE_URL",
        "config.DATABASE_READ_URL",
        "config.S3_SECRET_KEY",
      ],
      censor: "[redacted]",
    },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}
