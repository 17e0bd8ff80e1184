export * from "./api-key.js";
export * from "./app.js";
export * from "./error-handler.js";
export * from "./request-id.js";
export * from "./serve.js";
