export * from "./address.js";
export * from "./chain-string.js";
export * from "./cursor.js";
export * from "./decimal.js";
