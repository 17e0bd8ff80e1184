// `pnpm bench metadata [--duration=10] [--connections=20] [--uploads=20]`: metadata-api in its own
// process (as in production, fs storage driver) on a fresh database and a bare devnet (anvil,
// for the CHAIN_ID check at start).
//  1. Peak RSS of the server while `uploads` (20) concurrent 5 MiB image uploads run: VmHWM is
//     reset (`/proc/<pid>/clear_refs`) after a warm-up, then read back. Target (issue 5): the peak
//     grows by less than 3x the file size.
//  2. GET /objects/images/<sha>.png of a 1 MiB image with autocannon. Target: >= 1,500 req/s.
// Prints a table, then one JSON line per figure set ({"bench":"metadata",...}).
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { startDevnet } from "@tmi/devnet";
import { createTestDatabase, waitFor } from "@tmi/testkit";
import autocannon from "autocannon";
import { pngImage } from "../services/metadata-api/src/images/test-images.js";
import { startMetadataApiProcess } from "./service-processes.js";

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split("=")[1]) : fallback;
};
const durationSeconds = arg("duration", 10);
const connections = arg("connections", 20);
const uploads = arg("uploads", 20);
const MIB = 1024 * 1024;

/** A valid PNG of exactly `size` bytes, distinct from every other (2x2 pixels plus a tEXt chunk of random filler). */
const pngOfSize = (size: number) => pngImage(2, 2, { padTo: size, unique: true });

async function multipart(image: Buffer) {
  const form = new FormData();
  form.append("name", "Bench Cat");
  form.append("symbol", "BNCH");
  form.append("initial_supply", "1000000000000000000000000000");
  form.append("image", new Blob([image], { type: "image/png" }), "bench.png");
  const response = new Response(form);
  return {
    body: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get("content-type")!,
  };
}

function procStatus(pid: number): { rssMb: number; hwmMb: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
}

const devnet = await startDevnet({ port: 0, blockTime: "automine", deploy: false });
const database = await createTestDatabase();
const dir = await mkdtemp(join(tmpdir(), "tmi-bench-metadata-"));
const service = startMetadataApiProcess(dir, {
  DATABASE_URL: database.url,
  RPC_URL: devnet.rpcUrl,
  CHAIN_ID: String(devnet.chainId),
  QUEUE_PREFIX: `tmi-bench-metadata-${process.pid}`,
});
const rows: Record<string, unknown>[] = [];
try {
  const base = await waitFor(() => /"address":"(http:[^"]+)"/.exec(service.output())?.[1], {
    timeoutMs: 60_000,
    message: `metadata-api did not start\n${service.output()}`,
  });
  const pid = service.child.pid!;
  const upload = async (image: Buffer) => {
    const { body, contentType } = await multipart(image);
    const response = await fetch(`${base}/api/v1/token-metadata`, {
      method: "POST",
      body,
      headers: { "content-type": contentType },
    });
    const json = (await response.json()) as { image_url?: string };
    if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(json)}`);
    return json.image_url!;
  };

  // 1. Peak RSS during concurrent 5 MiB uploads.
  const fileSize = 5 * MIB;
  for (let i = 0; i < 3; i++) await upload(pngOfSize(fileSize)); // warm-up (JIT, pools, folders)
  const bodies = await Promise.all(Array.from({ length: uploads }, () => multipart(pngOfSize(fileSize))));
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(`/proc/${pid}/clear_refs`, "5"); // reset VmHWM to the current RSS
  const before = procStatus(pid);
  const started = performance.now();
  const statuses = await Promise.all(
    bodies.map(async ({ body, contentType }) => {
      const r = await fetch(`${base}/api/v1/token-metadata`, {
        method: "POST",
        body,
        headers: { "content-type": contentType },
      });
      await r.arrayBuffer();
      return r.status;
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  if (statuses.some((s) => s !== 201)) throw new Error(`uploads answered ${statuses.join(",")}`);
  const after = procStatus(pid);
  const growthMb = after.hwmMb - before.rssMb;
  const fileMb = fileSize / MIB;
  rows.push({
    bench: "metadata",
    case: `${uploads} concurrent ${fileMb} MiB uploads`,
    baseline_rss_mb: round(before.rssMb),
    peak_rss_mb: round(after.hwmMb),
    peak_growth_mb: round(growthMb),
    growth_vs_file: round(growthMb / fileMb),
    target: "growth < 3x file size",
    pass: growthMb < 3 * fileMb,
    uploads_per_s: round(uploads / elapsed),
    mb_per_s: round((uploads * fileMb) / elapsed),
  });

  // 2. GET /objects of a 1 MiB image.
  const path = await upload(pngOfSize(MIB));
  const probe = await fetch(`${base}${path}`);
  if (probe.status !== 200 || (await probe.arrayBuffer()).byteLength !== MIB)
    throw new Error("object probe failed");
  await autocannon({ url: `${base}${path}`, connections, duration: 2 }); // warm-up
  const serverCpu0 = cpuSeconds(pid);
  const clientCpu0 = process.cpuUsage();
  const result = await autocannon({ url: `${base}${path}`, connections, duration: durationSeconds });
  const serverCpu = cpuSeconds(pid) - serverCpu0;
  const clientCpuUsage = process.cpuUsage(clientCpu0);
  const clientCpu = (clientCpuUsage.user + clientCpuUsage.system) / 1e6;
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`GET /objects: ${result.non2xx} non-2xx, ${result.errors} errors`);
  rows.push({
    bench: "metadata",
    route: "GET /objects/images/<sha256>.png (1 MiB, fs)",
    connections,
    rps: round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    mb_per_s: round(result.throughput.average / MIB),
    rss_mb: round(procStatus(pid).rssMb),
    server_cpu_pct: round((serverCpu / durationSeconds) * 100),
    loadgen_cpu_pct: round((clientCpu / durationSeconds) * 100),
    target: ">= 1500 req/s",
    pass: result.requests.average >= 1500,
  });

  // 3. The same route with a lean load generator (raw keep-alive sockets reading into one reused
  //    buffer, counting body bytes, no HTTP parsing beyond the head): autocannon parses every
  //    body byte in JavaScript and needs about twice the server's CPU per 1 MiB response, so on
  //    2 shared cores it, not the server, sets the autocannon figure.
  const serverCpu1 = cpuSeconds(pid);
  const lean = await leanLoad(base, path, connections, durationSeconds);
  const leanServerCpu = cpuSeconds(pid) - serverCpu1;
  rows.push({
    bench: "metadata",
    route: "GET /objects/images/<sha256>.png (1 MiB, fs) — lean client",
    connections,
    rps: round(lean.rps),
    p50_ms: lean.p50,
    p99_ms: lean.p99,
    mb_per_s: round((lean.rps * MIB) / MIB),
    rss_mb: round(procStatus(pid).rssMb),
    server_cpu_pct: round((leanServerCpu / durationSeconds) * 100),
    server_cpu_ms_per_req: round((leanServerCpu * 1000) / Math.max(1, lean.requests)),
    target: ">= 1500 req/s",
    pass: lean.rps >= 1500,
  });
} finally {
  await service.stop();
  await database.drop();
  await devnet.stop();
  await rm(dir, { recursive: true, force: true });
}

/**
 * A minimal HTTP/1.1 load generator for large bodies: `connections` keep-alive sockets, one
 * request in flight each, reads into one reused buffer (`onread`), finds `Content-Length` in the
 * head and counts body bytes. Returns requests/s and latency percentiles (ms).
 */
async function leanLoad(base: string, path: string, connections: number, seconds: number) {
  const { hostname, port } = new URL(base);
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`, "latin1");
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let requests = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      let head = "";
      let remaining = -1;
      let started = 0;
      const next = () => {
        if (performance.now() >= deadline) {
          socket.end();
          resolve();
          return;
        }
        head = "";
        remaining = -1;
        started = performance.now();
        socket.write(request);
      };
      const socket = connect({
        host: hostname,
        port: Number(port),
        onread: {
          buffer: Buffer.alloc(256 * 1024),
          callback(n, buf) {
            let offset = 0;
            if (remaining < 0) {
              head += Buffer.from(buf.buffer, buf.byteOffset, n).toString("latin1");
              const end = head.indexOf("\r\n\r\n");
              if (end < 0) return true;
              if (!head.startsWith("HTTP/1.1 200")) reject(new Error(head.slice(0, 80)));
              remaining = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
              offset = n - (head.length - end - 4);
            }
            remaining -= n - offset;
            if (remaining <= 0) {
              requests += 1;
              latencies.push(performance.now() - started);
              next();
            }
            return true;
          },
        },
      });
      socket.on("error", reject);
      socket.on("connect", next);
    });
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, one));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0);
  return { rps: requests / elapsed, requests, p50: pct(0.5), p99: pct(0.99) };
}

/** CPU seconds (user + system) used so far by process `pid`. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

console.log(
  `\nmetadata-api benchmark — ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, ${new Date().toISOString()}`,
);
console.table(rows.map(({ bench: _b, ...rest }) => rest));
for (const row of rows) console.log(JSON.stringify(row));
