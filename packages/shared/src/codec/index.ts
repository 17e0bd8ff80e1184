export * from "./address.js";
export * from "./cursor.js";
export * from "./decimal.js";
