declare module "pg-copy-streams" {
  import type { Readable, Writable } from "node:stream";
  import type { Submittable } from "pg";
  /** `COPY ... FROM STDIN` as a writable stream, passed to `client.query`. */
  export function from(sql: string): Writable & Submittable;
  /** `COPY ... TO STDOUT` as a readable stream, passed to `client.query`. */
  export function to(sql: string): Readable & Submittable;
}
