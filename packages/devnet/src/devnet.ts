import { existsSync, renameSync } from "node:fs";
import { BASE_MAINNET } from "@tmi/shared/chain";
import { DEVNET_CHAIN_ID } from "./accounts.js";
import { type AnvilProcess, startAnvil } from "./anvil.js";
import { type Background, type BackgroundOptions, startBackground } from "./background.js";
import { BASE_UNISWAP_V3_FACTORY, BASE_WETH } from "./canonical.js";
import { rpc } from "./clients.js";
import {
  type Deployment,
  type DeployOptions,
  deployAll,
  isDeploymentLive,
  placeBaseRouters,
  readDeployment,
  writeDeployment,
} from "./deploy.js";

/** A running devnet (anvil + deployed contracts). */
export interface Devnet {
  rpcUrl: string;
  chainId: number;
  port: number;
  deployment: Deployment;
  /** True when the chain was resumed from `stateFile` with the deployment of `deploymentFile`. */
  resumed: boolean;
  /**
   * Set when `stateFile` held a chain with another chain id (per `deploymentFile`; moved to
   * `<stateFile>.chain-<old id>`), or, when Base's addresses are wanted (`baseAddresses`, default on
   * 8453), a chain whose WETH or Uniswap V3 factory is elsewhere (moved to
   * `<stateFile>.devnet-addresses`): the path the state was moved to; a new chain started instead.
   */
  setAsideState?: string;
  /** The anvil process. */
  anvil: AnvilProcess;
  /** The Base-like background traffic, when `background` was asked for. */
  background?: Background;
  /** Stops the background (if any) and anvil (SIGTERM: it dumps `stateFile` first) and waits for its exit. */
  stop(): Promise<void>;
}

/** Options of {@link startDevnet}. */
export interface StartDevnetOptions extends Omit<DeployOptions, "deploymentFile"> {
  /** Port on 127.0.0.1 (default 0 = a free port; the CLI uses 8545). */
  port?: number;
  /** anvil `--chain-id` (default {@link DEVNET_CHAIN_ID} = 31337; e.g. 8453 to look like Base). */
  chainId?: number;
  /** Seconds between blocks (default 1) or "automine" (one block per transaction). */
  blockTime?: number | "automine";
  /** Deploy the contracts (default true). With false, `deployment` has zero addresses. */
  deploy?: boolean;
  /** anvil `--state` file: the chain is loaded from it if it exists and dumped to it on stop. */
  stateFile?: string;
  /** Seconds between periodic dumps of `stateFile` (default 120; it is always dumped on stop). */
  stateInterval?: number;
  /** Deployment JSON (`deployments/devnet.json` shape) to write, or to reuse when the resumed chain has its contracts. */
  deploymentFile?: string;
  /**
   * Genesis timestamp (Unix seconds) for a fresh chain whose clock starts in the past, e.g. so that
   * {@link loadHistory} spreads its blocks up to now. Ignored when resuming from `stateFile`.
   */
  timestamp?: number;
  /**
   * Base-like background traffic on every block (unrelated `Transfer`s and `Swap`s from a contract
   * that is not the platform's; `true`: 1,000 and 100 per block). Needs interval mining.
   */
  background?: boolean | BackgroundOptions;
  /** Do not print anything (default true: startDevnet itself prints nothing but anvil errors). */
  silent?: boolean;
}

const ZERO = "0x0000000000000000000000000000000000000000" as const;

/**
 * Starts anvil from the npm package on 127.0.0.1 (chain id `chainId`, default 31337; anvil's
 * default mnemonic, 10 accounts with 10,000 ETH) and deploys everything ({@link deployAll}) unless
 * `deploy: false`. Deployment runs under automine (fast); interval mining (`blockTime`) is switched
 * on afterwards. With `stateFile` + `deploymentFile`: when the state file exists and the resumed
 * chain has the contracts of the deployment file, the deployment is reused (same chain, nothing
 * redeployed); otherwise a fresh deployment is made and the file rewritten. A state file whose
 * deployment names another chain id is not resumed (anvil would load the old blocks under the new
 * id): it is moved aside to `<stateFile>.chain-<old id>` and a new chain starts; so is a saved chain
 * without WETH and the Uniswap V3 factory at Base's addresses when they are wanted (`baseAddresses`,
 * default on chain id 8453), to `<stateFile>.devnet-addresses`.
 * @throws Error when anvil cannot start or a deployment fails (anvil is stopped then).
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const blockTime = options.blockTime ?? 1;
  if (options.background && blockTime === "automine")
    throw new Error("startDevnet: background traffic needs interval mining (blockTime), not automine");
  const chainId = options.chainId ?? DEVNET_CHAIN_ID;
  let hadState = options.stateFile ? existsSync(options.stateFile) : false;
  let setAsideState: string | undefined;
  if (hadState && options.stateFile && options.deploymentFile) {
    let previous: Deployment | undefined;
    try {
      previous = readDeployment(options.deploymentFile);
    } catch {
      // A malformed deployment file: resumed below like a state without one (a fresh deployment).
    }
    const wantsBase = options.baseAddresses ?? chainId === BASE_MAINNET.chainId;
    if (previous && previous.chainId !== chainId) {
      setAsideState = `${options.stateFile}.chain-${previous.chainId}`;
    } else if (
      previous &&
      wantsBase &&
      (previous.contracts.weth !== BASE_WETH ||
        previous.contracts.uniswapV3Factory !== BASE_UNISWAP_V3_FACTORY)
    ) {
      // Saved before WETH and the Uniswap V3 factory moved to Base's addresses: a new chain has them.
      setAsideState = `${options.stateFile}.devnet-addresses`;
    }
    if (setAsideState) {
      renameSync(options.stateFile, setAsideState);
      hadState = false;
    }
  }
  const anvil = await startAnvil({
    port: options.port ?? 0,
    chainId,
    stateFile: options.stateFile,
    stateInterval: options.stateInterval,
    timestamp: hadState ? undefined : options.timestamp,
    echo: options.silent === false,
  });
  try {
    let deployment: Deployment | undefined;
    let resumed = false;
    if (hadState && options.deploymentFile) {
      const previous = (() => {
        try {
          return readDeployment(options.deploymentFile!);
        } catch {
          return undefined;
        }
      })();
      if (previous && (await isDeploymentLive(anvil.rpcUrl, previous))) {
        // A chain saved before the Base routers existed gets them now.
        deployment = await placeBaseRouters(
          anvil.rpcUrl,
          { ...previous, rpcUrl: anvil.rpcUrl },
          options.deployer,
        );
        resumed = true;
      }
    }
    if (!deployment && options.deploy !== false) {
      deployment = await deployAll(anvil.rpcUrl, options);
    }
    deployment ??= {
      chainId,
      rpcUrl: anvil.rpcUrl,
      startBlock: 0,
      contracts: {
        factory: ZERO,
        graduationManager: ZERO,
        feeManager: ZERO,
        lpFeeVault: ZERO,
        communityVault: ZERO,
        traderRewardsVault: ZERO,
        rewardsDistributor: ZERO,
        weth: ZERO,
        uniswapV3Factory: ZERO,
        nonfungiblePositionManager: ZERO,
        swapRouter: ZERO,
        swapRouter02: ZERO,
        quoterV2: ZERO,
        ethUsdFeed: ZERO,
        sequencerUptimeFeed: ZERO,
      },
    };
    if (options.deploymentFile && options.deploy !== false)
      writeDeployment(options.deploymentFile, deployment);
    if (blockTime !== "automine") await rpc(anvil.rpcUrl, "evm_setIntervalMining", [blockTime]);
    const background = options.background
      ? await startBackground(anvil.rpcUrl, chainId, options.background === true ? {} : options.background)
      : undefined;
    return {
      rpcUrl: anvil.rpcUrl,
      chainId,
      port: anvil.port,
      deployment,
      resumed,
      ...(setAsideState ? { setAsideState } : {}),
      anvil,
      ...(background ? { background } : {}),
      stop: async () => {
        await background?.stop();
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
