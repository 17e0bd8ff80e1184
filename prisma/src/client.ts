import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "./generated/client.js";
import type { DbLogger } from "./migrate.js";
import { pgPoolConfig } from "./pool.js";

/**
 * The read-write Prisma client of the schema (Prisma 7, `prisma-client` generator, driver
 * adapter `@prisma/adapter-pg` over its own `pg.Pool`). `Decimal` fields (NUMERIC(78,0)) are
 * `Prisma.Decimal`: convert with {@link decimalToBigInt} or `.toFixed()`, never `.toString()`
 * (exponential notation for large values). `BigInt` fields are JS `bigint`.
 */
export type Db = PrismaClient;

/** Options of {@link createDb} and {@link createReadOnlyDb}. */
export interface DbOptions {
  /** `postgresql://` connection string. */
  url: string;
  /** Most pool connections (default 10). */
  max?: number;
  /** Receives Prisma's warnings and errors, and pool errors. */
  logger?: DbLogger;
  /** Shown in `pg_stat_activity` (default `tmi`). */
  applicationName?: string;
}

function makeClient(options: DbOptions, readOnly: boolean): PrismaClient {
  const logger = options.logger;
  const adapter = new PrismaPg(
    pgPoolConfig({
      url: options.url,
      max: options.max,
      applicationName: options.applicationName,
      readOnly,
      withTypeParsers: false,
    }),
    { onPoolError: (error) => logger?.error(`database pool error: ${error.message}`) },
  );
  if (!logger) return new PrismaClient({ adapter });
  const client = new PrismaClient({
    adapter,
    log: [
      { emit: "event", level: "warn" },
      { emit: "event", level: "error" },
    ],
  });
  client.$on("warn", (event) => logger.warn(`prisma: ${event.message}`));
  client.$on("error", (event) => logger.error(`prisma: ${event.message}`));
  return client as unknown as PrismaClient;
}

/**
 * Creates the read-write Prisma client (lazy: connects on first query). Call `$disconnect()`
 * on shutdown; it closes the pool.
 */
export function createDb(options: DbOptions): Db {
  return makeClient(options, false);
}

/** Read methods kept on each model of a {@link ReadOnlyDb}. */
export type ReadMethod =
  | "findUnique"
  | "findUniqueOrThrow"
  | "findFirst"
  | "findFirstOrThrow"
  | "findMany"
  | "count"
  | "aggregate"
  | "groupBy";

/** Model accessor names of the client (`token`, `trade`, `trendingEntry`, ...). */
export type ModelKey = Uncapitalize<Prisma.ModelName>;

/** What a read-only client or transaction exposes: the read methods of every model and `$queryRaw`. */
export type ReadOnlyQueries = { readonly [K in ModelKey]: Pick<PrismaClient[K], ReadMethod> } & Pick<
  PrismaClient,
  "$queryRaw"
>;

/**
 * The query-api's client: only reads. The type exposes the read methods of every model plus
 * `$queryRaw` (no create/update/delete/upsert, no `$executeRaw`, no `$queryRawUnsafe`), and the
 * server enforces it too: every transaction of its connections is READ ONLY
 * (`default_transaction_read_only`), so a write through a raw query fails with SQLSTATE 25006.
 * (`$queryRawTyped` needs Prisma's `typedSql` preview feature, which needs the schema engine to
 * generate: not available here.)
 */
export type ReadOnlyDb = ReadOnlyQueries &
  Pick<PrismaClient, "$connect" | "$disconnect"> & {
    /**
     * Runs `fn` in one read-only transaction (one snapshot with `isolationLevel: RepeatableRead`),
     * e.g. a page and its total, or a list and the latest indexed block.
     */
    $transaction<R>(
      fn: (tx: ReadOnlyQueries) => Promise<R>,
      options?: { maxWait?: number; timeout?: number; isolationLevel?: Prisma.TransactionIsolationLevel },
    ): Promise<R>;
  };

/**
 * Creates a read-only client (for `DATABASE_READ_URL`, a replica, or the primary): see
 * {@link ReadOnlyDb}. Lazy; `$disconnect()` closes its pool.
 */
export function createReadOnlyDb(options: DbOptions): ReadOnlyDb {
  return makeClient(options, true) as unknown as ReadOnlyDb;
}

/** A Prisma `Decimal` (or null) holding an integer, as a `bigint` (exact; throws on a fraction). */
export function decimalToBigInt(value: Prisma.Decimal): bigint;
export function decimalToBigInt(value: Prisma.Decimal | null): bigint | null;
export function decimalToBigInt(value: Prisma.Decimal | null): bigint | null {
  return value === null ? null : BigInt(value.toFixed());
}

/** A `bigint` (or decimal string) as a Prisma `Decimal`, for writes of NUMERIC(78,0) fields. */
export function toPrismaDecimal(value: bigint | string): Prisma.Decimal {
  return new Prisma.Decimal(value.toString());
}
