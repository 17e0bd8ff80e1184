// The SSRF guard of webhook target URLs (docs/api.md "Webhooks"): the same address rule as image
// fetches, checked when a URL is set and again at every connection (webhook-dispatcher.ts).
import { lookup as dnsLookup } from "node:dns/promises";
import { AppError } from "@tmi/shared/errors";
import { type AddressPolicy, classifyHost, isPublicAddress, rawHostOf } from "../net/address-policy.js";
import type { Resolver } from "../net/guarded-agent.js";

/** Which target addresses are allowed, and how host names are resolved. */
export interface WebhookUrlPolicy {
  policy: AddressPolicy;
  /** DNS by default. */
  resolver?: Resolver;
}

/** The address policy of webhooks: public addresses only, or any address when `allowPrivate` (WEBHOOK_ALLOW_PRIVATE). */
export function webhookAddressPolicy(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? () => true : (address) => isPublicAddress(address);
}

function refuse(message: string): never {
  throw new AppError("invalid_request", `url: ${message}`);
}

/**
 * Validates a webhook target: an absolute `http`/`https` URL without credentials or fragment,
 * whose host (a literal address, or every address its name resolves to) passes the policy.
 * Returns the normalized URL.
 * @throws AppError `invalid_request` naming the reason.
 */
export async function checkWebhookUrl(text: string, options: WebhookUrlPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    refuse("not a valid absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") refuse("must use https or http");
  if (url.username || url.password) refuse("must not contain credentials");
  if (url.hash) refuse("must not contain a fragment");
  const host = classifyHost(rawHostOf(text), url.hostname);
  if (host.kind === "invalid") refuse(`host refused: ${host.reason}`);
  if (host.kind === "ip") {
    if (!options.policy(host.address, host.address)) refuse("the host is not a public address");
    return url.toString();
  }
  const resolver = options.resolver ?? ((name: string) => dnsLookup(name, { all: true, verbatim: true }));
  let addresses: { address: string }[];
  try {
    addresses = await resolver(url.hostname);
  } catch {
    refuse(`${url.hostname} does not resolve`);
  }
  if (addresses.length === 0) refuse(`${url.hostname} has no address`);
  for (const { address } of addresses)
    if (!options.policy(address, url.hostname)) refuse(`${url.hostname} resolves to a non-public address`);
  return url.toString();
}
