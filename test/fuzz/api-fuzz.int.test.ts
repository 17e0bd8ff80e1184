// A bounded property-based pass (fast-check) over every route of the OpenAPI document
// (`/api/v1/openapi.json`) and the routes the gateway sends to the other services (metadata,
// objects, ETH/USD, health), through the gateway of the whole system on a devnet with a small
// indexed market (test/src/api-scenario.ts). Each case is one request with random or hostile path
// parameters, query values, headers, methods and bodies. Every answer must:
// - carry a valid X-Request-ID (the one sent, when it was valid);
// - have a status the route documents (plus 405 for another method, 304 for If-None-Match,
//   204 for a preflight), and never a 5xx other than a documented 503;
// - be the error envelope when it is an error, and parse with the contract schemas on success.
// Requests fetch cannot make go out by node:http (an `Expect` header: 100-continue, its case
// variants, or another value) or a raw socket (`CONNECT`); some paths get a trailing slash (an
// object key with one must be 404).
// A second case sends slow, stalled, chunked and oversized request bodies (random route, method,
// declared length, bytes and pace) all at once from one address over raw sockets: each must be
// answered in the envelope (405 on a route without bodies, 408 when stalled, 413, 429 over the
// per-client cap, or the service's answer to a complete body) while a read stays answered.
// The run is bounded by FUZZ_BUDGET_MS (default 45 s) over all routes; it prints the number of
// cases and requests per route. FUZZ_SEED replays a run; FUZZ_ROUTES narrows it to some routes.
import http from "node:http";
import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { draftForm, type Market, PNG_1X1, seedMarket, TOTAL_SUPPLY } from "../src/api-scenario.js";
import { openApiChecker } from "../src/openapi-check.js";
import {
  activityPageSchema,
  chartSchema,
  creatorEarningsSchema,
  creatorProfileSchema,
  dexAssetSchema,
  dexEventsSchema,
  dexLatestBlockSchema,
  dexPairSchema,
  errorEnvelopeSchema,
  ethUsdSchema,
  finalizeResponseSchema,
  holderHistorySchema,
  holderPageSchema,
  holdingPageSchema,
  indexingStatusSchema,
  metadataDraftSchema,
  pricingSchema,
  rewardDistributionPageSchema,
  rewardTreeSchema,
  serviceStatusSchema,
  tokenDetailSchema,
  tokenFeesSchema,
  tokenPageSchema,
  tradePageSchema,
  traderPageSchema,
  usdChartSchema,
  walletRewardPageSchema,
  walletSummarySchema,
  webhookDeliveriesSchema,
  webhookListSchema,
  webhookSchema,
} from "../src/platform-schemas.js";
import { type System, startSystem } from "../src/system.js";

const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 45_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
/** FUZZ_ROUTES: a regular expression on "METHOD template" to fuzz only some routes (debugging). */
const ONLY = process.env.FUZZ_ROUTES ? new RegExp(process.env.FUZZ_ROUTES) : undefined;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The gateway's `GATEWAY_BODY_TIMEOUT_MS` in this run. */
const SLOW_BODY_TIMEOUT_MS = 2000;
const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT"] as const;

/** A route to fuzz: a path template with `{name}` parameters (or a trailing `*`). */
interface FuzzRoute {
  method: "GET" | "POST";
  template: string;
  /** Documented statuses of the route. */
  statuses: Set<number>;
  /** Query parameters with their OpenAPI schema (type, enum). */
  query: { name: string; schema: { type?: string; enum?: string[] } }[];
  /** Success schema (200/201); `null` for a non-JSON success (SSE, objects). */
  success: z.ZodType | null;
  /** Body generator for POST routes. */
  body?: fc.Arbitrary<FuzzBody>;
}

/** A request body of a POST route with its headers and how a failure names it. */
type FuzzBody = { body: NonNullable<RequestInit["body"]>; headers: Record<string, string>; shown: string };

/** Success schemas of the query-api routes, by OpenAPI path template. */
const SUCCESS: Record<string, z.ZodType | null> = {
  "/api/v1/tokens": tokenPageSchema,
  "/api/v1/tokens/newest": tokenPageSchema,
  "/api/v1/tokens/trending": tokenPageSchema,
  "/api/v1/trending": tokenPageSchema,
  "/api/v1/tokens/{address}": tokenDetailSchema,
  "/api/v1/tokens/{address}/pricing": pricingSchema,
  // `currency=usd` answers the USD chart, any other currency the wei chart.
  "/api/v1/tokens/{address}/chart": z.union([usdChartSchema, chartSchema]),
  "/api/v1/tokens/{address}/trades": tradePageSchema,
  "/api/v1/trades": tradePageSchema,
  "/api/v1/tokens/{address}/activity": activityPageSchema,
  "/api/v1/tokens/{address}/holders": holderPageSchema,
  "/api/v1/tokens/{address}/holders/history": holderHistorySchema,
  "/api/v1/tokens/{address}/traders": traderPageSchema,
  "/api/v1/wallets/{address}": walletSummarySchema,
  "/api/v1/wallets/{address}/holdings": holdingPageSchema,
  "/api/v1/wallets/{address}/trades": tradePageSchema,
  "/api/v1/creators/{address}": creatorProfileSchema,
  // Webhook routes (metadata-api) answer 401 without an API key, which the fuzzer never sends.
  "/api/v1/webhooks": webhookListSchema,
  "/api/v1/webhooks/{id}": webhookSchema,
  "/api/v1/webhooks/{id}/deliveries": webhookDeliveriesSchema,
  "/api/v1/creators/{address}/tokens": tokenPageSchema,
  "/api/v1/creators/{address}/earnings": creatorEarningsSchema,
  "/api/v1/tokens/{address}/fees": tokenFeesSchema,
  "/api/v1/tokens/{address}/rewards/distributions": rewardDistributionPageSchema,
  "/api/v1/wallets/{address}/rewards": walletRewardPageSchema,
  "/api/v1/status": indexingStatusSchema,
  "/api/v1/stream": null,
  "/health": serviceStatusSchema("ok"),
  "/readyz": serviceStatusSchema("ready"),
  "/dexscreener/latest-block": dexLatestBlockSchema,
  "/dexscreener/asset": dexAssetSchema,
  "/dexscreener/pair": dexPairSchema,
  "/dexscreener/events": dexEventsSchema,
};

let system: System;
let market: Market;

/** Hostile strings for any text position (path segments, query values, form fields). */
const hostileText = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "0x",
    "0X",
    "..",
    "%",
    "%zz",
    "%00",
    "%E0%A4%A",
    "%2F",
    "a/b",
    "\u0000",
    "\u202eevil",
    "𝔘𝔫𝔦",
    "'; DROP TABLE tokens; --",
    "<script>",
    "{{7*7}}",
    "NaN",
    "-1",
    "1e3",
    "0x10",
    "9".repeat(400),
    "a".repeat(3000),
    "null",
    "[]",
    "{}",
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
);

/**
 * Encodes a generated path segment: mostly percent-encoded, sometimes raw (hostile escapes). Raw
 * segments still percent-encode whitespace and control characters: a request-target cannot hold them
 * (RFC 9112), and a raw space ends the target early, so the server answers another route than the one
 * the case is checked against.
 */
const segment = (value: string, raw: boolean) =>
  raw
    ? [...value.replace(/[?#]/g, "")]
        .map((c) => (/\s/.test(c) || c.charCodeAt(0) < 0x20 || c === "\u007f" ? encodeURIComponent(c) : c))
        .join("")
    : encodeURIComponent(value);

/** Printable ASCII (fetch refuses other header bytes). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 200,
});

/** Random headers: request id (valid or not), If-None-Match, Accept, Origin, junk. */
const headersArb = fc.record(
  {
    "x-request-id": fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/), headerText),
    "if-none-match": fc.oneof(
      fc.constant("*"),
      headerText.map((t) => `"${t}"`),
    ),
    accept: fc.constantFrom("*/*", "application/json", "text/html", "image/png", "application/xml;q=0.1"),
    origin: fc.constantFrom("https://zonk.fun", "null", "http://127.0.0.1:3000"),
    "x-forwarded-for": fc.constantFrom("1.2.3.4", "::1", "not-an-ip", "1.2.3.4, 5.6.7.8"),
    // Sent by node:http (fetch refuses the header); curl sends 100-continue for bodies over 1 MB.
    expect: fc.constantFrom("100-continue", "100-Continue", "something-else"),
    "x-junk": headerText,
  },
  { requiredKeys: [] },
);

/** Values for a query parameter of the given OpenAPI schema, valid and hostile. */
function queryValue(schema: { type?: string; enum?: string[] }, name: string): fc.Arbitrary<string> {
  const typed: fc.Arbitrary<string>[] = [hostileText];
  if (schema.enum?.length) typed.push(fc.constantFrom(...schema.enum));
  if (schema.type === "integer" || name === "limit")
    typed.push(fc.integer({ min: -10, max: 1200 }).map(String), fc.constantFrom("1", "20", "100", "1000"));
  // Every valid page size (one set of prepared statements serves them all: docs/operations.md).
  if (name === "limit") typed.push(fc.integer({ min: 1, max: 100 }).map(String));
  if (name === "interval") typed.push(fc.constantFrom("1m", "5m", "15m", "1h", "4h", "1d", "1w", "2m", "1H"));
  if (name === "order") typed.push(fc.constantFrom("asc", "desc", "ASC"));
  if (name === "search")
    typed.push(fc.constantFrom("alpha", "beta", "ALP", "0x", "a.b_c-d"), fc.string({ maxLength: 70 }));
  if (name === "cursor") typed.push(fc.base64String({ maxLength: 120 }).map((s) => s.replace(/=/g, "")));
  // Screener bounds (`min_market_cap`, `max_top10_share_bps`, …): integers up to and past 78 digits.
  if (/^(min|max)_/.test(name))
    typed.push(
      fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
      fc.constantFrom("0", "1", "10000", "9".repeat(78), "9".repeat(79), "-0", "+1", "01"),
    );
  if (ADDRESS_LIST_PARAMS.has(name)) typed.push(addressListArb());
  return fc.oneof(...typed);
}

/** Query parameters that take a comma-separated address list (the stream's filters, the batch's `addresses`). */
const ADDRESS_LIST_PARAMS = new Set(["tokens", "wallets", "addresses"]);

/** True when an address-list value names no address (`""`, `",,,"`, `" , "`). */
const namesNoAddress = (value: string) => value.split(",").every((part) => part.trim() === "");

/** Address lists: empty and blank shapes, one or many (up to 101), mixed case, duplicates, a bad entry. */
function addressListArb(): fc.Arbitrary<string> {
  const one = fc.oneof(
    fc.constantFrom(market.alpha.token, market.beta.token, market.creator.address),
    fc.constantFrom(market.alpha.token).map((a) => `0x${a.slice(2).toUpperCase()}`),
    fc.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    fc.constantFrom("0x12", "0xZZ", "", " "),
  );
  return fc.oneof(
    fc.constantFrom("", ",", ",,,", " , ", "%20"),
    fc.array(one, { minLength: 1, maxLength: 5 }).map((list) => list.join(",")),
    fc
      .integer({ min: 99, max: 101 })
      .map((n) => Array.from({ length: n }, () => market.alpha.token).join(",")),
  );
}

/** Addresses for `{address}`: the market's, random ones, upper case, hostile strings. */
function addressArb(): fc.Arbitrary<{ value: string; raw: boolean }> {
  const known = [
    market.alpha.token,
    market.beta.token,
    market.creator.address,
    `0x${market.beta.token.slice(2).toUpperCase()}`,
  ];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known).map((value) => ({ value, raw: false })) },
    {
      weight: 2,
      arbitrary: fc.stringMatching(/^0x[0-9a-fA-F]{40}$/).map((value) => ({ value, raw: false })),
    },
    { weight: 3, arbitrary: fc.record({ value: hostileText, raw: fc.boolean() }) },
  );
}

/** One fuzz case for `route`: method, URL path, headers, body. */
function caseArb(route: FuzzRoute) {
  const params = [...route.template.matchAll(/\{(\w+)\}|\*$/g)].map((m) => m[1] ?? "*");
  const pathArb = fc.tuple(
    ...params.map((p) =>
      p === "*"
        ? objectKeyArb()
        : p === "draft"
          ? draftArb()
          : p === "id"
            ? fc.oneof(
                fc
                  .uint8Array({ minLength: 32, maxLength: 32 })
                  .map((b) => ({ value: `0x${Buffer.from(b).toString("hex")}`, raw: false })),
                addressArb(),
              )
            : addressArb(),
    ),
  );
  const queryArb = fc.tuple(
    fc
      .subarray(route.query)
      .chain((chosen) =>
        fc.tuple(...chosen.map((q) => fc.tuple(fc.constant(q.name), queryValue(q.schema, q.name)))),
      ),
    fc.array(
      fc.tuple(
        fc.constantFrom("limit", "x", "cursor", "__proto__", "search[]", "wallets[]", "tokens[0]"),
        fc.oneof(hostileText, addressListArb()),
      ),
      { maxLength: 2 },
    ),
  );
  return fc.record({
    method: fc.oneof(
      { weight: 9, arbitrary: fc.constant(route.method) },
      { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
    ),
    path: pathArb,
    query: queryArb,
    headers: headersArb,
    body: route.body ?? fc.constant(undefined),
    trailingSlash: fc.oneof(
      { weight: 7, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
  });
}

/** Object keys: the stored ones, made-up ones, traversal attempts. */
function objectKeyArb(): fc.Arbitrary<{ value: string; raw: boolean }> {
  const stored = [market.alphaDraft.image_url!, market.alphaDraft.metadata_url!].map((p) =>
    p.replace(/^\/objects\//, ""),
  );
  return fc.oneof(
    fc.constantFrom(...stored).map((value) => ({ value, raw: true })),
    fc
      .constantFrom("../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "images/", "metadata/x.json", "%00.json")
      .map((value) => ({ value, raw: true })),
    fc.record({ value: hostileText, raw: fc.boolean() }),
  );
}

/** Draft ids: the market's bound draft, a well-formed unknown one, hostile strings. */
function draftArb(): fc.Arbitrary<{ value: string; raw: boolean }> {
  return fc.oneof(
    fc
      .constantFrom(market.alpha.draftId, "00000000-0000-4000-8000-000000000000")
      .map((value) => ({ value, raw: false })),
    fc.uuid().map((value) => ({ value, raw: false })),
    fc.record({ value: hostileText, raw: fc.boolean() }),
  );
}

/** Multipart metadata forms: valid, missing, hostile and oversized fields; random image bytes. */
function metadataBodyArb(): FuzzRoute["body"] {
  // Mostly valid or absent values, so that the valid path (201) is fuzzed too.
  const field = (valid: fc.Arbitrary<string>, absent = 1) =>
    fc.oneof(
      { weight: 6, arbitrary: valid },
      { weight: 1, arbitrary: hostileText },
      { weight: absent, arbitrary: fc.constant(undefined) },
    );
  return fc
    .record({
      name: field(fc.constantFrom("Fuzz Token", "F", "Ünïcödé ✓")),
      symbol: field(fc.constantFrom("FUZZ", "F")),
      initial_supply: field(fc.constantFrom(TOTAL_SUPPLY.toString(), TOTAL_SUPPLY.toString(), "1", "0")),
      description: field(fc.string({ maxLength: 200 }), 4),
      website_url: field(
        fc.constantFrom("https://fuzz.example.com/", "http://a.b/", "javascript:alert(1)"),
        6,
      ),
      x_url: field(fc.constantFrom("https://x.com/fuzz", "https://twitter.com/f", "https://evil.com/"), 6),
      telegram_url: field(fc.constantFrom("https://t.me/fuzz", "https://x.com/f"), 6),
      discord_url: field(fc.constantFrom("https://discord.gg/fuzz", "https://t.me/f"), 6),
      // Hosts an image_url must never reach (no DNS, no outside traffic): mostly absent.
      image_url: field(
        fc.constantFrom(
          "https://127.0.0.1/a.png",
          "https://[::1]/a.png",
          "http://10.0.0.1/a.png",
          "file:///etc/passwd",
          "https://169.254.169.254/",
        ),
        30,
      ),
      image: fc.oneof(
        { weight: 6, arbitrary: fc.constant<Uint8Array | null>(PNG_1X1) },
        { weight: 1, arbitrary: fc.constant<Uint8Array | null>(null) },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b): Uint8Array | null => b) },
        {
          weight: 1,
          arbitrary: fc.constant<Uint8Array | null>(
            Buffer.concat([PNG_1X1.subarray(0, 16), Buffer.alloc(32)]),
          ),
        },
      ),
      kind: fc.constantFrom(...Array<string>(12).fill("multipart"), "json", "text", "broken-multipart"),
    })
    .map(({ image, kind, ...fields }): FuzzBody => {
      const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >;
      if (kind === "json")
        return {
          body: JSON.stringify(defined),
          headers: { "content-type": "application/json" },
          shown: "json",
        };
      if (kind === "text")
        return { body: "name=x", headers: { "content-type": "text/plain" }, shown: "text" };
      if (kind === "broken-multipart")
        return {
          body: `--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b`,
          headers: {
            "content-type": `multipart/form-data; boundary=${"b".repeat(1 + (defined.name?.length ?? 0) * 7)}`,
          },
          shown: "broken multipart",
        };
      return {
        body: draftForm(defined, image),
        headers: {},
        shown: `multipart ${Object.keys(defined).join(",")}`,
      };
    });
}

/** Finalize bodies: the market's real launch, mixed-up pairs, wrong types, junk. */
/** Bodies of the reward tree upload: leaves of random claimants and amounts, any JSON, hostile text. */
function rewardTreeBodyArb(): FuzzRoute["body"] {
  const address = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(market.alpha.token, market.creator.address, "0x1234") },
    { weight: 1, arbitrary: hostileText },
  );
  const amount = fc.oneof(
    { weight: 5, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 257n }).map(String) },
    { weight: 1, arbitrary: hostileText },
  );
  return fc
    .oneof(
      fc
        .array(fc.record({ claimant: address, amount }), { maxLength: 5 })
        .map((leaves) => JSON.stringify({ leaves })),
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: hostileText },
    )
    .map((body) => ({ body, headers: { "content-type": "application/json" }, shown: body.slice(0, 80) }));
}

function finalizeBodyArb(): FuzzRoute["body"] {
  const tokens = [
    market.alpha.token,
    market.beta.token,
    "0x1234",
    "0x00000000000000000000000000000000deadbeef",
  ];
  const hashes = [market.alpha.launch.hash, market.beta.launch.hash, `0x${"ab".repeat(32)}`, "0x"];
  return fc
    .oneof(
      fc
        .record(
          {
            token_address: fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom(...tokens) },
              { weight: 1, arbitrary: hostileText },
            ),
            transaction_hash: fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom(...hashes) },
              { weight: 1, arbitrary: hostileText },
            ),
          },
          { requiredKeys: ["token_address", "transaction_hash"] },
        )
        .map((b) => JSON.stringify(b)),
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: hostileText },
    )
    .map((body) => ({ body, headers: { "content-type": "application/json" }, shown: body.slice(0, 80) }));
}

/** One answer as the checks read it (see {@link send}). */
interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  type: string;
}

/** `text` as JSON when it parses, else the text (null when empty). */
function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/**
 * Sends by node:http (a request with an `Expect` header, which fetch refuses): the body, if any,
 * goes after `100 Continue` (or straight away for another expectation). Reads like {@link send}.
 */
async function sendByNode(url: string, init: RequestInit): Promise<Answer> {
  const prepared = init.body === undefined ? null : new Request(url, { method: "POST", body: init.body });
  const bytes = prepared ? Buffer.from(await prepared.arrayBuffer()) : null;
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  const contentType = prepared?.headers.get("content-type");
  if (contentType && !headers["content-type"]) headers["content-type"] = contentType;
  if (bytes) headers["content-length"] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method, headers, agent: false, timeout: 15_000 });
    const waitsForContinue = bytes !== null && /^100-continue$/i.test(headers.expect ?? "");
    request.on("continue", () => request.end(bytes));
    request.on("timeout", () => request.destroy(new Error("no answer in 15 s")));
    request.on("error", (error) => reject(Object.assign(new TypeError("fetch failed"), { cause: error })));
    request.on("response", async (response) => {
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(response.headers))
        if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
      const type = answerHeaders.get("content-type") ?? "";
      let body: unknown = null;
      if (type.startsWith("text/event-stream") || type.startsWith("image/")) response.destroy();
      else {
        let text = "";
        for await (const chunk of response) text += chunk;
        body = parseBody(text);
      }
      if (waitsForContinue && !request.writableEnded) request.destroy();
      resolve({ status: response.statusCode ?? 0, headers: answerHeaders, body, type });
    });
    if (!waitsForContinue) request.end(bytes ?? undefined);
    else request.flushHeaders();
  });
}

/** A request body sent slowly: `bytes` body bytes (chunk frames when chunked), `paceMs` apart, then nothing. */
interface Trickle {
  bytes: number;
  paceMs: number;
  chunked: boolean;
}

/**
 * Sends `<method> <path>` on a raw socket (`CONNECT`, which fetch and node:http cannot send, or a
 * request whose body trickles) and reads the answer until the server closes.
 */
function sendRaw(
  url: string,
  method: string,
  headers: Record<string, string>,
  trickle?: Trickle,
): Promise<Answer> {
  const { hostname, port, pathname, search } = new URL(url);
  let head = `${method} ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let data = "";
    let sending = false;
    const done = () => {
      const cut = data.indexOf("\r\n\r\n");
      // Reset while the body was still going out: the server answered and closed with body bytes
      // unread, which resets the connection (Node has no lingering close), and the reset can drop
      // the answer before it is read. Status 0 (the slow-body case allows it).
      if (cut === -1 && sending) {
        resolve({ status: 0, headers: new Headers(), body: null, type: "" });
        return;
      }
      if (!data.startsWith("HTTP/1.1 ") || cut === -1) {
        reject(
          new TypeError("fetch failed", {
            cause: new Error(`no HTTP answer to ${method}: ${JSON.stringify(data.slice(0, 200))}`),
          }),
        );
        return;
      }
      const [statusLine = "", ...lines] = data.slice(0, cut).split("\r\n");
      const answerHeaders = new Headers();
      for (const line of lines) {
        const i = line.indexOf(":");
        answerHeaders.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
      }
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers: answerHeaders,
        body: parseBody(data.slice(cut + 4)),
        type: answerHeaders.get("content-type") ?? "",
      });
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      data += chunk;
      // A complete answer with a length: read (the connection may be kept alive).
      const cut = data.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(data.slice(0, cut))?.[1];
      if (cut !== -1 && length !== undefined && data.length >= cut + 4 + Number(length)) socket.destroy();
    });
    socket.on("error", () => {});
    let timer: NodeJS.Timeout | undefined;
    socket.on("close", () => {
      clearInterval(timer);
      done();
    });
    socket.on("connect", () => {
      socket.write(`${head}\r\n`);
      let left = trickle?.bytes ?? 0;
      sending = left > 0;
      const send = () => {
        // Nothing more once an answer came.
        if (left-- > 0 && data === "") socket.write(trickle?.chunked ? "1\r\nx\r\n" : "x");
        else {
          sending = false;
          clearInterval(timer);
        }
      };
      if (trickle) timer = setInterval(send, Math.max(1, trickle.paceMs));
    });
    socket.setTimeout(15_000, () => socket.destroy());
  });
}

/** Reads an answer: JSON when it is JSON; an SSE or binary answer is not read past its headers. */
async function send(url: string, init: RequestInit): Promise<Answer> {
  if (init.method === "CONNECT") return sendRaw(url, "CONNECT", init.headers as Record<string, string>);
  if ((init.headers as Record<string, string>).expect !== undefined) return sendByNode(url, init);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 15_000);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal, redirect: "manual" });
    const type = response.headers.get("content-type") ?? "";
    let body: unknown = null;
    if (type.startsWith("text/event-stream") || type.startsWith("image/")) controller.abort();
    else {
      const text = await response.text();
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
    }
    return { status: response.status, headers: response.headers, body, type };
  } finally {
    clearTimeout(timer);
  }
}

describe("fuzz: every route through the gateway", () => {
  beforeAll(async () => {
    system = await startSystem({
      echo: process.env.E2E_ECHO === "1",
      // Stalled bodies (the slow-body case) end after 2 s instead of 10.
      env: { gateway: { GATEWAY_BODY_TIMEOUT_MS: String(SLOW_BODY_TIMEOUT_MS) } },
    });
    market = await seedMarket(system);
  }, 300_000);

  afterAll(async () => {
    await system?.stop();
  }, 60_000);

  it("behavior: random and hostile requests answer documented statuses, the envelope, X-Request-ID and valid bodies", async () => {
    const openapi = await system.request("/api/v1/openapi.json");
    expect(openapi.status).toBe(200);
    const routes: FuzzRoute[] = [];
    for (const [template, operations] of Object.entries(
      openapi.body.paths as Record<string, Record<string, unknown>>,
    )) {
      for (const [method, op] of Object.entries(
        operations as Record<
          string,
          { parameters?: { in: string; name: string; schema?: object }[]; responses?: object }
        >,
      )) {
        if (method !== "get") continue;
        routes.push({
          method: "GET",
          template,
          statuses: new Set(
            Object.keys(op.responses ?? {})
              .map(Number)
              .filter(Number.isFinite),
          ),
          query: (op.parameters ?? [])
            .filter((p) => p.in === "query")
            .map((p) => ({ name: p.name, schema: (p.schema ?? {}) as { type?: string } })),
          success: SUCCESS[template] ?? null,
        });
      }
    }
    const checker = openApiChecker(openapi.body);
    const openapiTemplates = new Set(routes.map((r) => r.template));
    const unknown = [...openapiTemplates].filter((t) => !(t in SUCCESS));
    // Routes the gateway sends to metadata-api and oracle-price (and its own /health), unless the document has them.
    const extra: FuzzRoute[] = [
      {
        method: "GET",
        template: "/health",
        statuses: new Set([200]),
        query: [],
        success: SUCCESS["/health"]!,
      },
      {
        method: "GET",
        template: "/readyz",
        statuses: new Set([200, 503]),
        query: [],
        success: SUCCESS["/readyz"]!,
      },
      {
        method: "GET",
        template: "/api/v1/prices/eth-usd",
        statuses: new Set([200, 503]),
        query: [],
        success: ethUsdSchema,
      },
      { method: "GET", template: "/objects/*", statuses: new Set([200, 404]), query: [], success: null },
      {
        method: "POST",
        template: "/api/v1/token-metadata",
        statuses: new Set([201, 400, 413, 415, 422, 503]),
        query: [],
        success: metadataDraftSchema,
        body: metadataBodyArb(),
      },
      {
        method: "POST",
        template: "/api/v1/token-metadata/{draft}/finalize",
        statuses: new Set([200, 400, 404, 409, 422, 503]),
        query: [],
        success: finalizeResponseSchema,
        body: finalizeBodyArb(),
      },
      // Reward tree uploads (metadata-api): no distribution is published in the fuzz market, so a
      // well-formed upload is 404 (no 201/200 success to check).
      {
        method: "POST",
        template: "/api/v1/rewards/distributions/{id}/tree",
        statuses: new Set([400, 404, 413, 415, 422, 503]),
        query: [],
        success: rewardTreeSchema,
        body: rewardTreeBodyArb(),
      },
      // Webhooks (metadata-api): every route needs an API key, which the fuzz never holds.
      { method: "GET", template: "/api/v1/webhooks", statuses: new Set([401]), query: [], success: null },
      {
        method: "GET",
        template: "/api/v1/webhooks/{id}/deliveries",
        statuses: new Set([401]),
        query: [],
        success: null,
      },
    ];
    for (const route of extra) if (!openapiTemplates.has(route.template)) routes.push(route);
    if (ONLY)
      routes.splice(0, routes.length, ...routes.filter((r) => ONLY.test(`${r.method} ${r.template}`)));

    const started = Date.now();
    const perRouteMs = Math.floor(BUDGET_MS / routes.length);
    const report: { route: string; cases: number; statuses: Record<number, number> }[] = [];
    let requests = 0;
    /** Network failures that did not repeat on a retry (printed, not failed: they are races). */
    const transient: string[] = [];
    const failures: string[] = [];
    for (const route of routes) {
      const statuses: Record<number, number> = {};
      let cases = 0;
      const caught: string[] = [];
      const property = fc.asyncProperty(caseArb(route), async (c) => {
        cases++;
        const method = c.method;
        let path = route.template;
        for (const p of c.path) {
          // An empty segment makes another route (e.g. /api/v1/tokens/ is the list): a non-empty one instead.
          const value = segment(p.value, p.raw) || "_";
          path = path.includes("{") ? path.replace(/\{\w+\}/, value) : path.replace(/\*$/, value);
        }
        if (c.trailingSlash) path += "/";
        const search = [...c.query[0], ...c.query[1]]
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
          .join("&");
        const url = `${system.baseUrl}${path}${search ? `?${search}` : ""}`;
        const withBody =
          method !== "GET" && method !== "HEAD" && method !== "CONNECT" && c.body !== undefined;
        const headers: Record<string, string> = { ...c.headers, ...(withBody ? c.body!.headers : {}) };
        let answer: Answer | undefined;
        for (let attempt = 1; answer === undefined; attempt++) {
          try {
            answer = await send(url, { method, headers, body: withBody ? c.body!.body : undefined });
          } catch (error) {
            // fetch refuses some URLs and header values before sending (nothing reached the server):
            // not a case. "fetch failed" is a network failure (a connection closed without an
            // answer): retried once and counted; a second one fails the case.
            if (error instanceof TypeError && error.message !== "fetch failed") return;
            const message = `${method} ${url.slice(0, 200)}: ${(error as Error).message} ${String((error as Error).cause ?? "")}`;
            if (attempt === 1) {
              transient.push(message);
              continue;
            }
            caught.push(message);
            throw new Error(message);
          }
        }
        requests++;
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        // A failure is also kept here: fast-check drops the verdict of a run cut by the time limit.
        try {
          const label = `${method} ${url.slice(system.baseUrl.length, system.baseUrl.length + 200)} → ${answer.status}`;
          const id = answer.headers.get("x-request-id");
          expect(id, `X-Request-ID of ${label}`).toMatch(REQUEST_ID);
          const sentId = c.headers["x-request-id"];
          // 414 and 431 come from an HTTP parser that refused the request line or headers before any
          // header was read (the gateway's, or a service's behind it): no sent id to echo, a new one.
          if (
            sentId !== undefined &&
            REQUEST_ID.test(sentId) &&
            answer.status !== 414 &&
            answer.status !== 431
          )
            expect(id, label).toBe(sentId);

          // Besides the route's own: 404 when a generated segment leaves the route (e.g. "a/b"); 400,
          // 414 and 431 for what the HTTP server refuses itself (bad encoding, over-long URL or parameter).
          const allowed = new Set([...route.statuses, 400, 404, 414, 431]);
          if (method !== route.method && !(method === "HEAD" && route.method === "GET")) allowed.add(405);
          // A generated segment can leave the route for a path under a prefix that takes no body
          // (`/api/v1/token-metadata/../finalize` is `/api/v1/finalize`): the gateway answers any
          // method but GET, HEAD and OPTIONS there with 405 before a service routes it (docs/api.md).
          const landed = new URL(url).pathname;
          if (
            !["GET", "HEAD", "OPTIONS"].includes(method) &&
            !landed.startsWith("/api/v1/token-metadata") &&
            !landed.startsWith("/api/v1/rewards")
          )
            allowed.add(405);
          // CONNECT is never served: 405 in the envelope on every path (not a closed connection).
          if (method === "CONNECT") {
            allowed.clear();
            allowed.add(405);
          }
          // Objects are served under their exact key only.
          if (route.template === "/objects/*" && c.trailingSlash) allowed.delete(200);
          if (method === "OPTIONS") allowed.add(204);
          if (c.headers["if-none-match"] !== undefined && (method === "GET" || method === "HEAD"))
            allowed.add(304);
          expect(
            answer.status >= 500 && !(answer.status === 503 && route.statuses.has(503)),
            `no 5xx: ${label} ${JSON.stringify(answer.body)?.slice(0, 300)}`,
          ).toBe(false);
          expect(
            allowed.has(answer.status),
            `documented status: ${label} ${JSON.stringify(answer.body)?.slice(0, 300)}`,
          ).toBe(true);
          // A stream filter given without an address, or in array form, never opens an unfiltered stream.
          if (route.template === "/api/v1/stream" && method === "GET") {
            const query = [...c.query[0], ...c.query[1]];
            const emptyFilter = query.some(
              ([k, v]) => (k === "tokens" || k === "wallets") && namesNoAddress(v),
            );
            const arrayForm = query.some(([k]) => /^(tokens|wallets)\[/.test(k));
            if (emptyFilter || arrayForm)
              expect(answer.status, `empty or array-form filter: ${label}`).not.toBe(200);
          }
          if (method === "HEAD" || answer.status === 304 || answer.status === 204) return;
          // The published document must agree with the answer too (documented status and schema).
          // (An event stream is not read past its headers: its status is checked, not its body.)
          const documented = answer.type.startsWith("text/event-stream")
            ? checker.check(method, path, answer.status, "")
            : checker.check(method, path, answer.status, answer.body);
          expect(documented, `OpenAPI: ${label}`).toBeNull();
          if (answer.status >= 400) {
            const parsed = errorEnvelopeSchema.safeParse(answer.body);
            expect(parsed.success, `envelope: ${label} ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBe(
              true,
            );
            if (parsed.success) expect(parsed.data.error.request_id, label).toBe(id);
          } else if ((answer.status === 200 || answer.status === 201) && route.success) {
            const parsed = route.success.safeParse(answer.body);
            expect(
              parsed.success,
              `schema: ${label} ${
                parsed.success
                  ? ""
                  : z
                      .prettifyError(parsed.error)
                      .replace(/\s*\n\s*/g, " ")
                      .slice(0, 500)
              }`,
            ).toBe(true);
          }
        } catch (error) {
          caught.push((error as Error).message.split("\n")[0]!);
          throw error;
        }
      });
      try {
        await fc.assert(property, {
          seed: SEED,
          numRuns: 10_000,
          interruptAfterTimeLimit: perRouteMs,
          markInterruptAsFailure: false,
          endOnFailure: true,
        });
      } catch (error) {
        const message = (error as Error).message;
        const counterexample = message.split("\n").find((line) => line.startsWith("Counterexample")) ?? "";
        const cause =
          (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : message;
        failures.push(
          `${route.method} ${route.template}: ${cause.split("\n")[0]}\n    ${counterexample.slice(0, 600)}`,
        );
      }
      if (caught.length > 0 && !failures.some((f) => f.startsWith(`${route.method} ${route.template}:`)))
        failures.push(`${route.method} ${route.template}: ${caught[0]} (in a run cut by the time limit)`);
      report.push({ route: `${route.method} ${route.template}`, cases, statuses });
    }
    const seconds = (Date.now() - started) / 1000;
    const cases = report.reduce((n, r) => n + r.cases, 0);
    console.log(
      [
        `fuzz: ${routes.length} routes, ${cases} cases, ${requests} requests in ${seconds.toFixed(1)} s (seed ${SEED}, budget ${BUDGET_MS} ms)`,
        ...report.map((r) => `  ${r.route}: ${r.cases} cases, statuses ${JSON.stringify(r.statuses)}`),
        ...(unknown.length
          ? [`  routes of the OpenAPI document without a contract schema: ${unknown.join(", ")}`]
          : []),
        ...(transient.length
          ? [`  ${transient.length} network failures that did not repeat on a retry, e.g. ${transient[0]}`]
          : []),
      ].join("\n"),
    );
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(unknown, "every OpenAPI route has a contract schema").toEqual([]);
  }, 300_000);

  it("behavior: slow, stalled, chunked and oversized request bodies on every gateway route answer in the envelope; reads stay answered", async () => {
    const token = market.alpha.token;
    const slowCase = fc.record({
      path: fc.constantFrom(
        "/api/v1/tokens",
        `/api/v1/tokens/${token}/trades`,
        "/api/v1/prices/eth-usd",
        "/objects/images/x.png",
        "/api/v1/stream",
        "/readyz",
        "/docs",
        "/api/v1/token-metadata",
        "/api/v1/token-metadata/draft/finalize",
      ),
      method: fc.constantFrom("POST", "PUT", "PATCH", "DELETE"),
      type: fc.constantFrom(
        "multipart/form-data; boundary=x",
        "application/json",
        "application/octet-stream",
      ),
      // null: chunked (no Content-Length); else a declared length, at times over the 6 MiB limit.
      declared: fc.option(
        fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 7 * 2 ** 20 })),
      ),
      bytes: fc.integer({ min: 0, max: 400 }),
      paceMs: fc.integer({ min: 0, max: 300 }),
      id: fc.uuid(),
    });
    const cases = fc.sample(slowCase, { numRuns: 60, seed: SEED });
    const pending = cases.map((c) =>
      sendRaw(
        `${system.baseUrl}${c.path}`,
        c.method,
        {
          "content-type": c.type,
          "x-request-id": c.id,
          connection: "close",
          ...(c.declared === null
            ? { "transfer-encoding": "chunked" }
            : { "content-length": String(c.declared) }),
        },
        {
          bytes: c.declared === null ? c.bytes : Math.min(c.bytes, c.declared),
          paceMs: c.paceMs,
          chunked: c.declared === null,
        },
      ).then((answer) => ({ c, answer })),
    );
    // While they trickle, a read is answered (bounded so that a starved read fails, not hangs).
    const read = await system.request("/api/v1/tokens?limit=5");
    expect(read.status).toBe(200);
    const statuses: Record<number, number> = {};
    const allowed = new Set([201, 400, 404, 405, 408, 409, 413, 415, 422, 429]);
    let resets = 0;
    for (const { c, answer } of await Promise.all(pending)) {
      if (answer.status === 0) {
        resets++;
        continue;
      }
      const label = `${c.method} ${c.path} declared ${c.declared} bytes ${c.bytes} pace ${c.paceMs} → ${answer.status}`;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      // A complete body forwarded to metadata-api may meet a pooled connection the service closed at
      // that moment (keep-alive race); a POST is not resent, so the answer is the documented 503
      // `service_unavailable` with `Retry-After` (seen once in a fresh-clone run on a busy machine).
      const raced =
        answer.status === 503 &&
        c.path.startsWith("/api/v1/token-metadata") &&
        (answer.body as { error?: { code?: string } } | undefined)?.error?.code === "service_unavailable" &&
        answer.headers.get("retry-after") !== null;
      expect(
        allowed.has(answer.status) || raced,
        `${label} ${JSON.stringify(answer.body)?.slice(0, 300)}`,
      ).toBe(true);
      expect(answer.headers.get("x-request-id"), label).toBe(c.id);
      const metadata = c.path.startsWith("/api/v1/token-metadata");
      if (!metadata)
        expect(answer.status, label).toBe(c.declared !== null && c.declared > 6 * 2 ** 20 ? 413 : 405);
      if (answer.status >= 400) {
        const parsed = errorEnvelopeSchema.safeParse(answer.body);
        expect(parsed.success, `envelope: ${label} ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBe(true);
      }
    }
    console.log(
      `fuzz: ${cases.length} slow bodies at once (seed ${SEED}), statuses ${JSON.stringify(statuses)}, ${resets} reset while sending`,
    );
  }, 120_000);
});
