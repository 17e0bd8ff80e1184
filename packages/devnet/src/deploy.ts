import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  devnetAggregatorAbi,
  devnetAggregatorBytecode,
  devnetSequencerUptimeFeedAbi,
  devnetSequencerUptimeFeedBytecode,
  feeManagerV3Abi,
  feeManagerV3Bytecode,
  graduationManagerV3Abi,
  graduationManagerV3Bytecode,
  linkBytecode,
  nftDescriptorAbi,
  nftDescriptorBytecode,
  nonfungiblePositionManagerAbi,
  nonfungiblePositionManagerBytecode,
  nonfungibleTokenPositionDescriptorAbi,
  nonfungibleTokenPositionDescriptorBytecode,
  nonfungibleTokenPositionDescriptorLinkReferences,
  quoterV2Abi,
  quoterV2Bytecode,
  swapRouter02Abi,
  swapRouter02Bytecode,
  swapRouterAbi,
  swapRouterBytecode,
  tokenCommunityVaultV3Abi,
  tokenCommunityVaultV3Bytecode,
  traderRewardsDistributorV3Abi,
  traderRewardsDistributorV3Bytecode,
  traderRewardsVaultV3Abi,
  traderRewardsVaultV3Bytecode,
  uniswapV3FactoryAbi,
  uniswapV3FactoryBytecode,
  weth9Abi,
  weth9Bytecode,
  zonkFactoryV3Abi,
  zonkFactoryV3Bytecode,
} from "@tmi/contracts";
import { BASE_MAINNET } from "@tmi/shared/chain";
import { type Abi, type Address, type Hex, stringToHex, zeroAddress } from "viem";
import { DEPLOYER_ACCOUNT, DEVNET_PROTOCOL_FEE_RECIPIENT } from "./accounts.js";
import { copyContract, placeBaseCore } from "./canonical.js";
import { localPublicClient, localWalletClient, waitForReceipt } from "./clients.js";

/** Uniswap's SwapRouter02 on Base mainnet: where the devnet puts its SwapRouter02 (any chain id). */
export const BASE_SWAP_ROUTER02 = BASE_MAINNET.contracts.swapRouter;
/** Uniswap's QuoterV2 on Base mainnet: where the devnet puts its QuoterV2 (any chain id). */
export const BASE_QUOTER_V2 = "0x3d4e44eb1374240ce5f1b871ab261cd16335b76a" as const;

/** Storage slots copied with a contract's code (SwapRouter02 keeps `amountInCached` in slot 0). */
const COPIED_SLOTS = 4;

/**
 * Addresses of the devnet contracts and where indexing starts (`deployments/devnet.json`): the
 * zonk.fun V3 system (factory, graduation manager, fee manager), WETH9, Uniswap V3 (factory,
 * NonfungiblePositionManager, SwapRouter, SwapRouter02, QuoterV2) and the feeds. Addresses lowercase.
 */
export interface Deployment {
  chainId: number;
  rpcUrl: string;
  /** Block of the first deployment transaction: nothing of ours exists before it. */
  startBlock: number;
  contracts: {
    /** `ZonkFactoryV3`: `createToken`, `TokenLaunchedV3`. */
    factory: `0x${string}`;
    /** `GraduationManagerV3`: canonical pools, `LaunchRegistered`, `GraduatedV3`. */
    graduationManager: `0x${string}`;
    /**
     * `FeeManagerV3`: `TokenRegistered`, `FeesDeposited`, creator / protocol fee claims, payout
     * proposals, forwarding to the two ecosystem vaults.
     */
    feeManager: `0x${string}`;
    /**
     * `PermanentLPFeeVaultV3` (the graduation manager's `lpFeeVault()`): `PermanentLPFeesAccrued`,
     * LP fee claims per recipient and asset, forwarding to the two ecosystem vaults.
     */
    lpFeeVault: `0x${string}`;
    /** `TokenCommunityVaultV3` (the fee manager's `communityVault()`): `CommunityFunded`, `CommunityFundsForwarded`. */
    communityVault: `0x${string}`;
    /** `TraderRewardsVaultV3` (the fee manager's `traderRewardsVault()`): `TraderRewardsFunded`, `TraderRewardPaid`. */
    traderRewardsVault: `0x${string}`;
    /**
     * `TraderRewardsDistributorV3` (the trader-rewards vault's `distributor()`; owner: the deployer):
     * `DistributionPublished`, `RewardClaimed`.
     */
    rewardsDistributor: `0x${string}`;
    /** WETH9; Base's `0x4200…0006` on chain id 8453 ({@link DeployOptions.baseAddresses}). */
    weth: `0x${string}`;
    /** UniswapV3Factory; Base's `0x3312…fdfd` on chain id 8453 ({@link DeployOptions.baseAddresses}). */
    uniswapV3Factory: `0x${string}`;
    nonfungiblePositionManager: `0x${string}`;
    swapRouter: `0x${string}`;
    /**
     * Uniswap SwapRouter02 (`@uniswap/swap-router-contracts`; `exactInputSingle` without deadline,
     * V3 routes only: no V2 factory) at Base's address {@link BASE_SWAP_ROUTER02}.
     */
    swapRouter02: `0x${string}`;
    /** Uniswap QuoterV2 (`@uniswap/v3-periphery`) at Base's address {@link BASE_QUOTER_V2}. */
    quoterV2: `0x${string}`;
    ethUsdFeed: `0x${string}`;
    sequencerUptimeFeed: `0x${string}`;
  };
}

/**
 * Options of {@link deployAll}. The V3 economics (supply, curve, fees, graduation at 3 ETH) are
 * constants of the contracts, as on the platform.
 */
export interface DeployOptions {
  /**
   * Treasury of the fee manager and of the community vault (protocol fees, community funds) and
   * protocol recipient of the graduation positions' trading
   * fees (default {@link DEVNET_PROTOCOL_FEE_RECIPIENT}).
   */
  protocolFeeRecipient?: Address;
  /** Deployer: index into devnetAccounts() or a private key (default account 0). */
  deployer?: number | `0x${string}`;
  /** First ETH/USD answer, 8 decimals (default 3,000 USD = 300000000000). */
  ethUsdAnswer?: bigint;
  /** Write the deployment here (JSON, the {@link Deployment} shape). */
  deploymentFile?: string;
  /**
   * Put WETH9 and the Uniswap V3 factory at Base's addresses ({@link BASE_WETH},
   * {@link BASE_UNISWAP_V3_FACTORY}; see {@link placeBaseCore}), so that everything built on them
   * (position manager, routers, quoter, graduation manager, pools) is where Base has it. Default:
   * when the chain id is 8453; other chains get freshly deployed addresses.
   */
  baseAddresses?: boolean;
}

/**
 * Deploys WETH9 and the Uniswap V3 factory (at Base's addresses with `baseAddresses`, the default
 * on chain id 8453), the NFT descriptor (linked), NonfungiblePositionManager,
 * SwapRouter, and SwapRouter02 and QuoterV2 at Base's addresses (npm bytecode; `anvil_setCode`), the V3 system (fee manager, graduation manager, factory, each manager
 * bound to the factory once), the ETH/USD feed (8 decimals, round 1 at
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

  let weth: Address;
  let uniswapV3Factory: Address;
  if (options.baseAddresses ?? chainId === BASE_MAINNET.chainId) {
    startBlock = (await publicClient.getBlockNumber()) + 1n;
    ({ weth, uniswapV3Factory } = await placeBaseCore(rpcUrl, chainId, options.deployer ?? DEPLOYER_ACCOUNT));
  } else {
    weth = await deploy(weth9Abi, weth9Bytecode, []);
    uniswapV3Factory = await deploy(uniswapV3FactoryAbi, uniswapV3FactoryBytecode, []);
  }
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

  const treasury = options.protocolFeeRecipient ?? DEVNET_PROTOCOL_FEE_RECIPIENT;
  const feeManager = await deploy(feeManagerV3Abi, feeManagerV3Bytecode, [treasury]);
  // The fee economy, wired as the platform wires it: both ecosystem vaults bound to the fee
  // manager (and it to them), the distributor to the trader-rewards vault, and the LP fee vault
  // (created by the graduation manager from the fee manager's vaults) to both vaults.
  const communityVault = await deploy(tokenCommunityVaultV3Abi, tokenCommunityVaultV3Bytecode, [
    feeManager,
    treasury,
  ]);
  const traderRewardsVault = await deploy(traderRewardsVaultV3Abi, traderRewardsVaultV3Bytecode, [
    feeManager,
  ]);
  const rewardsDistributor = await deploy(traderRewardsDistributorV3Abi, traderRewardsDistributorV3Bytecode, [
    wallet.account.address,
    traderRewardsVault,
  ]);
  await send(traderRewardsVault, traderRewardsVaultV3Abi, "setDistributorOnce", [rewardsDistributor]);
  await send(feeManager, feeManagerV3Abi, "bindEcosystemVaultsOnce", [communityVault, traderRewardsVault]);
  const graduationManager = await deploy(graduationManagerV3Abi, graduationManagerV3Bytecode, [
    uniswapV3Factory,
    weth,
    nonfungiblePositionManager,
    feeManager,
  ]);
  const lpFeeVault = await publicClient.readContract({
    address: graduationManager,
    abi: graduationManagerV3Abi,
    functionName: "lpFeeVault",
  });
  await send(communityVault, tokenCommunityVaultV3Abi, "setPermanentLPFeeVaultOnce", [lpFeeVault]);
  await send(traderRewardsVault, traderRewardsVaultV3Abi, "setPermanentLPFeeVaultOnce", [lpFeeVault]);
  const factory = await deploy(zonkFactoryV3Abi, zonkFactoryV3Bytecode, [feeManager, graduationManager]);
  await send(feeManager, feeManagerV3Abi, "setFactoryOnce", [factory]);
  await send(graduationManager, graduationManagerV3Abi, "setFactoryOnce", [factory]);
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
      factory: lower(factory),
      graduationManager: lower(graduationManager),
      feeManager: lower(feeManager),
      lpFeeVault: lower(lpFeeVault),
      communityVault: lower(communityVault),
      traderRewardsVault: lower(traderRewardsVault),
      rewardsDistributor: lower(rewardsDistributor),
      weth: lower(weth),
      uniswapV3Factory: lower(uniswapV3Factory),
      nonfungiblePositionManager: lower(nonfungiblePositionManager),
      swapRouter: lower(swapRouter),
      swapRouter02: BASE_SWAP_ROUTER02,
      quoterV2: BASE_QUOTER_V2,
      ethUsdFeed: lower(ethUsdFeed),
      sequencerUptimeFeed: lower(sequencerUptimeFeed),
    },
  };
  await placeBaseRouters(rpcUrl, deployment, options.deployer);
  if (options.deploymentFile) writeDeployment(options.deploymentFile, deployment);
  return deployment;
}

/**
 * Puts Uniswap's SwapRouter02 and QuoterV2 at Base's addresses ({@link BASE_SWAP_ROUTER02},
 * {@link BASE_QUOTER_V2}) unless code is there already (a resumed chain): both are deployed for
 * the devnet's Uniswap V3 factory, position manager and WETH (immutables inside their runtime
 * code; no V2 factory), then their runtime code and first {@link COPIED_SLOTS} storage slots are
 * copied there with `anvil_setCode`/`anvil_setStorageAt`. The platform's web app trades graduated
 * tokens through these two. Returns `deployment` with both addresses.
 * @throws Error when a deployment transaction fails (or the node is not anvil).
 */
export async function placeBaseRouters(
  rpcUrl: string,
  deployment: Deployment,
  deployer: number | `0x${string}` = DEPLOYER_ACCOUNT,
): Promise<Deployment> {
  const client = localPublicClient(rpcUrl, deployment.chainId);
  const wallet = localWalletClient(rpcUrl, deployer, deployment.chainId);
  const { uniswapV3Factory, nonfungiblePositionManager, weth } = deployment.contracts;
  const place = async (to: Address, abi: Abi, bytecode: Hex, args: readonly unknown[]) => {
    const existing = await client.getCode({ address: to });
    if (existing && existing !== "0x") return;
    const receipt = await waitForReceipt(
      client,
      await wallet.deployContract({ abi, bytecode, args } as never),
    );
    if (receipt.status !== "success" || !receipt.contractAddress)
      throw new Error(`deployment reverted: ${receipt.transactionHash}`);
    const slots = Array.from({ length: COPIED_SLOTS }, (_, i) => i);
    await copyContract(rpcUrl, client, receipt.contractAddress, to, slots);
  };
  await place(BASE_SWAP_ROUTER02, swapRouter02Abi, swapRouter02Bytecode, [
    zeroAddress,
    uniswapV3Factory,
    nonfungiblePositionManager,
    weth,
  ]);
  await place(BASE_QUOTER_V2, quoterV2Abi, quoterV2Bytecode, [uniswapV3Factory, weth]);
  deployment.contracts.swapRouter02 = BASE_SWAP_ROUTER02;
  deployment.contracts.quoterV2 = BASE_QUOTER_V2;
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
