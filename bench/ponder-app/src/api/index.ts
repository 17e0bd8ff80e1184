import { Hono } from "hono";

// Ponder requires an API entry; the benchmark reads only its built-in `/ready`.
export default new Hono();
