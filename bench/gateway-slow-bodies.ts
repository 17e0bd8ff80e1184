// `pnpm bench gateway-slow-bodies [--duration=8] [--connections=10]`: a REST read and an object
// read through the gateway while one client address sends slow request bodies (issue 26 finding 1:
// each slow body used to hold one of an upstream pool's 128 connections, starving every read).
// Attacks, each socket sending one byte every 2 s of a declared `Content-Length: 100000` and
// reconnecting 2 s after the gateway closes it:
//  - 130 slow `POST /api/v1/tokens` (a query-api route that takes no body);
//  - 140 slow multipart uploads `POST /api/v1/token-metadata` (metadata-api, which serves /objects too);
//  - both at once.
// Measured with autocannon: `GET /api/v1/tokens/{address}` (query-api) and `GET /objects/images/…`
// (metadata-api), through a gateway with the default limits and one without the per-client cap
// (GATEWAY_MAX_BODIES_PER_CLIENT=0: every slow body is received, none reaches an upstream). Target
// (quiet machine): REST p99 ≤ 100 ms under 130 slow bodies. query-api, metadata-api (fs storage,
// bare devnet) and the gateways run as their own processes (from sources).
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startDevnet } from "@tmi/devnet";
import { createTestDatabase, type ServiceProcess } from "@tmi/testkit";
import pg from "pg";
import { pngImage } from "../services/metadata-api/src/images/test-images.js";
import { ensureBenchDatabase } from "./api-data-lib.js";
import { type LoadFigures, loadArgs, printTable, runLoad } from "./oracle-gateway-lib.js";
import {
  serviceAddress,
  startGatewayProcess,
  startMetadataApiProcess,
  startQueryApiProcess,
} from "./service-processes.js";

const args = loadArgs({ duration: 8, connections: 10, rounds: 1 });
const ADMIN_URL = process.env.TMI_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TMI_TEST_REDIS_URL || "redis://127.0.0.1:6379";
const log = (line: string) => process.stderr.write(`${line}\n`);
const PACE_MS = 2000;

/** Statuses the gateway answered to the attack's sockets (`closed` = closed without an answer). */
type Answers = Record<string, number>;

/**
 * `count` sockets sending `head` and then one body byte every {@link PACE_MS}, each reopened
 * {@link PACE_MS} after the gateway closes it. Resolves once every socket sent its head.
 */
async function slowBodies(base: string, count: number, head: (i: number) => string) {
  const { hostname, port } = new URL(base);
  const answers: Answers = {};
  const sockets = new Set<Socket>();
  let stopped = false;
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname);
      sockets.add(socket);
      let timer: NodeJS.Timeout | undefined;
      let status = "";
      socket.on("connect", () => {
        socket.write(`${head(i)}\r\n\r\nx`);
        timer = setInterval(() => socket.write("x"), PACE_MS);
        resolve();
      });
      socket.on("data", (chunk) => {
        if (!status) status = chunk.toString("latin1").split(" ")[1] ?? "?";
      });
      socket.on("error", () => resolve());
      socket.on("close", () => {
        clearInterval(timer);
        sockets.delete(socket);
        const key = status || "closed";
        answers[key] = (answers[key] ?? 0) + 1;
        if (!stopped) setTimeout(() => void open(i), PACE_MS);
      });
    });
  await Promise.all(Array.from({ length: count }, (_, i) => open(i)));
  return {
    answers,
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

const slowReads = (base: string) =>
  slowBodies(
    base,
    130,
    () =>
      "POST /api/v1/tokens HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 100000",
  );
const slowUploads = (base: string) =>
  slowBodies(
    base,
    140,
    (i) =>
      `POST /api/v1/token-metadata HTTP/1.1\r\nHost: bench\r\nContent-Type: multipart/form-data; boundary=bench${i}\r\nContent-Length: 100000`,
  );
const attacks: { attack: string; start: ((base: string) => ReturnType<typeof slowBodies>)[] }[] = [
  { attack: "none", start: [] },
  { attack: "130 slow POST /api/v1/tokens", start: [slowReads] },
  { attack: "140 slow uploads", start: [slowUploads] },
  { attack: "both", start: [slowReads, slowUploads] },
];

const data = await ensureBenchDatabase({
  adminUrl: ADMIN_URL,
  name: "gateway_slow_bench",
  tokens: 500,
  trades: 20_000,
  log,
});
const setup = new pg.Pool({ connectionString: data.url, max: 2 });
const tokens: string[] = (
  await setup.query("SELECT address FROM tokens WHERE trade_count > 0 ORDER BY md5(address) LIMIT 200")
).rows.map((r) => r.address);
await setup.end();
let counter = 0;
const tokenPath = () => `/api/v1/tokens/${tokens[counter++ % tokens.length]}`;

const devnet = await startDevnet({ port: 0, blockTime: "automine", deploy: false });
const database = await createTestDatabase();
const dir = await mkdtemp(join(tmpdir(), "tmi-bench-slow-bodies-"));
const processes: ServiceProcess[] = [];
type Row = LoadFigures & { gateway: string; attack: string; read: string; answers: Answers };
const rows: Row[] = [];
try {
  const queryApi = startQueryApiProcess({
    DATABASE_URL: data.url,
    CURSOR_SECRET: "slow-bodies-bench-secret-0123456789",
  });
  const metadataApi = startMetadataApiProcess(dir, {
    DATABASE_URL: database.url,
    RPC_URL: devnet.rpcUrl,
    CHAIN_ID: String(devnet.chainId),
    REDIS_URL,
    QUEUE_PREFIX: `tmi-bench-slow-bodies-${process.pid}`,
  });
  processes.push(queryApi, metadataApi);
  const upstreams = {
    QUERY_API_URL: await serviceAddress(queryApi, "query-api"),
    METADATA_API_URL: await serviceAddress(metadataApi, "metadata-api"),
  };
  const variants: { gateway: string; env: Record<string, string> }[] = [
    { gateway: "default limits", env: {} },
    { gateway: "no per-client cap", env: { GATEWAY_MAX_BODIES_PER_CLIENT: "0" } },
  ];
  const gateways = variants.map((g) => {
    const proc = startGatewayProcess({ ...upstreams, ORACLE_PRICE_URL: upstreams.QUERY_API_URL, ...g.env });
    processes.push(proc);
    return { ...g, proc };
  });
  const bases = await Promise.all(gateways.map((g) => serviceAddress(g.proc, "gateway")));

  // One image to read back through /objects.
  const form = new FormData();
  form.append("name", "Bench Cat");
  form.append("symbol", "BNCH");
  form.append("initial_supply", "1000000000000000000000000000");
  form.append(
    "image",
    new Blob([pngImage(2, 2, { padTo: 64 * 1024, unique: true })], { type: "image/png" }),
    "b.png",
  );
  const created = await fetch(`${bases[0]}/api/v1/token-metadata`, { method: "POST", body: form });
  const { image_url: imageUrl } = (await created.json()) as { image_url?: string };
  if (created.status !== 201 || !imageUrl) throw new Error(`upload failed: ${created.status}`);
  const objectPath = new URL(imageUrl, bases[0]).pathname;
  const reads = [
    { read: "GET /api/v1/tokens/{address}", path: tokenPath },
    { read: "GET /objects/images/… (64 KiB)", path: () => objectPath },
  ];

  for (const [g, { gateway, proc }] of gateways.entries()) {
    const base = bases[g]!;
    for (const { attack, start } of attacks) {
      const running = await Promise.all(start.map((s) => s(base)));
      try {
        for (const { read, path } of reads) {
          const figures = await runLoad({
            url: base,
            path,
            connections: args.connections,
            durationSeconds: args.durationSeconds,
            warmupSeconds: 1,
            cpuPids: [proc.child.pid],
          });
          const answers: Answers = {};
          for (const r of running)
            for (const [status, n] of Object.entries(r.answers)) answers[status] = (answers[status] ?? 0) + n;
          rows.push({ gateway, attack, read, ...figures, answers });
          log(
            `  ${gateway} / ${attack} / ${read}: p99 ${figures.p99_ms} ms, ${figures.rps} req/s (load ${figures.loadavg_1m})`,
          );
        }
      } finally {
        for (const r of running) r.stop();
      }
    }
  }
} finally {
  await Promise.all(processes.map((p) => p.stop().catch(() => p.kill())));
  await devnet.stop().catch(() => {});
  await database.drop().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}

console.log(
  `\ngateway under slow request bodies: one address, one byte every ${PACE_MS / 1000} s, reconnecting; ${args.connections} read connections, ${args.durationSeconds} s per run; all processes on this machine (load ${loadavg()[0]!.toFixed(1)})\n`,
);
printTable(
  rows.map((r) => ({
    gateway: r.gateway,
    attack: r.attack,
    read: r.read,
    "req/s": r.rps,
    "p50 ms": r.p50_ms,
    "p99 ms": r.p99_ms,
    "failed reads": r.errors + r.timeouts + r.non_2xx,
    "attack answers": Object.entries(r.answers)
      .map(([s, n]) => `${s}×${n}`)
      .join(" "),
    target:
      r.attack === "130 slow POST /api/v1/tokens" && r.read.startsWith("GET /api")
        ? r.p99_ms <= 100
          ? "met"
          : "MISSED"
        : "",
    load: r.loadavg_1m,
  })),
);
console.log("");
for (const r of rows)
  console.log(
    JSON.stringify({
      bench: "gateway-slow-bodies",
      gateway: r.gateway,
      attack: r.attack,
      read: r.read,
      ...args.record(r),
      failed_reads: r.errors + r.timeouts + r.non_2xx,
      statuses: r.statuses,
      attack_answers: r.answers,
      gateway_cpu_ms_per_req: r.cpu_ms_per_req[0],
      loadavg_1m: r.loadavg_1m,
    }),
  );
