import {
  aggregatorProxyAbi,
  aggregatorV3Abi,
  erc20Abi,
  feeManagerV3Abi,
  graduationCustodyV3Abi,
  graduationManagerV3Abi,
  uniswapV3PoolAbi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { sanitizeChainString } from "@tmi/shared/codec";
import {
  type AbiEvent,
  type AbiParameter,
  decodeAbiParameters,
  type GetEventArgs,
  type Hex,
  toEventSelector,
} from "viem";

/**
 * Event names the indexer decodes, stored as is in `chain_events.event_name` (the on-chain
 * names): the V3 factory's launch, the graduation manager's and fee manager's launch
 * registrations, fee deposits, the curve's trades and graduation, the manager's settlement, the
 * residual escrow's deposit, the LP custodian's fee collection, the LP fee vault's accrual and its
 * forwards to the community and trader-rewards vaults, the
 * token's `Transfer`, the canonical pool's `Swap`, the ETH/USD feed's `AnswerUpdated` (from its
 * aggregators) and its proxy's `AggregatorConfirmed` (a new aggregator).
 */
export type EventName =
  | "TokenLaunchedV3"
  | "LaunchRegistered"
  | "TokenRegistered"
  | "FeesDeposited"
  | "TokensBought"
  | "TokensSold"
  | "Graduated"
  | "GraduationReserveForwarded"
  | "GraduatedV3"
  | "ResidualDeposited"
  | "PermanentFeesCollected"
  | "PermanentLPFeesAccrued"
  | "CommunityLPFeesForwarded"
  | "TraderRewardsLPFeesForwarded"
  | "Transfer"
  | "Swap"
  | "AnswerUpdated"
  | "AggregatorConfirmed";

/** A log as returned by `eth_getLogs` (JSON-RPC hex quantities, not formatted by viem). */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp?: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
}

/**
 * Decoded argument values: addresses and bytes32 lowercase hex, integers of up to 48 bits
 * `number` and wider ones `bigint` (as viem types them), strings sanitized.
 */
export type DecodedArgs = Record<string, string | bigint | number | boolean>;

/** The const ABIs the decoded events come from (argument types are inferred from them). */
const DECODED_ABI = [
  ...zonkFactoryV3Abi,
  ...graduationManagerV3Abi,
  ...feeManagerV3Abi,
  ...zonkCurveV3Abi,
  ...graduationCustodyV3Abi,
  ...erc20Abi,
  ...uniswapV3PoolAbi,
  ...aggregatorV3Abi,
  ...aggregatorProxyAbi,
] as const;

/**
 * The arguments of event `N` by name, typed by viem from the const ABIs (every argument present;
 * addresses are lowercase at run time).
 */
export type EventArgs<N extends EventName> = GetEventArgs<
  typeof DECODED_ABI,
  N,
  { EnableUnion: false; IndexedOnly: false; Required: true }
>;

/** A decoded log of event `N` (see {@link DecodedEvent}). */
export type DecodedEventOf<N extends EventName> = DecodedLogFields & { name: N; args: EventArgs<N> };

/**
 * A decoded log with its position fields: a union over the event names, so that narrowing on
 * `name` types `args`.
 */
export type DecodedEvent = { [N in EventName]: DecodedEventOf<N> }[EventName];

/** The fields of every decoded log (numbers fit in JS numbers: block numbers < 2^53). */
export interface DecodedLogFields {
  /** Emitting contract, lowercase. */
  address: string;
  blockNumber: number;
  blockHash: string;
  /** Block timestamp (Unix seconds) when the node returned it with the log, else null. */
  blockTimestamp: number | null;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
}

interface PreparedEvent {
  name: EventName;
  topic0: string;
  indexed: AbiParameter[];
  data: AbiParameter[];
  /** Every data parameter is a static one-word type: decode by slicing words. */
  staticData: boolean;
}

const ONE_WORD = /^(u?int\d*|address|bool|bytes32)$/;
/** Integer types viem decodes to `number` (48 bits or fewer). */
const SMALL_INT = /^u?int(8|16|24|32|40|48)$/;

function prepare(event: AbiEvent): PreparedEvent {
  const indexed = event.inputs.filter((p) => (p as { indexed?: boolean }).indexed);
  const data = event.inputs.filter((p) => !(p as { indexed?: boolean }).indexed);
  return {
    name: event.name as EventName,
    topic0: toEventSelector(event),
    indexed,
    data,
    staticData: data.every((p) => ONE_WORD.test(p.type)),
  };
}

function findEvent(abi: readonly unknown[], name: string): AbiEvent {
  const item = abi.find((i) => (i as AbiEvent).type === "event" && (i as AbiEvent).name === name);
  if (!item) throw new Error(`event ${name} missing from ABI`);
  return item as AbiEvent;
}

const PREPARED: PreparedEvent[] = [
  prepare(findEvent(zonkFactoryV3Abi, "TokenLaunchedV3")),
  prepare(findEvent(graduationManagerV3Abi, "LaunchRegistered")),
  prepare(findEvent(feeManagerV3Abi, "TokenRegistered")),
  prepare(findEvent(feeManagerV3Abi, "FeesDeposited")),
  prepare(findEvent(zonkCurveV3Abi, "TokensBought")),
  prepare(findEvent(zonkCurveV3Abi, "TokensSold")),
  prepare(findEvent(zonkCurveV3Abi, "Graduated")),
  prepare(findEvent(zonkCurveV3Abi, "GraduationReserveForwarded")),
  prepare(findEvent(graduationManagerV3Abi, "GraduatedV3")),
  prepare(findEvent(graduationCustodyV3Abi, "ResidualDeposited")),
  prepare(findEvent(graduationCustodyV3Abi, "PermanentFeesCollected")),
  prepare(findEvent(graduationCustodyV3Abi, "PermanentLPFeesAccrued")),
  prepare(findEvent(graduationCustodyV3Abi, "CommunityLPFeesForwarded")),
  prepare(findEvent(graduationCustodyV3Abi, "TraderRewardsLPFeesForwarded")),
  prepare(findEvent(erc20Abi, "Transfer")),
  prepare(findEvent(uniswapV3PoolAbi, "Swap")),
  prepare(findEvent(aggregatorV3Abi, "AnswerUpdated")),
  prepare(findEvent(aggregatorProxyAbi, "AggregatorConfirmed")),
];

/** topic0 of every event the indexer decodes, by name. */
export const TOPIC0: Readonly<Record<EventName, string>> = Object.freeze(
  Object.fromEntries(PREPARED.map((p) => [p.name, p.topic0])) as Record<EventName, string>,
);

/** All topic0 values, for an `eth_getLogs` filter `topics: [ALL_TOPIC0]`. */
export const ALL_TOPIC0: readonly string[] = PREPARED.map((p) => p.topic0);

const BY_TOPIC0 = new Map<string, PreparedEvent>(PREPARED.map((p) => [p.topic0, p]));

const TWO_256 = 1n << 256n;

/** Decodes one 32-byte word (64 hex chars, no 0x) of a static ABI type. */
function decodeWord(type: string, word: string): string | bigint | number | boolean {
  if (type === "address") return `0x${word.slice(24)}`.toLowerCase();
  if (type === "bool") return word.charCodeAt(63) !== 48; // last hex digit != '0'
  if (type === "bytes32") return `0x${word}`.toLowerCase();
  const value = BigInt(`0x${word}`);
  // Signed ABI values of any width are sign-extended to a full word: two's complement over 256 bits.
  const signed = type.startsWith("int") && value >= TWO_256 / 2n ? value - TWO_256 : value;
  return SMALL_INT.test(type) ? Number(signed) : signed;
}

function hexToNumber(hex: string): number {
  return Number.parseInt(hex, 16);
}

function normalise(type: string, value: unknown): string | bigint | number | boolean {
  if (type === "string") return sanitizeChainString(String(value));
  if (typeof value === "string") return value.toLowerCase();
  if (typeof value === "bigint" || typeof value === "boolean" || typeof value === "number") return value;
  return String(value);
}

/**
 * Decodes a raw log with a prepared topic0 → ABI item table: indexed arguments from the topics,
 * static data by slicing 32-byte words, dynamic data (the `string` of `TokenLaunchedV3`) through
 * viem's `decodeAbiParameters` (invalid UTF-8 → U+FFFD), strings made storable with
 * `sanitizeChainString`. Returns null for a log whose topic0 is not one of {@link TOPIC0}
 * or whose topics/data do not fit the event (a different event with the same signature).
 */
export function decodeLog(log: RpcLog): DecodedEvent | null {
  const topic0 = log.topics[0];
  if (topic0 === undefined) return null;
  const prepared = BY_TOPIC0.get(topic0.toLowerCase());
  if (!prepared) return null;
  if (log.topics.length !== prepared.indexed.length + 1) return null;
  const args: DecodedArgs = {};
  for (let i = 0; i < prepared.indexed.length; i++) {
    const param = prepared.indexed[i]!;
    args[param.name!] = decodeWord(param.type, log.topics[i + 1]!.slice(2));
  }
  const data = log.data;
  if (prepared.staticData) {
    if (data.length < 2 + 64 * prepared.data.length) return null;
    for (let i = 0; i < prepared.data.length; i++) {
      const param = prepared.data[i]!;
      args[param.name!] = decodeWord(param.type, data.slice(2 + i * 64, 2 + (i + 1) * 64));
    }
  } else {
    let values: readonly unknown[];
    try {
      values = decodeAbiParameters(prepared.data, data as Hex);
    } catch {
      return null;
    }
    prepared.data.forEach((param, i) => {
      args[param.name!] = normalise(param.type, values[i]);
    });
  }
  // The one place args get their type: decoded above from the ABI entry of this very name.
  return {
    name: prepared.name,
    address: log.address.toLowerCase(),
    blockNumber: hexToNumber(log.blockNumber),
    blockHash: log.blockHash.toLowerCase(),
    blockTimestamp: log.blockTimestamp ? hexToNumber(log.blockTimestamp) : null,
    transactionHash: log.transactionHash.toLowerCase(),
    transactionIndex: hexToNumber(log.transactionIndex),
    logIndex: hexToNumber(log.logIndex),
    args,
  } as DecodedEvent;
}

/**
 * The JSON stored in `chain_events.decoded`: every argument by its ABI name, addresses
 * lowercase, integers as decimal strings. `extra` (e.g. `{token}` for Transfer and Swap)
 * comes first.
 */
export function decodedJson(
  args: DecodedArgs,
  extra?: Record<string, string>,
): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = { ...extra };
  for (const [key, value] of Object.entries(args)) {
    out[key] = typeof value === "bigint" || typeof value === "number" ? value.toString(10) : value;
  }
  return out;
}

const SAFE_STRING = /^[0-9a-zA-Z_.x-]*$/;

/**
 * The same JSON text as `JSON.stringify(decodedJson(args, extra))` (`token` given as a string:
 * `extra` = `{token}`), built directly (no intermediate object): the hot path writes one per event.
 */
export function decodedJsonText(args: DecodedArgs, token?: string | Record<string, string>): string {
  let out = "{";
  if (typeof token === "string") out += `"token":"${token}"`;
  else if (token)
    for (const key in token) out += `${out.length > 1 ? "," : ""}"${key}":${JSON.stringify(token[key])}`;
  for (const key in args) {
    const value = args[key]!;
    out += out.length > 1 ? `,"${key}":` : `"${key}":`;
    if (typeof value === "bigint" || typeof value === "number") out += `"${value.toString(10)}"`;
    else if (typeof value === "boolean") out += value ? "true" : "false";
    else out += SAFE_STRING.test(value) ? `"${value}"` : JSON.stringify(value);
  }
  return `${out}}`;
}
