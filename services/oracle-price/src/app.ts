import { AppError } from "@tmi/shared/errors";
import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import type { Logger } from "pino";
import { missingOracleSettings, type OracleEnv } from "./config.js";
import { createFeedReader, type FeedReader } from "./feed/feed-reader.js";
import { registerPriceRoutes } from "./routes/price-routes.js";

/** Dependencies of {@link buildApp}. */
export interface OracleAppDeps {
  logger: Logger;
  config: OracleEnv;
  /** The feed reader; by default made from `config` (no I/O until the first request), null when settings are missing. */
  reader?: FeedReader | null;
  /** Wall clock in Unix seconds (default `Date.now() / 1000`). */
  nowSeconds?: () => number;
}

/** Creates the feed reader described by `config`, or null when `ORACLE_RPC_URL`/`ORACLE_ETH_USD_ADDRESS` are missing. */
export function readerFromConfig(config: OracleEnv): FeedReader | null {
  if (!config.ORACLE_RPC_URL || !config.ORACLE_ETH_USD_ADDRESS) return null;
  return createFeedReader({
    rpcUrl: config.ORACLE_RPC_URL,
    feedAddress: config.ORACLE_ETH_USD_ADDRESS,
    sequencerAddress: config.ORACLE_SEQUENCER_UPTIME_ADDRESS,
    timeoutMs: config.ORACLE_TIMEOUT_MS,
    multicall: config.ORACLE_MULTICALL,
    multicallAddress: config.ORACLE_MULTICALL3_ADDRESS,
  });
}

/**
 * The oracle-price HTTP app: `GET /api/v1/prices/eth-usd`, `/health` (no I/O) and `/readyz`
 * (ready when the settings are present and the RPC answers `eth_chainId` with `ORACLE_CHAIN_ID`).
 * No side effects: the caller listens.
 */
export function buildApp(deps: OracleAppDeps): HttpApp {
  const { config } = deps;
  const reader = deps.reader === undefined ? readerFromConfig(config) : deps.reader;
  const missingSettings = missingOracleSettings(config);

  const readiness = async () => {
    if (!reader) throw new AppError("not_ready", `missing settings: ${missingSettings.join(", ")}`);
    const chainId = await reader.chainId();
    if (chainId !== config.ORACLE_CHAIN_ID) {
      throw new AppError(
        "not_ready",
        `RPC serves chain ${chainId}, not ORACLE_CHAIN_ID ${config.ORACLE_CHAIN_ID}`,
      );
    }
  };

  const app = createHttpApp({ service: "oracle-price", logger: deps.logger, readiness });
  registerPriceRoutes(app, {
    reader,
    missingSettings,
    policy: {
      chainId: config.ORACLE_CHAIN_ID,
      maxAgeSeconds: config.ORACLE_ETH_USD_MAX_AGE,
      sequencerGraceSeconds: config.ORACLE_SEQUENCER_GRACE_PERIOD,
    },
    nowSeconds: deps.nowSeconds ?? (() => Date.now() / 1000),
  });
  return app;
}
