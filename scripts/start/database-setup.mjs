// Step 3 of `pnpm start`: the database belongs to the chain it indexes, and its schema is current.
// The chain's identity (chain id, factory, start block and that block's hash) is the database's
// comment; a database of another chain is dropped and made again, never reused. Then the
// committed migrations. Clients: pg, viem (the chain), ioredis (the reset database's queue keys).
import pg from "pg";
import { BlockNotFoundError } from "viem";
import { oneShotRedis } from "./infrastructure-check.mjs";
import { say, warn } from "./output.mjs";
import { databaseNameOf, quoteIdent, quoteLiteral, withDatabase } from "./postgres-url.mjs";

/**
 * The identity of an indexed chain, recorded as the database's comment.
 * @typedef {{ chainId: number, factory: string, startBlock: number, startBlockHash: string }} ChainIdentity
 */

/** Runs `work` with a connected client of `url`; always closes it. */
async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Makes sure the database of `databaseUrl` belongs to the chain `identity`: when its recorded
 * identity differs, when the indexer's checkpoint block is not on the chain behind `chain`, or
 * when it holds indexed data of an unrecorded chain, it is dropped (then created again). Records
 * `identity` as the database's comment.
 * @param {string} databaseUrl
 * @param {ChainIdentity} identity
 * @param {import("viem").PublicClient} chain a client of the devnet
 * @returns {Promise<boolean>} true when the database was reset
 */
export async function ensureDatabaseMatchesChain(databaseUrl, identity, chain) {
  const name = databaseNameOf(databaseUrl);
  const expected = JSON.stringify(identity);
  return withClient(withDatabase(databaseUrl, "postgres"), async (admin) => {
    const found = await admin.query(
      "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
      [name],
    );
    let reason = null;
    if (found.rowCount) {
      const recorded = found.rows[0].comment;
      if (recorded && recorded !== expected)
        reason =
          "the devnet is a new chain (its chain id, deployment block or factory differs from the indexed one)";
      else {
        reason = await checkpointMismatch(databaseUrl, identity.chainId, chain);
        if (!reason && !recorded) reason = await unrecordedDataReason(databaseUrl);
      }
      if (reason) {
        say(`resetting database ${name}: ${reason}`);
        await admin.query(`DROP DATABASE ${quoteIdent(name)} WITH (FORCE)`);
      }
    }
    const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount;
    if (!exists) await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.query(`COMMENT ON DATABASE ${quoteIdent(name)} IS ${quoteLiteral(expected)}`);
    return Boolean(reason);
  });
}

/** Why the indexed checkpoint is not on `chain` (null when it is, or when there is none). */
function checkpointMismatch(databaseUrl, chainId, chain) {
  return withClient(databaseUrl, async (client) => {
    const table = await client.query("SELECT to_regclass('public.indexer_checkpoints') AS t");
    if (!table.rows[0].t) return null;
    const rows = await client.query(
      "SELECT block_number::text AS n, block_hash AS h FROM indexer_checkpoints WHERE chain_id = $1",
      [chainId],
    );
    const checkpoint = rows.rows[0];
    if (!checkpoint) return null;
    let block;
    try {
      block = await chain.getBlock({ blockNumber: BigInt(checkpoint.n) });
    } catch (error) {
      if (error instanceof BlockNotFoundError)
        return `the indexed block ${checkpoint.n} is beyond the devnet's head (its saved state is older)`;
      throw error;
    }
    if (block.hash.toLowerCase() !== checkpoint.h.toLowerCase())
      return `the indexed block ${checkpoint.n} is not on the devnet's chain`;
    return null;
  });
}

/** A database with indexed data but no recorded chain identity cannot be trusted to match. */
function unrecordedDataReason(databaseUrl) {
  return withClient(databaseUrl, async (client) => {
    const table = await client.query("SELECT to_regclass('public.tokens') AS t");
    if (!table.rows[0].t) return null;
    const rows = await client.query("SELECT EXISTS (SELECT 1 FROM tokens) AS any");
    return rows.rows[0].any ? "it holds indexed data of an unknown chain" : null;
  });
}

/**
 * Deletes metadata-api's finalize queue (BullMQ keys `<queuePrefix>:metadata-finalize:*`): after a
 * reset its jobs name drafts of the dropped database. A failure is a warning (the worker skips
 * jobs whose draft is gone).
 * @param {string} redisUrl
 * @param {string} queuePrefix
 */
export async function clearFinalizeQueue(redisUrl, queuePrefix) {
  const redis = oneShotRedis(redisUrl);
  try {
    await redis.connect();
    const stream = redis.scanStream({ match: `${queuePrefix}:metadata-finalize:*`, count: 1000 });
    for await (const keys of stream) if (keys.length) await redis.del(...keys);
  } catch (error) {
    warn(`could not clear the finalize queue of the reset database: ${error.message}`);
  } finally {
    redis.disconnect();
  }
}

/**
 * Applies the committed migrations to `databaseUrl` (prisma/dist: built by the install step).
 * @param {string} databaseUrl
 */
export async function migrateDatabase(databaseUrl) {
  const { migrate } = await import(new URL("../../prisma/dist/index.js", import.meta.url).href);
  const result = await migrate({
    databaseUrl,
    logger: { info: () => {}, warn: (m) => warn(`db: ${m}`), error: (m) => warn(`db: ${m}`) },
  });
  const name = databaseNameOf(databaseUrl);
  say(
    result.applied.length
      ? `database ${name}: applied ${result.applied.length} migration(s)`
      : `database ${name}: schema up to date`,
  );
}
