// Preload (`--import`) for `BENCH_INDEXER_CPU_PROF=<dir>`: `--cpu-prof` is not allowed in
// NODE_OPTIONS, so the profiler is started through the inspector here and the profile written to
// <dir>/indexer-<pid>.cpuprofile on SIGUSR2 (sent by bench/indexer.ts once the sync has caught up).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const dir = process.env.TMI_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable", () => session.post("Profiler.start"));
  process.on("SIGUSR2", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(`${dir}/indexer-${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}
