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
  base: Object.freeze({
    chainId: 8453,
    factory: "0x90b371f571975a0b0693dc3c46eea19733c72ddd",
    startBlock: 50_184_361,
    graduationManager: "0x5917ce7aff3a5f276334464e3dea2a96e94c81d8",
    feeManager: "0x016b62b2597954a0c3c2a3a800a9ec29182a1915",
    weth: "0x4200000000000000000000000000000000000006",
    uniswapV3Factory: "0x33128a8fc17869897dce68ed026d694621f6fdfd",
    nonfungiblePositionManager: "0x03a520b32c04bf3beef7beb72e919cf822ed34f1",
    swapRouter: "0x2626664c2603336e57b271c5c0b26f421741e481",
    ethUsdFeed: "0x71041dddad3595f9ced3dccfbe3d1f4b0a16bb70",
  } satisfies NetworkDeployment),
});

/** A `NETWORK` value. */
export type NetworkName = keyof typeof NETWORKS;

/** The `NETWORK` names, for a `z.enum`. */
export const NETWORK_NAMES = Object.keys(NETWORKS) as [NetworkName, ...NetworkName[]];
