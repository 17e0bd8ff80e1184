/**
 * @tmi/contracts: ABIs (typed `as const`) and creation bytecode of our implementation of the
 * zonk.fun V3 contract set (factory, token, curve, fee manager, graduation manager, LP custodian,
 * residual escrow), the devnet ETH/USD and sequencer uptime feeds, and the Uniswap V3 / WETH9
 * contracts taken from their npm packages. The `generated/` modules are
 * written by `scripts/build.mjs` (`pnpm --filter @tmi/contracts build`).
 */

export * from "./generated/index.js";
export * from "./link.js";
