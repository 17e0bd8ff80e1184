// `pnpm bench ponder`: our indexer and Ponder (the framework users would pick instead) side by side on
// the same V3 history (the one `pnpm bench indexer` loads and caches; same BENCH_INDEXER_* settings),
// one after the other in one run, each into a fresh PostgreSQL database of the machine's server.
// Ponder indexes three tables (tokens, trades, 1-minute candles: bench/ponder-app, written as a Ponder
// user would, with the platform's trade and price rules); our indexer keeps every read model of the
// API (those three and activity, holders, balances, curve state, trending, stats, …), so the
// comparison is conservative for us. Both must end with the same trades and tokens; the bench fails
// otherwise. Ponder is installed with npm into bench/ponder-app on first use (`npm ci`, pinned by its
// package-lock.json; it is not part of the pnpm workspace).
// Figures per side: seconds from process start to caught up (Ponder: `/ready` answers 200), the
// history's logs per second, its own handled events per second, CPU µs per handled event (process +
// its PostgreSQL backends), peak RSS.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { rpc } from "@tmi/devnet";
import { chainHead, createTestDatabase } from "@tmi/testkit";
import pg from "pg";
import {
  HISTORY_GRADUATIONS,
  loadAverage,
  openCachedHistory,
  type ProcessFigures,
  sampleProcess,
  startBenchIndexer,
} from "./indexer-history-lib.js";

const log = (m: string) => process.stderr.write(`[bench ponder] ${m}\n`);
const appDir = fileURLToPath(new URL("./ponder-app/", import.meta.url));

if (!existsSync(`${appDir}node_modules/ponder/package.json`)) {
  log("installing Ponder into bench/ponder-app (npm ci)…");
  const installed = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: appDir, stdio: "inherit" });
  if (installed.status !== 0) throw new Error("npm ci in bench/ponder-app failed");
}
const ponderVersion = (await import(`${appDir}node_modules/ponder/package.json`, { with: { type: "json" } }))
  .default.version as string;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const count = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await client.end();
  }
};

interface Side {
  name: string;
  seconds: number;
  handledEvents: number;
  trades: number;
  tokens: number;
  candles1m: number;
  figures: ProcessFigures;
  loadBefore: string;
  loadAfter: string;
}

const devnet = await openCachedHistory(log);
// Ponder syncs up to the head minus a finality depth (up to 240 blocks) in its historical phase and
// the rest block by block: empty blocks after the history put all of it in the historical phase.
await rpc(devnet.rpcUrl, "anvil_mine", ["0x12c"]);
const head = await chainHead(devnet.rpcUrl);
const historyLogs = devnet.history.events;
const sides: Side[] = [];
try {
  // ------------------------------------------------------------------ ours
  {
    const db = await createTestDatabase();
    const loadBefore = loadAverage();
    const started = performance.now();
    const indexer = startBenchIndexer(devnet, db.url);
    const pid = indexer.child.pid!;
    const sampler = await sampleProcess(() => [pid], db.url);
    try {
      await indexer.waitForBlock(head, 1_800_000);
      const seconds = (performance.now() - started) / 1000;
      const figures = await sampler.stop();
      sides.push({
        name: "ours (every read model)",
        seconds,
        handledEvents: await count(db.url, "SELECT count(*) AS n FROM chain_events"),
        trades: await count(db.url, "SELECT count(*) AS n FROM trades"),
        tokens: await count(db.url, "SELECT count(*) AS n FROM tokens"),
        candles1m: await count(db.url, "SELECT count(*) AS n FROM candles WHERE interval = '1m'"),
        figures,
        loadBefore,
        loadAfter: loadAverage(),
      });
    } finally {
      await sampler.stop();
      await indexer.kill();
      await db.drop();
    }
  }

  // ------------------------------------------------------------------ Ponder
  {
    const db = await createTestDatabase({ empty: true });
    const port = await freePort();
    const schema = "ponder_bench";
    const loadBefore = loadAverage();
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ["node_modules/ponder/dist/esm/bin/ponder.js", "start", "--port", String(port), "--schema", schema],
      {
        cwd: appDir,
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: db.url,
          PONDER_RPC_URL: devnet.rpcUrl,
          PONDER_CHAIN_ID: String(devnet.chainId),
          PONDER_FACTORY: devnet.deployment.contracts.factory,
          PONDER_START_BLOCK: String(devnet.deployment.startBlock),
          PONDER_WETH: devnet.deployment.contracts.weth,
          PONDER_LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (d) => {
      output = (output + d).slice(-20_000);
    });
    child.stderr.on("data", (d) => {
      output = (output + d).slice(-20_000);
    });
    const pid = child.pid!;
    const sampler = await sampleProcess(() => [pid], db.url);
    try {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`ponder exited (${child.exitCode}):\n${output}`);
        // Caught up: `/ready` is 200 and `/status` shows the head block.
        const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
          (r) => r.status === 200,
          () => false,
        );
        const status = ready
          ? await fetch(`http://127.0.0.1:${port}/status`).then(
              (r) => r.json() as Promise<Record<string, { block?: { number?: number } }>>,
              (): Record<string, { block?: { number?: number } }> => ({}),
            )
          : {};
        if (Object.values(status).some((chain) => (chain.block?.number ?? 0) >= head)) break;
        if (performance.now() - started > 3_600_000)
          throw new Error(`ponder not ready after an hour:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const seconds = (performance.now() - started) / 1000;
      const figures = await sampler.stop();
      const events = await count(
        db.url,
        `SELECT (SELECT count(*) FROM ${schema}.tokens) + (SELECT count(*) FROM ${schema}.trades) AS n`,
      );
      sides.push({
        name: `Ponder ${ponderVersion} (3 tables)`,
        seconds,
        // Handled events: launches + curve trades + pool swaps (+ Graduated logs).
        handledEvents: events + HISTORY_GRADUATIONS,
        trades: await count(db.url, `SELECT count(*) AS n FROM ${schema}.trades`),
        tokens: await count(db.url, `SELECT count(*) AS n FROM ${schema}.tokens`),
        candles1m: await count(db.url, `SELECT count(*) AS n FROM ${schema}.candles_1m`),
        figures,
        loadBefore,
        loadAfter: loadAverage(),
      });
    } finally {
      await sampler.stop();
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
      await db.drop();
    }
  }
} finally {
  await devnet.stop();
}

const [ours, ponder] = sides as [Side, Side];
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
console.log(
  `\nOur indexer vs Ponder — ${machine}, ${new Date().toISOString()}; history: ${devnet.history.trades} trades, ${historyLogs} logs, ${head - devnet.deployment.startBlock + 1} blocks`,
);
const row = (s: Side) => ({
  "seconds to caught up": Number(s.seconds.toFixed(1)),
  "history logs/s": Math.round(historyLogs / s.seconds),
  "handled events": s.handledEvents,
  "handled events/s": Math.round(s.handledEvents / s.seconds),
  "CPU µs/handled event (process)": Math.round((s.figures.cpuSecondsProcess * 1e6) / s.handledEvents),
  "CPU µs/handled event (PostgreSQL)": Math.round((s.figures.cpuSecondsPostgres * 1e6) / s.handledEvents),
  "CPU s (process + PostgreSQL)": Number(
    (s.figures.cpuSecondsProcess + s.figures.cpuSecondsPostgres).toFixed(1),
  ),
  "peak RSS MB": s.figures.peakRssMb,
  trades: s.trades,
  tokens: s.tokens,
  "1m candles": s.candles1m,
  "load before": s.loadBefore,
  "load after": s.loadAfter,
});
console.table({ [ours.name]: row(ours), [ponder.name]: row(ponder) });
const speedup = ponder.seconds / ours.seconds;
const cpuRatio =
  (ponder.figures.cpuSecondsProcess + ponder.figures.cpuSecondsPostgres) /
  (ours.figures.cpuSecondsProcess + ours.figures.cpuSecondsPostgres);
console.log(
  `same history: ours ${speedup.toFixed(2)}× Ponder's speed (history logs/s), Ponder spends ${cpuRatio.toFixed(2)}× our CPU`,
);
for (const s of sides) console.log(JSON.stringify({ bench: "ponder", side: s.name, ...row(s) }));
console.log(
  JSON.stringify({
    bench: "ponder",
    speedup: Number(speedup.toFixed(2)),
    cpu_ratio: Number(cpuRatio.toFixed(2)),
  }),
);
if (ours.trades !== ponder.trades || ours.tokens !== ponder.tokens || ours.candles1m !== ponder.candles1m) {
  console.error(
    `the two sides disagree: trades ${ours.trades} vs ${ponder.trades}, tokens ${ours.tokens} vs ${ponder.tokens}, 1m candles ${ours.candles1m} vs ${ponder.candles1m}`,
  );
  process.exit(1);
}
