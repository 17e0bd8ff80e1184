import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";
import type { AddressPolicy } from "./address-policy.js";

/** Resolves a host name to every address it has (DNS by default; tests inject their own). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A connection refused by the address policy (its message is safe to show). */
export class BlockedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BlockedAddressError";
  }
}

/** Options of {@link createGuardedAgent}. */
export interface GuardedAgentOptions {
  /** Which addresses may be connected to. */
  policy: AddressPolicy;
  /** DNS by default. */
  resolver?: Resolver | undefined;
  /** Connect timeout (ms). */
  timeoutMs: number;
  /** Extra trusted CA certificates (tests' self-signed servers). */
  ca?: string | Buffer;
}

/**
 * An undici Agent whose connector checks every address of every connection with `policy`
 * (image fetches and webhook deliveries): a literal IP host is checked as is; a name is resolved
 * at connect time, every address it has must pass, and the socket goes to a checked address (no
 * DNS rebinding between check and connect). A refusal fails the request with
 * {@link BlockedAddressError}.
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const { policy } = options;
  const resolver = options.resolver ?? defaultResolver;
  // Called by net.connect at connect time: resolves, checks every address, and hands back only
  // checked addresses, so the socket cannot go anywhere the policy did not see.
  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolver(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw new BlockedAddressError(`${hostname} has no address`);
        for (const { address } of addresses) {
          if (!policy(address, hostname))
            throw new BlockedAddressError(`${hostname} resolves to a non-public address`);
        }
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) throw new BlockedAddressError(`${hostname} has no usable address`);
        if (lookupOptions.all) (callback as (e: null, a: typeof usable) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: Error) => callback(error as NodeJS.ErrnoException, "", 0));
  };
  const baseConnect = buildConnector({
    timeout: options.timeoutMs,
    maxCachedSessions: 0,
    lookup: checkedLookup,
    ...(options.ca ? { ca: options.ca } : {}),
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && !policy(host, host)) {
      callback(new BlockedAddressError(`${host} is not a public address`), null);
      return;
    }
    baseConnect(connectOptions, callback);
  };
  return new Agent({ connect, pipelining: 1, keepAliveTimeout: 1000, connections: 32 });
}
