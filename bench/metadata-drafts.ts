// `pnpm bench metadata-drafts [--iterations=500]`: CPU cost per operation of metadata-api's draft
// store (Prisma, as the service runs it) next to the same statement through a plain pg pool, and
// of checking a finalize signature (viem verifyMessage). CPU time (process.cpuUsage) of this
// process, so the figures hold on a loaded machine better than wall time; PostgreSQL's own CPU
// is not counted. Prints a table, then one JSON line per figure ({"bench":"metadata-drafts",...}).
import { randomUUID } from "node:crypto";
import { createDb, createPgPool } from "@tmi/db";
import { createTestDatabase } from "@tmi/testkit";
import { privateKeyToAccount } from "viem/accounts";
import { findDraft, insertDraft } from "../services/metadata-api/src/drafts/draft-queries.js";
import { finalizeMessage, isSignedBy } from "../services/metadata-api/src/finalize/finalize-signature.js";

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split("=")[1]) : fallback;
};
const iterations = arg("iterations", 500);

async function measure(label: string, op: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 20; i++) await op(i); // warm-up
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await op(i);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - started;
  const row = {
    bench: "metadata-drafts",
    op: label,
    iterations,
    cpu_us_per_op: Math.round((used.user + used.system) / iterations),
    wall_ms_per_op: Number((wallMs / iterations).toFixed(2)),
  };
  console.log(
    `${label.padEnd(48)} ${String(row.cpu_us_per_op).padStart(6)} µs CPU/op  ${row.wall_ms_per_op} ms wall/op`,
  );
  return row;
}

const database = await createTestDatabase();
const db = createDb({ url: database.url, max: 4 });
const pool = createPgPool({ url: database.url, max: 4 });
const draft = (i: number) => ({
  id: randomUUID(),
  chainId: 31337,
  name: `Bench ${i}`,
  symbol: "BNCH",
  description: null,
  initialSupply: 10n ** 27n,
  websiteUrl: null,
  xUrl: null,
  telegramUrl: null,
  discordUrl: null,
  imageKey: `images/${"a".repeat(64)}.png`,
  metadataKey: `metadata/${"b".repeat(64)}.json`,
});
const rows: object[] = [];
try {
  const ids: string[] = [];
  rows.push(
    await measure("insert draft (Prisma create)", async (i) =>
      ids.push((await insertDraft(db, draft(i))).id),
    ),
  );
  rows.push(
    await measure("insert draft (pg, same INSERT … RETURNING)", async (i) => {
      const d = draft(i);
      await pool.query(
        `INSERT INTO metadata_drafts (id, chain_id, name, symbol, initial_supply, image_key, metadata_key)
         VALUES ($1, $2, $3, $4, $5::numeric, $6, $7) RETURNING *`,
        [d.id, d.chainId, d.name, d.symbol, d.initialSupply.toString(), d.imageKey, d.metadataKey],
      );
    }),
  );
  rows.push(
    await measure("find draft by id (Prisma findUnique)", (i) => findDraft(db, ids[i % ids.length]!)),
  );
  rows.push(
    await measure("find draft by id (pg)", (i) =>
      pool.query("SELECT * FROM metadata_drafts WHERE id = $1", [ids[i % ids.length]]),
    ),
  );
  const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
  const claim = {
    chainId: 8453,
    draftId: ids[0]!,
    tokenAddress: `0x${"ab".repeat(20)}` as const,
    transactionHash: `0x${"cd".repeat(32)}` as const,
  };
  const signature = await account.signMessage({ message: finalizeMessage(claim) });
  rows.push(
    await measure("check a finalize signature (verifyMessage)", () =>
      isSignedBy(claim, signature, account.address),
    ),
  );
} finally {
  await db.$disconnect();
  await pool.end();
  await database.drop();
}
for (const row of rows) console.log(JSON.stringify(row));
