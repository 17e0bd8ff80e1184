// `node supervised-command.mjs <stop-signal> <command> [args...]`: runs a command that is not a
// Node program (the read replica's `postgres`) as a supervised child of `pnpm start`. The stop
// signals the supervisor sends (SIGTERM, SIGINT, SIGHUP) are passed on to the command, whose exit
// code becomes this process's. When the supervisor is gone the command gets `<stop-signal>`
// (supervisor-link.mjs).
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { onSupervisorGone } from "./supervisor-link.mjs";

const [stopSignal, command, ...args] = process.argv.slice(2);
if (!stopSignal || !command) {
  process.stderr.write("usage: node supervised-command.mjs <stop-signal> <command> [args...]\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: "inherit" });
child.once("error", (error) => {
  process.stderr.write(`${command}: ${error.message}\n`);
  process.exit(127);
});
child.once("exit", (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
for (const signal of /** @type {const} */ (["SIGTERM", "SIGINT", "SIGHUP"]))
  process.on(signal, () => child.kill(signal));
onSupervisorGone(() => child.kill(/** @type {NodeJS.Signals} */ (stopSignal)));
