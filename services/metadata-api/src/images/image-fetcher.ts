import type { Readable } from "node:stream";
import { request } from "undici";
import { type AddressPolicy, classifyHost, publicAddressPolicy, rawHostOf } from "../net/address-policy.js";
import { BlockedAddressError, createGuardedAgent, type Resolver } from "../net/guarded-agent.js";

export type { Resolver };

/** Why an `image_url` could not be fetched; its message is safe to show the client. */
export class ImageFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ImageFetchError";
  }
}

/** Options of {@link createImageFetcher}. */
export interface ImageFetcherOptions {
  /** Whole fetch budget, redirects and body included (IMAGE_FETCH_TIMEOUT_MS, 10 s). */
  timeoutMs: number;
  /** Largest body accepted; a larger `Content-Length` is refused before reading. */
  maxBytes: number;
  /** At most this many redirects are followed, each re-checked (3). */
  maxRedirects?: number;
  resolver?: Resolver;
  policy?: AddressPolicy;
  /** Extra trusted CA certificates (tests' self-signed server). */
  ca?: string | Buffer;
}

/** A fetched image response: its body stream and declared length, if any. */
export interface FetchedBody {
  body: Readable;
  contentLength: number | null;
  finalUrl: string;
}

/** Fetches `image_url`s under the SSRF rules of docs/api.md. */
export interface ImageFetcher {
  /**
   * Fetches `url` and hands the body to `consume` (which must read or destroy it); resolves with
   * what `consume` returns. HTTPS only, every address of every hop checked by the policy at
   * connect time (the socket goes to the checked address: no DNS rebinding), at most
   * `maxRedirects` redirects, each re-validated, `timeoutMs` overall (the signal passed to
   * `consume` aborts the body too).
   * @throws ImageFetchError on any refusal or failure.
   */
  fetch<T>(url: string, consume: (response: FetchedBody, signal: AbortSignal) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Creates an {@link ImageFetcher} (one undici Agent whose connector checks every address). */
export function createImageFetcher(options: ImageFetcherOptions): ImageFetcher {
  const policy = options.policy ?? publicAddressPolicy;
  const resolver = options.resolver;
  const maxRedirects = options.maxRedirects ?? 3;

  const agent = createGuardedAgent({
    policy,
    resolver,
    timeoutMs: options.timeoutMs,
    ...(options.ca ? { ca: options.ca } : {}),
  });

  function checkUrl(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ImageFetchError("image_url is not a valid URL");
    }
    if (url.protocol !== "https:") throw new ImageFetchError("image_url must use https");
    if (url.username || url.password) throw new ImageFetchError("image_url must not contain credentials");
    const host = classifyHost(rawHostOf(text), url.hostname);
    if (host.kind === "invalid") throw new ImageFetchError(`image_url host refused: ${host.reason}`);
    if (host.kind === "ip" && !policy(host.address, host.address)) {
      throw new ImageFetchError("image_url host is not a public address");
    }
    return url;
  }

  return {
    async fetch(text, consume) {
      const signal = AbortSignal.timeout(options.timeoutMs);
      let url = checkUrl(text);
      for (let hop = 0; ; hop++) {
        let response: Awaited<ReturnType<typeof request>>;
        try {
          response = await request(url, {
            dispatcher: agent,
            method: "GET",
            signal,
            headers: {
              accept: "image/png, image/jpeg, image/webp, image/gif",
              "user-agent": "tmi-metadata-api",
            },
          });
        } catch (error) {
          throw new ImageFetchError(describeFailure(error, signal), { cause: error });
        }
        const { statusCode, headers, body } = response;
        if ([301, 302, 303, 307, 308].includes(statusCode)) {
          discard(body);
          const location = headers.location;
          if (typeof location !== "string")
            throw new ImageFetchError("image_url redirect without a Location");
          if (hop >= maxRedirects)
            throw new ImageFetchError(`image_url redirected more than ${maxRedirects} times`);
          let next: string;
          try {
            next = new URL(location, url).href;
          } catch {
            throw new ImageFetchError("image_url redirect to an invalid URL");
          }
          url = checkUrl(
            next.startsWith("https:") || next.startsWith("http:") ? rebaseRaw(location, next) : next,
          );
          continue;
        }
        if (statusCode !== 200) {
          discard(body);
          throw new ImageFetchError(`image_url answered HTTP ${statusCode}`);
        }
        const declared = headers["content-length"];
        const contentLength =
          typeof declared === "string" && /^\d+$/.test(declared) ? Number(declared) : null;
        if (contentLength !== null && contentLength > options.maxBytes) {
          discard(body);
          throw new ImageFetchError(`image_url is larger than ${options.maxBytes} bytes`);
        }
        try {
          return await consume(
            { body: body as unknown as Readable, contentLength, finalUrl: url.href },
            signal,
          );
        } catch (error) {
          discard(body);
          if (error instanceof ImageFetchError) throw error;
          if (signal.aborted) throw new ImageFetchError("image_url timed out", { cause: error });
          throw error;
        }
      }
    },
    close: () => agent.close(),
  };
}

/** Drops a response body without reading it (errors from the abort are expected and ignored). */
function discard(body: { on(event: "error", listener: () => void): unknown; destroy(): unknown }): void {
  body.on("error", () => {});
  body.destroy();
}

/** For absolute Location headers keep the text as sent, so non-canonical IPv4 forms are seen. */
function rebaseRaw(location: string, resolved: string): string {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(location.trim()) ? location.trim() : resolved;
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "image_url timed out";
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  const blocked = chain.find((e) => e instanceof BlockedAddressError) as BlockedAddressError | undefined;
  if (blocked) return `image_url refused: ${blocked.message}`;
  return "image_url could not be fetched";
}
