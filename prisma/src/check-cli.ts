// `pnpm db:check`: fails (exit 1) when schema.prisma and prisma/migrations disagree, listing
// every difference. Uses a scratch database on the server of DATABASE_URL
// (default postgresql://postgres@127.0.0.1:5432/tmi); the database itself is not touched.
// Exit 0: they agree; 1: they disagree (every difference printed); 2: the check could not run.
// `--schema <path>` checks another schema file against the migrations.
import { checkSchemaDrift } from "./check.js";

const schemaFlag = process.argv.indexOf("--schema");
const schemaPath = schemaFlag >= 0 ? process.argv[schemaFlag + 1] : undefined;

try {
  const report = await checkSchemaDrift({ databaseUrl: process.env.DATABASE_URL || undefined, schemaPath });
  if (report.differences.length === 0) {
    console.log(`[db:check] schema.prisma and the migrations agree (${report.durationMs.toFixed(0)} ms)`);
  } else {
    console.error(
      `[db:check] schema.prisma and prisma/migrations disagree (${report.differences.length} difference(s)):`,
    );
    for (const line of report.differences) console.error(`  - ${line}`);
    console.error(
      "[db:check] fix: add a new migration in prisma/migrations (never edit a committed one) or correct schema.prisma.",
    );
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`[db:check] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
