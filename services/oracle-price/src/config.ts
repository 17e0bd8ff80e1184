import {
  addressSetting,
  baseEnvSchema,
  NETWORK_NAMES,
  NETWORKS,
  portSetting,
  SERVICE_PORTS,
} from "@tmi/shared/env";
import { z } from "zod";

/** Multicall3's address, the same on every chain where it is deployed (https://www.multicall3.com). */
export const MULTICALL3_ADDRESS = "0xca11bde05977b3631167028862be2a173976ca11" as const;

/**
 * Default `ORACLE_ETH_USD_MAX_AGE` in seconds. Chainlink's ETH/USD feed on Base mainnet updates
 * on a 0.15% deviation or, at the latest, every 1,200 s (its heartbeat); Chainlink documents up to
 * ~40 s more before a heartbeat round lands on chain. 1,800 s = heartbeat + 50%: a late heartbeat
 * round does not flap the endpoint, a missed one is reported within 10 minutes. See the README.
 */
export const DEFAULT_MAX_AGE_SECONDS = 1800;

/** Default `ORACLE_SEQUENCER_GRACE_PERIOD`: 3,600 s, Chainlink's L2 sequencer uptime feed guidance. */
export const DEFAULT_SEQUENCER_GRACE_SECONDS = 3600;

const address = addressSetting;

const rpcUrl = z
  .string()
  .regex(/^https?:\/\/\S+$/, "must be an http:// or https:// URL")
  .refine((v) => URL.canParse(v), "must be a valid URL");

/**
 * Settings of oracle-price (docs/api.md). The RPC URL and feed address may be unset: the
 * service then starts and answers `/api/v1/prices/eth-usd` with 503 `oracle_unavailable`
 * (the spec's "configuration is missing" case). Malformed values stop the process at start.
 */
const oracleSettings = baseEnvSchema.extend({
  PORT: portSetting(SERVICE_PORTS["oracle-price"]),
  /** A public deployment (`base`) whose chain id and ETH/USD feed fill `ORACLE_CHAIN_ID`/`ORACLE_ETH_USD_ADDRESS` when unset. */
  NETWORK: z.enum(NETWORK_NAMES).optional(),
  ORACLE_RPC_URL: rpcUrl.optional(),
  ORACLE_CHAIN_ID: z.coerce.number().int().positive().default(8453),
  ORACLE_ETH_USD_ADDRESS: address.optional(),
  ORACLE_ETH_USD_MAX_AGE: z.coerce.number().int().positive().default(DEFAULT_MAX_AGE_SECONDS),
  ORACLE_SEQUENCER_UPTIME_ADDRESS: address.optional(),
  ORACLE_SEQUENCER_GRACE_PERIOD: z.coerce.number().int().min(0).default(DEFAULT_SEQUENCER_GRACE_SECONDS),
  ORACLE_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(3000),
  /** `auto`: use Multicall3 when the chain has code at `ORACLE_MULTICALL3_ADDRESS`; `off`: JSON-RPC batch only. */
  ORACLE_MULTICALL: z.enum(["auto", "off"]).default("auto"),
  ORACLE_MULTICALL3_ADDRESS: address.default(MULTICALL3_ADDRESS),
});

/**
 * Settings of oracle-price: {@link oracleSettings} with `NETWORK`'s values (e.g. `base`: chain
 * 8453, Chainlink ETH/USD `0x7104…Bb70`) filled in where `ORACLE_CHAIN_ID`/`ORACLE_ETH_USD_ADDRESS`
 * are unset. The RPC URL is never implied.
 */
export const oracleEnvSchema = z.preprocess((raw) => {
  if (typeof raw !== "object" || raw === null) return raw;
  const input = raw as Record<string, unknown>;
  const network =
    typeof input.NETWORK === "string" ? NETWORKS[input.NETWORK as keyof typeof NETWORKS] : undefined;
  if (!network) return raw;
  return {
    ...input,
    ORACLE_CHAIN_ID: input.ORACLE_CHAIN_ID ?? String(network.chainId),
    ORACLE_ETH_USD_ADDRESS: input.ORACLE_ETH_USD_ADDRESS ?? network.ethUsdFeed,
  };
}, oracleSettings);

/** Parsed settings of oracle-price. */
export type OracleEnv = z.output<typeof oracleEnvSchema>;

/** Names of the required settings that are not set (empty when the oracle is configured). */
export function missingOracleSettings(
  env: Pick<OracleEnv, "ORACLE_RPC_URL" | "ORACLE_ETH_USD_ADDRESS">,
): string[] {
  const missing: string[] = [];
  if (!env.ORACLE_RPC_URL) missing.push("ORACLE_RPC_URL");
  if (!env.ORACLE_ETH_USD_ADDRESS) missing.push("ORACLE_ETH_USD_ADDRESS");
  return missing;
}
