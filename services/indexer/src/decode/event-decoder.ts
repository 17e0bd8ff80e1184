import {
  aggregatorProxyAbi,
  aggregatorV3Abi,
  erc20Abi,
  feeManagerV3Abi,
  graduationCustodyV3Abi,
  graduationManagerV3Abi,
  permanentLPFeeVaultV3Abi,
  tokenCommunityVaultV3Abi,
  traderRewardsDistributorV3Abi,
  traderRewardsVaultV3Abi,
  uniswapV3PoolAbi,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { sanitizeChainString } from "@tmi/shared/codec";
import {
  type AbiEvent,
  type AbiParameter,
  type ContractEventName,
  decodeAbiParameters,
  type GetEventArgs,
  type Hex,
  toEventSelector,
} from "viem";

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
  ...permanentLPFeeVaultV3Abi,
  ...tokenCommunityVaultV3Abi,
  ...traderRewardsVaultV3Abi,
  ...traderRewardsDistributorV3Abi,
  ...erc20Abi,
  ...uniswapV3PoolAbi,
  ...aggregatorV3Abi,
  ...aggregatorProxyAbi,
] as const;

/** Every event the platform's ABIs declare (those the indexer decodes are listed in `events/`). */
export type AbiEventName = ContractEventName<typeof DECODED_ABI>;

/**
 * The arguments of event `N` by name, typed by viem from the const ABIs (every argument present;
 * addresses are lowercase at run time).
 */
export type EventArgs<N extends AbiEventName> = GetEventArgs<
  typeof DECODED_ABI,
  N,
  { EnableUnion: false; IndexedOnly: false; Required: true }
>;

/** A decoded log of event `N`: the position fields, the on-chain name and the typed arguments. */
export type DecodedEventOf<N extends AbiEventName> = DecodedLogFields & { name: N; args: EventArgs<N> };

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

/** Decodes one 32-byte word (64 hex chars, no 0x) of a static ABI type. */
type WordDecoder = (word: string) => string | bigint | number | boolean;

/** A parameter with its name and, for a static one-word type, its word decoder. */
interface PreparedParam {
  name: string;
  param: AbiParameter;
  word: WordDecoder | null;
}

interface PreparedEvent {
  name: string;
  topic0: string;
  indexed: PreparedParam[];
  data: PreparedParam[];
  /** The data parameters as viem takes them (dynamic data). */
  dataParams: AbiParameter[];
  /** Every data parameter is a static one-word type: decode by slicing words. */
  staticData: boolean;
}

const ONE_WORD = /^(u?int\d*|address|bool|bytes32)$/;
/** Integer types viem decodes to `number` (48 bits or fewer). */
const SMALL_INT = /^u?int(8|16|24|32|40|48)$/;

const TWO_256 = 1n << 256n;
const HALF_256 = TWO_256 / 2n;

/**
 * The word decoder of a static one-word ABI type (null for any other type): addresses and bytes32
 * lowercase hex, bool from the last digit, integers as `bigint` (signed ones sign-extended to a full
 * word: two's complement over 256 bits), `number` for 48 bits or fewer.
 */
function wordDecoder(type: string): WordDecoder | null {
  if (!ONE_WORD.test(type)) return null;
  if (type === "address") return (word) => `0x${word.slice(24)}`.toLowerCase();
  if (type === "bool") return (word) => word.charCodeAt(63) !== 48; // last hex digit != '0'
  if (type === "bytes32") return (word) => `0x${word}`.toLowerCase();
  const small = SMALL_INT.test(type);
  if (type.startsWith("int")) {
    return (word) => {
      const value = BigInt(`0x${word}`);
      const signed = value >= HALF_256 ? value - TWO_256 : value;
      return small ? Number(signed) : signed;
    };
  }
  return small ? (word) => Number(BigInt(`0x${word}`)) : (word) => BigInt(`0x${word}`);
}

/** An indexed argument of a dynamic type (its topic is a hash): the word as an unsigned integer. */
const topicWord: WordDecoder = (word) => BigInt(`0x${word}`);

function prepareParam(param: AbiParameter, indexed: boolean): PreparedParam {
  const word = wordDecoder(param.type);
  return { name: param.name!, param, word: word ?? (indexed ? topicWord : null) };
}

function prepare(event: AbiEvent): PreparedEvent {
  const indexed = event.inputs.filter((p) => (p as { indexed?: boolean }).indexed);
  const data = event.inputs.filter((p) => !(p as { indexed?: boolean }).indexed);
  return {
    name: event.name,
    topic0: toEventSelector(event),
    indexed: indexed.map((p) => prepareParam(p, true)),
    data: data.map((p) => prepareParam(p, false)),
    dataParams: data,
    staticData: data.every((p) => ONE_WORD.test(p.type)),
  };
}

function findEvent(abi: readonly unknown[], name: string): AbiEvent {
  const item = abi.find((i) => (i as AbiEvent).type === "event" && (i as AbiEvent).name === name);
  if (!item) throw new Error(`event ${name} missing from ABI`);
  return item as AbiEvent;
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

/** A log decoder over a set of events (see {@link createLogDecoder}). */
export interface LogDecoder {
  /** topic0 of every event decoded, by name. */
  readonly topic0: Readonly<Record<string, string>>;
  /** Decodes one log; null when it is none of the events (see {@link createLogDecoder}). */
  decode(log: RpcLog): (DecodedLogFields & { name: string; args: DecodedArgs }) | null;
}

/**
 * A decoder of the `events` (on-chain name and the ABI of the contract that declares it), with a
 * prepared topic0 → ABI item table: indexed arguments from the topics,
 * static data by slicing 32-byte words, dynamic data (the `string` of `TokenLaunchedV3`) through
 * viem's `decodeAbiParameters` (invalid UTF-8 → U+FFFD), strings made storable with
 * `sanitizeChainString`. `decode` returns null for a log whose topic0 is not one of the events'
 * or whose topics/data do not fit the event (a different event with the same signature).
 * @throws Error when an event is missing from the ABI given for it.
 */
export function createLogDecoder(events: readonly { name: string; abi: readonly unknown[] }[]): LogDecoder {
  const prepared = events.map((e) => prepare(findEvent(e.abi, e.name)));
  const byTopic0 = new Map<string, PreparedEvent>(prepared.map((p) => [p.topic0, p]));
  return {
    topic0: Object.freeze(Object.fromEntries(prepared.map((p) => [p.name, p.topic0]))),
    decode: (log) => decodeWith(byTopic0, log),
  };
}

function decodeWith(
  byTopic0: ReadonlyMap<string, PreparedEvent>,
  log: RpcLog,
): (DecodedLogFields & { name: string; args: DecodedArgs }) | null {
  const topic0 = log.topics[0];
  if (topic0 === undefined) return null;
  const prepared = byTopic0.get(topic0.toLowerCase());
  if (!prepared) return null;
  if (log.topics.length !== prepared.indexed.length + 1) return null;
  const args: DecodedArgs = {};
  for (let i = 0; i < prepared.indexed.length; i++) {
    const param = prepared.indexed[i]!;
    args[param.name] = param.word!(log.topics[i + 1]!.slice(2));
  }
  const data = log.data;
  if (prepared.staticData) {
    if (data.length < 2 + 64 * prepared.data.length) return null;
    for (let i = 0; i < prepared.data.length; i++) {
      const param = prepared.data[i]!;
      args[param.name] = param.word!(data.slice(2 + i * 64, 2 + (i + 1) * 64));
    }
  } else {
    let values: readonly unknown[];
    try {
      values = decodeAbiParameters(prepared.dataParams, data as Hex);
    } catch {
      return null;
    }
    prepared.data.forEach((param, i) => {
      args[param.name] = normalise(param.param.type, values[i]);
    });
  }
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
  };
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

/** Escapes the backslashes of JSON text for PostgreSQL COPY text (JSON text has no raw tab, newline or CR). */
const copyBackslashes = (json: string): string => (json.includes("\\") ? json.replace(/\\/g, "\\\\") : json);
const jsonCopy = (value: string): string => copyBackslashes(JSON.stringify(value));

/**
 * The same JSON text as `JSON.stringify(decodedJson(args, extra))` (`token` given as a string:
 * `extra` = `{token}`), built directly (no intermediate object): the hot path writes one per event.
 * With `copy`, the text as a COPY text field (what `copyValue` makes of it: backslashes doubled),
 * escaped piece by piece instead of scanning the whole text again.
 */
export function decodedJsonText(
  args: DecodedArgs,
  token?: string | Record<string, string>,
  copy = false,
): string {
  const json = copy ? jsonCopy : JSON.stringify;
  let out = "{";
  if (typeof token === "string") out += `"token":"${copy ? copyBackslashes(token) : token}"`;
  else if (token) for (const key in token) out += `${out.length > 1 ? "," : ""}"${key}":${json(token[key]!)}`;
  for (const key in args) {
    const value = args[key]!;
    out += out.length > 1 ? `,"${key}":` : `"${key}":`;
    if (typeof value === "bigint" || typeof value === "number") out += `"${value.toString(10)}"`;
    else if (typeof value === "boolean") out += value ? "true" : "false";
    else out += SAFE_STRING.test(value) ? `"${value}"` : json(value);
  }
  return `${out}}`;
}
