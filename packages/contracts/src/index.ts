/**
 * @tmi/contracts: ABIs (typed `as const`) and creation bytecode of the reference launchpad
 * (DESIGN.md §2), the devnet ETH/USD and sequencer uptime feeds (DESIGN.md §13), and the
 * Uniswap V3 / WETH9 contracts taken from their npm packages. The `generated/` modules are
 * written by `scripts/build.mjs` (`pnpm --filter @tmi/contracts build`).
 */

export * from "./curve-math.js";
export * from "./generated/index.js";
export * from "./link.js";
