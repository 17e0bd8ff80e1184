// The link from a child of `pnpm start` to its supervisor. The supervisor gives each child an IPC
// channel; the kernel closes it when the supervisor's process ends, however it ends (`kill -9`
// included), and Node reports that as `disconnect`. Node has no parent-death signal: this is it.

/**
 * Calls `stop` once when the supervisor is gone, then kills this process's whole process group if
 * it is still running after TMI_STOP_GRACE_MS (default 12 s; the supervisor started this process
 * as the leader of its own group). Does nothing without an IPC channel (not started by the
 * supervisor). The channel does not keep the process alive by itself.
 * @param {() => void} stop starts the graceful stop (e.g. SIGTERM to itself)
 */
export function onSupervisorGone(stop) {
  const channel = process.channel;
  if (!channel) return;
  channel.unref();
  process.once("disconnect", () => {
    // The pipes to the supervisor are closed too: a failed log write must not end the stop early.
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
    const graceMs = Number(process.env.TMI_STOP_GRACE_MS) || 12_000;
    setTimeout(() => {
      try {
        process.kill(-process.pid, "SIGKILL");
      } catch {}
      process.exit(1);
    }, graceMs).unref();
    stop();
  });
}
