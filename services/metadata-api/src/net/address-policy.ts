import ipaddr from "ipaddr.js";

/**
 * Decides whether the image fetcher may connect to `address` (an IP literal, no brackets)
 * reached through `hostname`. Production uses {@link isPublicAddress}; tests inject a policy
 * that also accepts their local HTTPS server for chosen test host names.
 */
export type AddressPolicy = (address: string, hostname: string) => boolean;

/**
 * True only for public unicast addresses (docs/api.md): IPv4 outside unspecified (0/8),
 * broadcast, multicast, link-local (169.254/16, incl. 169.254.169.254), loopback, CGNAT,
 * private and reserved ranges; IPv6 only inside global unicast 2000::/3 and outside every
 * special range (so `::1`, `::`, IPv4-mapped `::ffff:*`, IPv4-compatible `::a.b.c.d`, NAT64,
 * 6to4, Teredo, unique-local fc00::/7, link-local and multicast are all refused).
 * Malformed input is refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (bare.includes("%")) return false; // zone ids only exist on link-local addresses
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) parsed = ipaddr.IPv4.parse(bare);
  else if (ipaddr.IPv6.isValid(bare) && bare.includes(":")) parsed = ipaddr.IPv6.parse(bare);
  else return false;
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (!v6.match(ipaddr.IPv6.parse("2000::"), 3)) return false;
    return v6.range() === "unicast";
  }
  return parsed.range() === "unicast";
}

/** The default {@link AddressPolicy}: {@link isPublicAddress}, whatever the host name. */
export const publicAddressPolicy: AddressPolicy = (address) => isPublicAddress(address);

/**
 * Classifies the host of a URL for the fetcher. `rawHost` is the host as the client wrote it
 * (before WHATWG normalization); `hostname` is `URL.hostname`. IPv4 literals must be written
 * in canonical dotted-decimal form: WHATWG URL turns `0x7f.1`, `017700000001`, `2130706433`
 * or `127.1` into `127.0.0.1`, and such forms are refused outright.
 * Returns `{ kind: "ip", address }`, `{ kind: "name" }` or `{ kind: "invalid", reason }`.
 */
export function classifyHost(
  rawHost: string,
  hostname: string,
): { kind: "ip"; address: string } | { kind: "name" } | { kind: "invalid"; reason: string } {
  if (hostname.startsWith("[")) return { kind: "ip", address: hostname.slice(1, -1) };
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) {
    if (rawHost.toLowerCase() !== hostname) {
      return { kind: "invalid", reason: "IPv4 address not in dotted-decimal form" };
    }
    return { kind: "ip", address: hostname };
  }
  return { kind: "name" };
}

/**
 * The host of an absolute URL string exactly as written (userinfo and port removed, brackets kept),
 * used to spot non-canonical IPv4 forms that WHATWG URL parsing hides.
 */
export function rawHostOf(url: string): string {
  const afterScheme = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/*/, "");
  const authority = afterScheme.split(/[/?#\\]/, 1)[0] ?? "";
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostPort.startsWith("[")) return hostPort.slice(0, hostPort.indexOf("]") + 1);
  const colon = hostPort.lastIndexOf(":");
  const host = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
  // WHATWG strips a trailing dot only for names, never for IPv4; percent-decoding is left to URL.
  return decodeURIComponentSafe(host);
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
