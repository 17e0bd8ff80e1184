import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  DEFAULT_CREATOR_FEE_BPS,
  DEFAULT_GRADUATION_THRESHOLD,
  DEFAULT_INITIAL_VIRTUAL_RESERVE,
  DEFAULT_PROTOCOL_FEE_BPS,
  devnetAggregatorAbi,
  devnetAggregatorBytecode,
  devnetSequencerUptimeFeedAbi,
  devnetSequencerUptimeFeedBytecode,
  launchpadAbi,
  launchpadBytecode,
  linkBytecode,
  nftDescriptorAbi,
  nftDescriptorBytecode,
  nonfungiblePositionManagerAbi,
  nonfungiblePositionManagerBytecode,
  nonfungibleTokenPositionDescriptorAbi,
  nonfungibleTokenPositionDescriptorBytecode,
  nonfungibleTokenPositionDescriptorLinkReferences,
  swapRouterAbi,
  swapRouterBytecode,
  uniswapV3FactoryAbi,
  uniswapV3FactoryBytecode,
  weth9Abi,
  weth9Bytecode,
} from "@tmi/contracts";
import { type Abi, type Address, type Hex, stringToHex } from "viem";
import { DEPLOYER_ACCOUNT, DEVNET_PROTOCOL_FEE_RECIPIENT } from "./accounts.js";
import { localPublicClient, localWalletClient, waitForReceipt } from "./clients.js";

/** Addresses of the devnet contracts and where indexing starts (DESIGN.md §13, `deployments/devnet.json`). */
export interface Deployment {
  chainId: number;
  rpcUrl: string;
  /** Block of the first deployment transaction: nothing of ours exists before it. */
  startBlock: number;
  contracts: {
    launchpad: `0x${string}`;
    weth: `0x${string}`;
    uniswapV3Factory: `0x${string}`;
    nonfungiblePositionManager: `0x${string}`;
    swapRouter: `0x${string}`;
    ethUsdFeed: `0x${string}`;
    sequencerUptimeFeed: `0x${string}`;
  };
}

/** Options of {@link deployAll}. */
export interface DeployOptions {
  /** Real reserve (wei) at which tokens graduate (default 5 ETH). */
  graduationThreshold?: bigint;
  /** Protocol fee in bps (default 100). */
  protocolFeeBps?: bigint;
  /** Creator fee in bps (default 50). */
  creatorFeeBps?: bigint;
  /** Initial virtual ETH reserve of each token (default 1 ETH). */
  initialVirtualReserve?: bigint;
  /** Protocol fee recipient (default {@link DEVNET_PROTOCOL_FEE_RECIPIENT}). */
  protocolFeeRecipient?: Address;
  /** Deployer: index into devnetAccounts() or a private key (default account 0). */
  deployer?: number | `0x${string}`;
  /** First ETH/USD answer, 8 decimals (default 3,000 USD = 300000000000). */
  ethUsdAnswer?: bigint;
  /** Write the deployment here (JSON, DESIGN.md §13 format). */
  deploymentFile?: string;
}

/**
 * Deploys WETH9, the Uniswap V3 factory, NFT descriptor (linked), NonfungiblePositionManager and
 * SwapRouter (npm bytecode), the launchpad, the ETH/USD feed (8 decimals, round 1 at
 * `ethUsdAnswer`) and the sequencer uptime feed (up since one day before the latest block), one
 * transaction after the other from the deployer. Fast on an automining chain (no sleeps).
 * @throws Error when a deployment transaction fails.
 */
export async function deployAll(rpcUrl: string, options: DeployOptions = {}): Promise<Deployment> {
  const publicClient = localPublicClient(rpcUrl);
  const chainId = await publicClient.getChainId();
  const wallet = localWalletClient(rpcUrl, options.deployer ?? DEPLOYER_ACCOUNT, chainId);
  let startBlock: bigint | undefined;

  async function deploy(abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<Address> {
    const hash = await wallet.deployContract({ abi, bytecode, args } as never);
    const receipt = await waitForReceipt(publicClient, hash);
    if (receipt.status !== "success" || !receipt.contractAddress)
      throw new Error(`deployment reverted: ${hash}`);
    startBlock ??= receipt.blockNumber;
    return receipt.contractAddress;
  }
  async function send(
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
  ): Promise<void> {
    const hash = await wallet.writeContract({ address, abi, functionName, args } as never);
    const receipt = await waitForReceipt(publicClient, hash);
    if (receipt.status !== "success") throw new Error(`${functionName} reverted: ${hash}`);
  }

  const weth = await deploy(weth9Abi, weth9Bytecode, []);
  const uniswapV3Factory = await deploy(uniswapV3FactoryAbi, uniswapV3FactoryBytecode, []);
  const nftDescriptor = await deploy(nftDescriptorAbi, nftDescriptorBytecode, []);
  const descriptor = await deploy(
    nonfungibleTokenPositionDescriptorAbi,
    linkBytecode(
      nonfungibleTokenPositionDescriptorBytecode,
      nonfungibleTokenPositionDescriptorLinkReferences,
      {
        NFTDescriptor: nftDescriptor,
      },
    ),
    [weth, stringToHex("ETH", { size: 32 })],
  );
  const nonfungiblePositionManager = await deploy(
    nonfungiblePositionManagerAbi,
    nonfungiblePositionManagerBytecode,
    [uniswapV3Factory, weth, descriptor],
  );
  const swapRouter = await deploy(swapRouterAbi, swapRouterBytecode, [uniswapV3Factory, weth]);
  const launchpad = await deploy(launchpadAbi, launchpadBytecode, [
    weth,
    nonfungiblePositionManager,
    options.protocolFeeRecipient ?? DEVNET_PROTOCOL_FEE_RECIPIENT,
    options.protocolFeeBps ?? DEFAULT_PROTOCOL_FEE_BPS,
    options.creatorFeeBps ?? DEFAULT_CREATOR_FEE_BPS,
    options.graduationThreshold ?? DEFAULT_GRADUATION_THRESHOLD,
    options.initialVirtualReserve ?? DEFAULT_INITIAL_VIRTUAL_RESERVE,
  ]);
  const ethUsdFeed = await deploy(devnetAggregatorAbi, devnetAggregatorBytecode, [8, "ETH / USD"]);
  const latest = await publicClient.getBlock({ blockTag: "latest" });
  const now = latest.timestamp;
  await send(ethUsdFeed, devnetAggregatorAbi, "setRoundData", [
    1n,
    options.ethUsdAnswer ?? 300_000_000_000n,
    now,
    now,
    1n,
  ]);
  const sequencerUptimeFeed = await deploy(devnetSequencerUptimeFeedAbi, devnetSequencerUptimeFeedBytecode, [
    0n,
    now > 86_400n ? now - 86_400n : 0n,
  ]);

  const deployment: Deployment = {
    chainId,
    rpcUrl,
    startBlock: Number(startBlock ?? 0n),
    contracts: {
      launchpad: lower(launchpad),
      weth: lower(weth),
      uniswapV3Factory: lower(uniswapV3Factory),
      nonfungiblePositionManager: lower(nonfungiblePositionManager),
      swapRouter: lower(swapRouter),
      ethUsdFeed: lower(ethUsdFeed),
      sequencerUptimeFeed: lower(sequencerUptimeFeed),
    },
  };
  if (options.deploymentFile) writeDeployment(options.deploymentFile, deployment);
  return deployment;
}

function lower(address: Address): `0x${string}` {
  return address.toLowerCase() as `0x${string}`;
}

/** Writes `deployment` as pretty JSON (creating the folder). */
export function writeDeployment(file: string, deployment: Deployment): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(deployment, null, 2)}\n`);
}

/** Reads a deployment file; undefined when it does not exist. @throws Error on malformed JSON. */
export function readDeployment(file: string): Deployment | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as Deployment;
}

/**
 * True when the chain at `rpcUrl` has the chain id of `deployment` and code at every one of its
 * contracts (i.e. it is the chain the deployment was made on, e.g. resumed from anvil state).
 */
export async function isDeploymentLive(rpcUrl: string, deployment: Deployment): Promise<boolean> {
  const client = localPublicClient(rpcUrl, deployment.chainId);
  try {
    if ((await client.getChainId()) !== deployment.chainId) return false;
    const block = await client.getBlockNumber();
    if (block < BigInt(deployment.startBlock)) return false;
    for (const address of Object.values(deployment.contracts)) {
      const code = await client.getCode({ address });
      if (!code || code === "0x") return false;
    }
    return true;
  } catch {
    return false;
  }
}
