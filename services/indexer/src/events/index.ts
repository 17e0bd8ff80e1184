// Every contract event the indexer reads, one declaration each (events/declaration.ts). The
// decoder, the log filter (fetch/log-filter.ts), selection (select/select-events.ts), key loading
// (core/indexing-core.ts) and the range builder (build/batch-builder.ts) are loops over this table.
// A new event is a declaration in its contract's file here (a new contract: a new file, spread
// below) and its handler's read models: see docs/indexer.md, "Adding a contract event".
import {
  type AbiEventName,
  createLogDecoder,
  type DecodedEventOf,
  type RpcLog,
} from "../decode/event-decoder.js";
import { CURVE_EVENTS } from "./curve.js";
import type { EventDeclaration } from "./declaration.js";
import { ECOSYSTEM_VAULT_EVENTS } from "./ecosystem-vaults.js";
import { FACTORY_EVENTS } from "./factory.js";
import { FEE_MANAGER_EVENTS } from "./fee-manager.js";
import { FEED_EVENTS } from "./feed.js";
import { GRADUATION_CUSTODY_EVENTS } from "./graduation-custody.js";
import { GRADUATION_MANAGER_EVENTS } from "./graduation-manager.js";
import { POOL_EVENTS } from "./pool.js";
import { REWARDS_DISTRIBUTOR_EVENTS } from "./rewards-distributor.js";
import { TOKEN_EVENTS } from "./token.js";

/** The declaration of every event the indexer decodes, by on-chain name. */
export const EVENTS = Object.freeze({
  ...FACTORY_EVENTS,
  ...GRADUATION_MANAGER_EVENTS,
  ...FEE_MANAGER_EVENTS,
  ...CURVE_EVENTS,
  ...GRADUATION_CUSTODY_EVENTS,
  ...ECOSYSTEM_VAULT_EVENTS,
  ...REWARDS_DISTRIBUTOR_EVENTS,
  ...TOKEN_EVENTS,
  ...POOL_EVENTS,
  ...FEED_EVENTS,
});

/**
 * Event names the indexer decodes, stored as is in `chain_events.event_name` (the on-chain names):
 * the keys of {@link EVENTS}.
 */
export type EventName = keyof typeof EVENTS & AbiEventName;

/**
 * A decoded log with its position fields: a union over the event names, so that narrowing on
 * `name` types `args`.
 */
export type DecodedEvent = { [N in EventName]: DecodedEventOf<N> }[EventName];

/** Every declared event's name, in the table's order. */
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];

/**
 * The declaration of `name`, typed for any decoded event (the table is keyed by name: the
 * declaration of `e.name` takes `e`).
 */
export function declarationOf(name: EventName): EventDeclaration {
  return EVENTS[name] as unknown as EventDeclaration;
}

const decoder = createLogDecoder(EVENT_NAMES.map((name) => ({ name, abi: EVENTS[name].abi })));

/** topic0 of every event the indexer decodes, by name. */
export const TOPIC0 = decoder.topic0 as Readonly<Record<EventName, string>>;

/** All topic0 values, for an `eth_getLogs` filter `topics: [ALL_TOPIC0]`. */
export const ALL_TOPIC0: readonly string[] = EVENT_NAMES.map((name) => TOPIC0[name]);

/**
 * Decodes a raw log of one of the declared events (see `createLogDecoder`): null when its topic0
 * is none of {@link TOPIC0} or its topics/data do not fit the event.
 */
export function decodeLog(log: RpcLog): DecodedEvent | null {
  // The one place args get their type: decoded from the ABI entry of this very name.
  return decoder.decode(log) as DecodedEvent | null;
}
