// A local webhook receiver for metadata-api's webhook tests: per path a secret and an answer
// rule; every request's Standard Webhooks signature is verified with the standardwebhooks library
// (a bad one is answered 400 and counted).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hashApiKey } from "@tmi/shared/http";
import { Webhook } from "standardwebhooks";
import { expect } from "vitest";

/** One verified request. */
export interface Received {
  path: string;
  id: string;
  type: string;
  data: Record<string, unknown>;
  status: number;
  /** The whole verified body. */
  event: unknown;
}

/** The local receiver: per path a secret and an answer rule; every request's signature checked. */
export interface Receiver {
  port: number;
  secrets: Map<string, string>;
  /** Status to answer for the n-th request (1-based) of event `id` on a path; default 200. */
  rules: Map<string, (n: number) => number>;
  received: Received[];
  badSignatures: number;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port (`close` it in `afterAll`). */
export async function startReceiver(): Promise<Receiver> {
  const seen = new Map<string, number>();
  const receiver: Receiver = {
    port: 0,
    secrets: new Map(),
    rules: new Map(),
    received: [],
    badSignatures: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const secret = receiver.secrets.get(path);
      let event: { id: string; type: string; data: Record<string, unknown> };
      try {
        if (!secret) throw new Error("no secret");
        event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as typeof event;
      } catch {
        receiver.badSignatures++;
        res.writeHead(400).end();
        return;
      }
      const key = `${path} ${event.id}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      const status = receiver.rules.get(path)?.(n) ?? 200;
      expect(req.headers["webhook-id"]).toBe(event.id);
      receiver.received.push({ path, id: event.id, type: event.type, data: event.data, status, event });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The requests received on `path` that were answered `status` (default 200). */
export function receivedOn(receiver: Receiver, path: string, status = 200): Received[] {
  return receiver.received.filter((r) => r.path === path && r.status === status);
}

/** Inserts an API key row `id` for the plain key `key` (tier `free`), as `pnpm api-keys create` stores it. */
export async function insertApiKey(
  sql: { query(text: string, values: unknown[]): Promise<unknown> },
  id: string,
  key: string,
): Promise<void> {
  await sql.query(
    "INSERT INTO api_keys (id, name, tier, key_hash, key_start) VALUES ($1, $1, 'free', $2, $3)",
    [id, hashApiKey(key), key.slice(0, 8)],
  );
}
