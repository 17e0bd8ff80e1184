// Terminal output of `pnpm start`: tagged and coloured lines, the formatting of the services' pino
// lines, and the tail of a log file. Node built-ins only (runs before the install step).
import { readFileSync } from "node:fs";

const isTty = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const started = performance.now();
const COLORS = [36, 35, 33, 32, 34, 96, 95, 93];
const colorOf = new Map();
const LEVELS = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** `text` in the ANSI colour `code` on a terminal (NO_COLOR unset), plain otherwise. */
export const paint = (code, text) => (isTty ? `\u001b[${code}m${text}\u001b[0m` : text);

/** `[name]` padded to one column width, in a colour of its own per name. */
export function tag(name) {
  if (!colorOf.has(name)) colorOf.set(name, COLORS[colorOf.size % COLORS.length]);
  return paint(colorOf.get(name), `[${name}]`.padEnd(15));
}

/** Prints one line of the supervisor on stdout. */
export const say = (message) => process.stdout.write(`${tag("start")} ${message}\n`);

/** Prints one warning of the supervisor on stderr. */
export const warn = (message) =>
  process.stderr.write(`${tag("start")} ${paint(33, "warning:")} ${message}\n`);

/** Prints one error of the supervisor on stderr (the caller decides what happens next). */
export const error = (message) => process.stderr.write(`${tag("start")} ${paint(31, "error:")} ${message}\n`);

/** Seconds since this process started, one decimal (for "ready in" lines). */
export const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

/**
 * Prints `message` and exits 1. Used before anything was started, and for start-up failures: the
 * supervisor's exit hook kills every child's process group.
 * @param {string} message
 * @returns {never}
 */
export function fail(message) {
  error(message);
  process.exit(1);
}

/**
 * One output line of a child for the terminal: pino JSON lines become `level msg {rest}` (an
 * error's message and code; its stack only when `verbose`), other lines stay as they are.
 * @returns the text, the pino level (30 for plain lines) and whether the line was JSON.
 */
export function formatLine(line, verbose) {
  if (!line.startsWith("{")) return { text: line, level: 30, json: false };
  try {
    const record = JSON.parse(line);
    const level = typeof record.level === "number" ? record.level : 30;
    const { msg, level: _l, time: _t, pid: _p, hostname: _h, service: _s, err, ...rest } = record;
    if (err && typeof err === "object") {
      rest.error = err.message;
      if (err.code) rest.code = err.code;
      if (verbose && err.stack) rest.stack = err.stack;
    }
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    const levelText = level >= 40 ? `${paint(level >= 50 ? 31 : 33, LEVELS[level] ?? level)} ` : "";
    return { text: `${levelText}${msg ?? ""}${extra}`, level, json: true };
  } catch {
    return { text: line, level: 30, json: false };
  }
}

/** The last `lines` lines of `file`, indented, for an error report ("" when unreadable). */
export function tail(file, lines) {
  try {
    const text = readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines);
    return `${text.map((l) => `    ${l}`).join("\n")}\n`;
  } catch {
    return "";
  }
}
