import { BASE_MAINNET } from "../chain/zonk-v3-math.js";

/**
 * The public deployments `NETWORK=<name>` stands for: the zonk.fun V3 contract set and the feeds
 * on that chain (addresses lowercase). Used by the indexer (factory, start block, WETH, fee and
 * graduation manager, chain id) and by oracle-price (chain id, Chainlink ETH/USD feed).
 * Source: the platform's published Base mainnet deployment (see docs/operations.md, "Pointing it
 * at a real chain").
 */
export interface NetworkDeployment {
  /** EIP-155 chain id. */
  chainId: number;
  /** ZonkFactoryV3. */
  factory: string;
  /** Block in which the factory was deployed: indexing starts there. */
  startBlock: number;
  graduationManager: string;
  feeManager: string;
  /** Wrapped ether: the other token of every canonical pool. */
  weth: string;
  uniswapV3Factory: string;
  nonfungiblePositionManager: string;
  swapRouter: string;
  /** Chainlink ETH/USD aggregator proxy (8 decimals). */
  ethUsdFeed: string;
}

/** Known networks by `NETWORK` value. */
export const NETWORKS = Object.freeze({
  // The platform's Base mainnet deployment, as `@tmi/shared/chain` records it.
  base: Object.freeze({
    chainId: BASE_MAINNET.chainId,
    startBlock: BASE_MAINNET.startBlock,
    ...BASE_MAINNET.contracts,
  } satisfies NetworkDeployment),
});

/** A `NETWORK` value. */
export type NetworkName = keyof typeof NETWORKS;

/** The `NETWORK` names, for a `z.enum`. */
export const NETWORK_NAMES = Object.keys(NETWORKS) as [NetworkName, ...NetworkName[]];
