/**
 * @tmi/devnet: a local chain for development and tests. anvil from npm (chain id a setting,
 * default 31337), the zonk.fun V3 contracts (factory, per-token curves, graduation manager, fee
 * manager), WETH9, Uniswap V3 and the Chainlink-style feeds deployed on it, wallet helpers, a
 * traffic simulator and a fast history loader.
 */
export {
  DEPLOYER_ACCOUNT,
  DEVNET_CHAIN_ID,
  DEVNET_MNEMONIC,
  DEVNET_PROTOCOL_FEE_RECIPIENT,
  devnetAccounts,
  devnetChain,
  FEED_ACCOUNT,
  parseDevnetChainId,
} from "./accounts.js";
export { type AnvilOptions, type AnvilProcess, anvilBinaryPath, startAnvil } from "./anvil.js";
export {
  BACKGROUND_SENDER,
  type Background,
  type BackgroundOptions,
  backgroundRates,
  deployBackgroundEmitter,
  sendBackgroundBlock,
  startBackground,
} from "./background.js";
export {
  BASE_UNISWAP_V3_FACTORY,
  BASE_WETH,
  copyContract,
  placeBaseCore,
  relocateSelfImmutables,
  UNISWAP_V3_FEE_TIERS,
} from "./canonical.js";
export { localPublicClient, localWalletClient, rpc, rpcBatch, waitForReceipt } from "./clients.js";
export * from "./deploy.js";
export { type Devnet, type StartDevnetOptions, startDevnet } from "./devnet.js";
export {
  deployFeedAggregator,
  deployFeedProxy,
  replaceFeedAggregator,
  setAggregatorRound,
} from "./feed-proxy.js";
export { type EthUsdRound, setEthUsdRound, setSequencerStatus } from "./feeds.js";
export {
  type LoadHistoryOptions,
  type LoadHistoryResult,
  loadHistory,
} from "./history-loader.js";
export {
  formatStats,
  runSimulator,
  type SimulatorLogger,
  type SimulatorOptions,
  type SimulatorStats,
  simulatorKeys,
} from "./simulator.js";
export { createTrader, type LaunchResult, POOL_FEE, type Trader, type TxResult } from "./trader.js";
