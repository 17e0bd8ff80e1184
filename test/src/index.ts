// @tmi/e2e helpers: the whole system as real processes (see system.ts).

export * from "./platform-schemas.js";
export * from "./system.js";
